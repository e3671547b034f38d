// The host half of the TMA GEMM: one GEMM's views (a col2im class, or a single GEMM) turned into plain
// numbers the kernel runs on (no CUDA types here, so host tests check all of it): each operand's TMA
// box and how its corner follows the digits (boxes.hpp), the tiles of M, N and K over their digits,
// and how C's offsets and the split-K workspace's indices follow them. Returns why not where a view
// cannot be boxes; the launch then keeps the cp.async pipeline.
#pragma once
#include <string>
#include <utility>
#include "lowering/gemm.hpp"
#include "lowering/gpu/boxes.hpp"
#include "lowering/gpu/stacked_boxes.hpp"
#include "lowering/gpu/tma_gemm/halo_plan.hpp"
#include "lowering/gpu/tma_gemm/k_halo_plan.hpp"
#include "lowering/gpu/tma_gemm/plan.hpp"

namespace tg::tma_gemm {
constexpr int nd = boxes::max_digits;
constexpr int max_classes = 8;  // GEMMs in one batch (col2im classes: up to 8 for a 3-d stride 2)

// How a plan reads A: boxes per k-tile; or halos where the taps of a stride-1 convolution share input
// positions: one per channel block whose k-tiles are the taps, the tile's rows positions (rows:
// halo_plan.hpp, the forward and backward data), or one per k-tile of positions whose m64 blocks are
// the taps (k: k_halo_plan.hpp, backward weight transposed).
enum class halo_kind { none, rows, k };

// One GEMM dimension's digits as tiles: tile t's corner digit p is (t's mixed-radix digit p) * ext[p].
// Unused slots have length 1 and extent 1.
struct digits {
  int len[nd] = {1, 1, 1, 1};
  int ext[nd] = {1, 1, 1, 1};
  int tiles[nd] = {1, 1, 1, 1};
  int shift[nd] = {};            // pow2: a tile-local index's digit p is (i >> shift[p]) & (ext[p] - 1)
  int stride[nd] = {1, 1, 1, 1}; // any extents: ... (i / stride[p]) % ext[p]
  bool pow2 = true;              // every extent a power of two (all but the taps tile's rows: plan.hpp)
  long long count = 0;           // tiles in all
};

struct class_plan {
  bool ok = false;
  std::string why;
  bool transposed = false;          // planned as C^T = B^T A^T: A's boxes from the view's B, rows are N
  bool a_mn = false, b_mn = false;  // operand orientation in shared memory
  bool has_k = false;               // K > 0 (a tapless col2im class has none: it writes zeros)
  boxes::operand_boxes a, b;
  digits m, n, k;
  int groups = 1;
  long long c_off0 = 0, c_g = 0, c_m[nd] = {}, c_n[nd] = {};  // C's element offset per digit
  bool c_vectors = false;           // 8 consecutive tile columns are 8 consecutive elements of C, 16-byte aligned
  halo_plan halo;                   // A as one halo box per channel block (halo_plan.hpp)
  k_halo_plan k_halo;               // A as one halo box per k-tile (k_halo_plan.hpp)
  int k_digit[nd] = {0, 1, 2, 3};   // the view's k digit in each slot of k (a halo plan puts the channels first)
};

namespace detail {
inline bool fill_digits(const boxes::view_digits& d, int dim, const boxes::extents& e, const int* order, int n_order, digits& out,
                        std::string& why) {
  out = digits{};
  out.count = 1;
  for (int p = 0; p < d.count[dim]; ++p) {
    if (d.length[dim][p] > 0x7fffffff) return why = "a digit longer than 2^31", false;
    out.len[p] = static_cast<int>(d.length[dim][p]);
    out.ext[p] = e.e[p];
    out.tiles[p] = static_cast<int>(ceil_div(d.length[dim][p], index_t{e.e[p]}));
    out.count *= out.tiles[p];
  }
  int shift = 0, stride = 1;  // tile-local index: the spanned digits in smem order, fastest first
  for (int i = 0; i < n_order; ++i) {
    const int x = e.e[order[i]];
    out.shift[order[i]] = shift, out.stride[order[i]] = stride;
    int l = 0;
    while ((1 << l) < x) ++l;
    out.pow2 = out.pow2 && (1 << l) == x;
    shift += l, stride *= x;
  }
  return true;
}

inline bool same_digits(const boxes::view_digits& x, int dx, const boxes::view_digits& y, int dy) {
  if (x.count[dx] != y.count[dy]) return false;
  for (int p = 0; p < x.count[dx]; ++p)
    if (x.length[dx][p] != y.length[dy][p]) return false;
  return true;
}

inline boxes::extents only(int p, int e) {
  boxes::extents x;
  x.e[p] = e;
  return x;
}

// An MN-major operand's boxes along its contiguous axis as one stacked box (stacked_boxes.hpp), where
// the schedule has them (TG_TMA_STACK_BOXES=0: separate boxes).
inline void stack_if_scheduled(boxes::operand_boxes& o, const boxes::view_digits& d, const boxes::extents& ext_rows, const boxes::extents& ext_k, int bk) {
  if (sm90_schedule().stack_boxes) boxes::stack_boxes(o, d, ext_rows, ext_k, bk);
}

// An MN-major operand's row extents for `rows`-row tiles: the least padded extents whose boxes exist
// (boxes.hpp: the contiguous digit over the whole tile, or one box of it and the rest over one other
// row digit, a box per filter tap where a tap has 64 channels; ties and TG_TMA_STEP_BOXES=0: the
// contiguous digit alone), or, only where they pad strictly less, several boxes of it at each step of
// the other digit (fp32 taps of 64 channels: 2 boxes a tap, 4 taps in a 256-row tile instead of 8 taps
// of half their channels, 75% real instead of 37.5%).
inline boxes::extents mn_rows(const boxes::view_axes& x, const boxes::view_digits& d, int inner, const boxes::extents& ek, int rows, int bk) {
  const bool step = sm90_schedule().step_boxes;
  auto fits_with = [&](bool several_a_step) {
    return [&, several_a_step](const boxes::extents& e) {
      if (!step && e.e[inner] != rows) return false;
      const boxes::operand_boxes b = boxes::boxes_of(x, d, e, ek, rows, bk);
      return b.ok && (several_a_step || b.step_digit < 0 || b.along == 1);
    };
  };
  boxes::extents one, several;
  const bool has_one = boxes::choose_extents(d.length[1], d.count[1], rows, fits_with(false), one);
  const bool has_several = boxes::choose_extents(d.length[1], d.count[1], rows, fits_with(true), several);
  if (has_several && (!has_one || boxes::cover_of(d.length[1], d.count[1], several) < boxes::cover_of(d.length[1], d.count[1], one) - 1e-12)) return several;
  return has_one ? one : only(inner, rows);
}

// C's digits with its rows and columns exchanged (C^T).
inline boxes::view_digits transposed(boxes::view_digits d) {
  std::swap(d.count[1], d.count[2]);
  for (int p = 0; p < boxes::max_digits; ++p) {
    std::swap(d.length[1][p], d.length[2][p]);
    std::swap(d.off[1][p], d.off[2][p]);
    for (int i = 0; i < boxes::max_guards; ++i) std::swap(d.guard[1][p][i], d.guard[2][p][i]);
  }
  return d;
}

// plan_class's halo branch: A (K-major, its channels in k slot 0) as halo boxes, B as per-k-tile boxes.
template <int BM, int BN, int BK>
class_plan plan_halo(class_plan r, const boxes::view_digits& da, const boxes::view_digits& db) {
  using namespace boxes;
  auto fail = [&](std::string w) { r.ok = false, r.why = std::move(w); return r; };
  const view_axes xa = axes_of(da), xb = axes_of(db);
  if (!xa.ok) return fail("A: " + xa.why);
  if (!xb.ok) return fail("B: " + xb.why);
  int pb;
  const int ib = contiguous_digit(xb, db, pb, BK);
  r.b_mn = ib == 1;
  if (!r.b_mn && pb != 0) return fail("A and B are contiguous along different k digits");
  const extents ek = only(0, BK);
  if (da.length[2][0] % BK != 0 && !xa.exact[2][0] && !xb.exact[2][0]) return fail("a k-tile past K would not read zero");
  extents em, en;
  constexpr int max_rows = halo_rows_for(BN, swizzle_bytes / BK);
  if (!choose_extents(da.length[1], da.count[1], BM, [&](const extents& e) { return halo_of(xa, da, e, BM, max_rows, BK).ok; }, em))
    return fail("no M tile is a halo of A");
  const halo_boxes ha = halo_of(xa, da, em, BM, max_rows, BK);
  r.a = ha.a, r.halo = ha.h;
  auto n_fits = [&](const extents& e) { return boxes_of(xb, db, e, ek, BN, BK).ok; };
  if (r.b_mn) en = mn_rows(xb, db, pb, ek, BN, BK); else if (!choose_extents(db.length[1], db.count[1], BN, n_fits, en)) return fail("no N tile is a box of B");
  r.b = boxes_of(xb, db, en, ek, BN, BK);
  if (!r.b.ok) return fail("B: " + r.b.why);
  const int inner_a[1] = {0}, inner_b[2] = {pb, r.b.step_digit};
  std::string why;
  if (!fill_digits(da, 1, em, r.a.order, r.a.n_order, r.m, why) ||
      !fill_digits(db, 1, en, r.b_mn ? inner_b : r.b.order, r.b_mn ? (r.b.step_digit >= 0 ? 2 : 1) : r.b.n_order, r.n, why) ||
      !fill_digits(da, 2, ek, inner_a, 1, r.k, why))
    return fail(why);
  stack_if_scheduled(r.b, db, en, ek, BK);
  r.ok = true;
  return r;
}

// The taps tile's row extents (plan.hpp: `blocks` m64 blocks, not a power of two): 64 of the channels
// (digit pa) and, over the other row digits, extents up to each one's length whose product, the tile's
// real taps, is at most `blocks` and more than half of them (fewer would leave most of its wgmma idle).
template <class F>
void each_tap_extents(const boxes::view_digits& d, int pa, int blocks, F f) {
  boxes::extents e;
  e.e[pa] = boxes::swizzle_elems;
  auto visit = [&](auto&& self, int p, int taps) -> void {
    if (p == d.count[1]) {
      if (2 * taps > blocks) f(static_cast<const boxes::extents&>(e));
      return;
    }
    if (p == pa) return self(self, p + 1, taps);
    for (int x = 1; x * taps <= blocks && x <= d.length[1][p]; ++x) {
      e.e[p] = x;
      self(self, p + 1, taps * x);
    }
    e.e[p] = 1;
  };
  visit(visit, 0, 1);
}

// plan_class's k-halo branch (backward weight transposed: both operands MN-major, A's rows over taps and
// channels): A as one halo box per k-tile, B as per-k-tile boxes. The tile's taps and the k-tile's
// positions are chosen together for the fewest rows the TMA brings: (M tiles) x (k-tiles) x (the
// halo's rows + B's), each count relative to the unpadded one, and per m64 block that a tile has past
// its taps (the taps tile's). BM a power of two: power-of-two extents (up to 4 taps); else the taps
// tile's (each_tap_extents).
template <int BM, int BN>
class_plan plan_k_halo(class_plan r, const boxes::view_digits& da, const boxes::view_digits& db, int pa, int pb) {
  using namespace boxes;
  auto fail = [&](std::string w) { r.ok = false, r.why = std::move(w); return r; };
  if (!r.a_mn || !r.b_mn) return fail("a k-halo needs both operands MN-major");
  const view_axes xa = axes_of(da), xb = axes_of(db);
  bool found = false;
  double least = 0;
  extents em, ek, en;
  k_halo_boxes h;  // the best (em, ek)'s halo; r.b its B
  std::string why = "no tile of taps and k-tile of positions is a halo of A";
  auto each_m = [&](auto f) {
    if constexpr ((BM & (BM - 1)) == 0) each_extents(da.count[1], BM, f);
    else each_tap_extents(da, pa, BM / swizzle_elems, f);
  };
  each_m([&](const extents& m) {
    if (m.e[pa] != swizzle_elems) return;
    int taps = 1;
    for (int p = 0; p < da.count[1]; ++p) taps *= p == pa ? 1 : m.e[p];
    const double idle = static_cast<double>(BM) / (swizzle_elems * taps);  // blocks per real tap
    each_extents(da.count[2], swizzle_elems, [&](const extents& k) {
      for (int p = 0; p < da.count[2]; ++p)  // a k-tile past K must read zero on one side at least
        if (da.length[2][p] % k.e[p] != 0 && !xa.exact[2][p] && !xb.exact[2][p]) return;
      k_halo_boxes ha = k_halo_of(xa, da, m, k, BM, k_halo_rows);
      if (!ha.ok) return void(why = ha.why);
      const extents n = mn_rows(xb, db, pb, k, BN, swizzle_elems);
      const operand_boxes b = boxes_of(xb, db, n, k, BN, swizzle_elems);
      bool same = b.ok && b.n_order == ha.a.n_order;  // both tiles are [k][rows]: their k rows in one order
      for (int i = 0; same && i < b.n_order; ++i) same = b.order[i] == ha.a.order[i];
      if (!same) return;
      const double cost = cover_of(da.length[1], da.count[1], m) * idle * cover_of(da.length[2], da.count[2], k) * (ha.h.rows + BN);
      if (found && cost >= least - 1e-9) return;
      found = true, least = cost, em = m, ek = k, en = n, h = std::move(ha), r.b = b;
    });
  });
  if (!found) return fail(why);
  r.a = h.a, r.k_halo = h.h;
  const int inner_b[2] = {pb, r.b.step_digit};
  if (!fill_digits(da, 1, em, h.row_order, h.n_row_order, r.m, why) ||
      !fill_digits(db, 1, en, inner_b, r.b.step_digit >= 0 ? 2 : 1, r.n, why) || !fill_digits(da, 2, ek, h.a.order, h.a.n_order, r.k, why))
    return fail(why);
  stack_if_scheduled(r.b, db, en, ek, swizzle_elems);
  r.ok = true;
  return r;
}
}  // namespace detail

// The shared-memory orientation of A and B (a_mn * 2 + b_mn: whether each one's contiguous digit is a
// row digit) for k-tiles of BK elements (boxes::row_elems of the element size: which digit a 32-bit
// row takes, boxes::contiguous_digit), from the views' axes alone, without choosing tiles; -1 where they
// are not boxes (the plan then says why). The launch picks its tile from this before planning once.
template <int BK = boxes::swizzle_elems, class Views>
int orientation_of(const Views& v) {
  using namespace boxes;
  if constexpr (!affine_split<decltype(v.a)>::on || !affine_split<decltype(v.b)>::on) {
    return -1;
  } else {
    const view_digits da = digits_of(v.a), db = digits_of(v.b);
    const view_axes xa = axes_of(da), xb = axes_of(db);
    int pa, pb;
    const int ia = xa.ok ? boxes::contiguous_digit(xa, da, pa, BK) : -1, ib = xb.ok ? boxes::contiguous_digit(xb, db, pb, BK) : -1;
    return ia < 0 || ib < 0 ? -1 : (ia == 1) * 2 + (ib == 1);
  }
}

// Plans views v of one GEMM for tiles BM x BN x BK (BK: one 128-byte row of the operands' elements,
// boxes::row_elems: 64 of 16 bits, 32 of fp32). Transposed: the plan of C^T = B^T A^T (tile rows over
// the view's N, A's boxes from its B), for GEMMs whose M would fill a fraction of BM rows while N fills
// many (backward weight with 64 output channels). H: A as boxes, or as halos that the filter taps read
// windows of (halo_kind above). 32-bit operands may be MN-major here: tf32 wgmma reads K-major tiles
// only, so the launch takes such plans on the MN-major tf32 tile (its transposers make the stages
// K-major: plan.hpp, mn_tf32_tile) or refuses them.
template <int BM, int BN, bool Transposed = false, halo_kind H = halo_kind::none, int BK = boxes::swizzle_elems, class Views>
class_plan plan_class(const Views& v) {
  using namespace boxes;
  using VA = decltype(v.a);
  using VB = decltype(v.b);
  using VC = decltype(v.c);
  class_plan r;
  auto fail = [&](std::string w) { r.ok = false, r.why = std::move(w); return r; };
  if constexpr (!affine_split<VA>::on || !affine_split<VB>::on || !affine_split<VC>::on) {
    return fail("an operand is not an affine split view");
  } else if constexpr (affine_split<VC>::n_guards != 0) {
    return fail("C has padding");
  } else {
    const view_digits dva = digits_of(v.a), dvb = digits_of(v.b);
    view_digits da = Transposed ? dvb : dva;
    view_digits db = Transposed ? dva : dvb;
    const view_digits dc = Transposed ? detail::transposed(digits_of(v.c)) : digits_of(v.c);
    r.transposed = Transposed;
    if (da.count[0] > 1 || !detail::same_digits(da, 0, db, 0) || !detail::same_digits(da, 0, dc, 0)) return fail("the groups are not one digit");
    if (!detail::same_digits(da, 1, dc, 1) || !detail::same_digits(db, 1, dc, 2) || !detail::same_digits(da, 2, db, 2))
      return fail("A, B and C disagree on the digits of M, N or K");
    r.groups = da.count[0] == 1 ? static_cast<int>(da.length[0][0]) : 1;
    r.has_k = v.k() > 0;
    // C: its element offset per digit.
    r.c_off0 = dc.off0;
    r.c_g = dc.count[0] == 1 ? dc.off[0][0] : 0;
    for (int p = 0; p < dc.count[1]; ++p) r.c_m[p] = dc.off[1][p];
    for (int p = 0; p < dc.count[2]; ++p) r.c_n[p] = dc.off[2][p];
    extents em, en, ek;
    auto any = [](const extents&) { return true; };
    const view_axes xa = axes_of(da), xb = axes_of(db);
    if (xa.all_padding || xb.all_padding) r.has_k = false;  // every product is zero: C = 0
    if (!r.has_k) {  // no operand is read: any tiles of M and N do
      if (!choose_extents(da.length[1], da.count[1], BM, any, em) || !choose_extents(db.length[1], db.count[1], BN, any, en))
        return fail("no tile shape");
      int om[nd], on[nd];
      for (int p = 0; p < nd; ++p) om[p] = on[p] = p;
      std::string why;
      if (!detail::fill_digits(da, 1, em, om, da.count[1], r.m, why) || !detail::fill_digits(db, 1, en, on, db.count[1], r.n, why)) return fail(why);
      r.k.count = 0;
      r.ok = true;
      return r;
    }
    if (!xa.ok) return fail("A: " + xa.why);
    if (!xb.ok) return fail("B: " + xb.why);
    int pa, pb;
    const int ia = boxes::contiguous_digit(xa, da, pa, BK), ib = boxes::contiguous_digit(xb, db, pb, BK);
    if (ia < 0 || ib < 0) return fail("an operand's contiguous axis is not a row or k digit");
    r.a_mn = ia == 1, r.b_mn = ib == 1;
    if constexpr (H == halo_kind::k) {
      static_assert(BK == swizzle_elems, "a k-halo is MN-major: 16-bit operands only");
      return detail::plan_k_halo<BM, BN>(r, da, db, pa, pb);
    } else if constexpr (H == halo_kind::rows) {
      static_assert(!Transposed, "a halo plan reads the view's own A");
      if (r.a_mn) return fail("a halo needs K-major A");
      // The channels slowest in k: a channel block's taps are consecutive k-tiles (both operands' k slots
      // move together), then plan the permuted views.
      da = channels_slowest(da, pa, r.k_digit);
      db = channels_slowest(db, pa, r.k_digit);
      return detail::plan_halo<BM, BN, BK>(r, da, db);
    }
    // K first: a K-major operand fixes it (64 of its contiguous digit); else the best box over K's digits.
    auto k_fits = [&](const extents& e) {
      const extents ra = r.a_mn ? detail::only(pa, BM) : extents{}, rb = r.b_mn ? detail::only(pb, BN) : extents{};
      const operand_boxes ba = boxes_of(xa, da, ra, e, BM, BK), bb = boxes_of(xb, db, rb, e, BN, BK);
      if (!ba.ok || !bb.ok) return false;
      if (r.a_mn && r.b_mn) {  // both tiles are [k][rows]: their k rows must be in one order
        bool same = ba.n_order == bb.n_order;
        for (int i = 0; same && i < ba.n_order; ++i) same = ba.order[i] == bb.order[i];
        if (!same) return false;
      }
      for (int p = 0; p < da.count[2]; ++p)  // a k-tile past K must read zero on one side at least
        if (da.length[2][p] % e.e[p] != 0 && !xa.exact[2][p] && !xb.exact[2][p]) return false;
      return true;
    };
    if (!r.a_mn && !r.b_mn && pa != pb) return fail("A and B are contiguous along different k digits");
    if (!r.a_mn || !r.b_mn) {
      ek = detail::only(!r.a_mn ? pa : pb, BK);
      if (!k_fits(ek)) return fail("the k-tile is not one box of both operands");
    } else if (!choose_extents(da.length[2], da.count[2], BK, k_fits, ek)) {
      return fail("no k-tile is a box of both operands");
    }
    auto m_fits = [&](const extents& e) { return boxes_of(xa, da, e, ek, BM, BK).ok; };
    auto n_fits = [&](const extents& e) { return boxes_of(xb, db, e, ek, BN, BK).ok; };
    if (r.a_mn) em = detail::mn_rows(xa, da, pa, ek, BM, BK); else if (!choose_extents(da.length[1], da.count[1], BM, m_fits, em)) return fail("no M tile is a box of A");
    if (r.b_mn) en = detail::mn_rows(xb, db, pb, ek, BN, BK); else if (!choose_extents(db.length[1], db.count[1], BN, n_fits, en)) return fail("no N tile is a box of B");
    r.a = boxes_of(xa, da, em, ek, BM, BK);
    r.b = boxes_of(xb, db, en, ek, BN, BK);
    if (!r.a.ok) return fail("A: " + r.a.why);
    if (!r.b.ok) return fail("B: " + r.b.why);
    if (r.a_mn && r.b_mn) {  // both tiles are [k][rows]: their k rows must be in one order
      bool same = r.a.n_order == r.b.n_order;
      for (int i = 0; same && i < r.a.n_order; ++i) same = r.a.order[i] == r.b.order[i];
      if (!same) return fail("A and B order the k-tile's rows differently");
    }
    // An MN-major tile's rows in smem: the contiguous digit fastest, then the digit its boxes step along.
    const int inner_a[2] = {pa, r.a.step_digit}, inner_b[2] = {pb, r.b.step_digit};
    const int n_inner_a = r.a.step_digit >= 0 ? 2 : 1, n_inner_b = r.b.step_digit >= 0 ? 2 : 1;
    std::string why;
    if (!detail::fill_digits(da, 1, em, r.a_mn ? inner_a : r.a.order, r.a_mn ? n_inner_a : r.a.n_order, r.m, why) ||
        !detail::fill_digits(db, 1, en, r.b_mn ? inner_b : r.b.order, r.b_mn ? n_inner_b : r.b.n_order, r.n, why) ||
        !detail::fill_digits(da, 2, ek, r.a_mn ? r.a.order : inner_a, r.a_mn ? r.a.n_order : 1, r.k, why))
      return fail(why);
    detail::stack_if_scheduled(r.a, da, em, ek, BK);
    detail::stack_if_scheduled(r.b, db, en, ek, BK);
    r.ok = true;
    return r;
  }
}

// Whether C's tile columns are runs of C (the epilogue's paired stores): the N tile spans one digit, 8
// or more of it, contiguous in C; every other offset part is a multiple of 16 bytes, and C is aligned.
template <class E>
bool c_columns_vector(const class_plan& p, const void* c) {
  if (reinterpret_cast<std::uintptr_t>(c) % 16 != 0) return false;
  constexpr long long V = 16 / sizeof(E);
  int fast = -1, spanned = 0;
  for (int q = 0; q < nd; ++q)
    if (p.n.ext[q] > 1) fast = q, ++spanned;
  if (spanned != 1 || p.n.ext[fast] < V || p.c_n[fast] != 1) return false;
  bool ok = p.c_off0 % V == 0 && p.c_g % V == 0;
  for (int q = 0; q < nd; ++q) ok = ok && p.c_m[q] % V == 0 && (q == fast || p.c_n[q] % V == 0);
  return ok;
}
}  // namespace tg::tma_gemm
