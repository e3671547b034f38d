// The staged sliding pipeline's plan (host and device arithmetic, no CUDA types: host-tested over whole
// random domains by tests/lowering/gpu/staged_sliding_plan_test.cpp). It serves the single GEMMs of one
// row per group whose groups are the contiguous axis of both operands and whose B is a window over the
// same tensor axes that A's reduction digits walk: channels-last depthwise backward weight,
//   C[g, n] = sum over k of A[g, k] * B[g, n, k],  A = dy, B = im2col(x), n = filter taps, k = (n, ho, wo).
// Worked out from the views' digits (boxes.hpp), not from the op: the reduction's last digit (w) is
// the one the window slides along (the filter's last tap digit moves the same axis of x), the one
// before it (h) gives a tile its rows. A block takes 64 channels and walks a range of tiles of TH x TW
// output positions; each tile's dy and its x with the halo (every tap of the filter) arrive as one TMA
// box each, padding as the box's zeros. In shared memory every element sits at
//   sum over axes of (coordinate - box corner) * pitch,
// so a (tap, output position) is an affine offset there and each warp's taps slide along w.
#pragma once
#include <climits>
#include <string>
#include "lowering/gpu/boxes.hpp"

namespace tg {
constexpr int staged_channels = 64;   // per block: 32 lanes x a pair of 16-bit channels (4 bytes, 128 per warp load)
constexpr int staged_max_warps = 16;  // per block (512 threads)
constexpr int staged_max_units = 16;  // tap chunks per block: a warp holds one chunk's sums for the whole range
constexpr int staged_stages = 2;      // TMA stages: a tile computed while the next one lands (only the gather's kernel takes more)
constexpr int staged_most_stages = 4;
constexpr std::size_t staged_smem_budget = 200 * 1024;  // a multiprocessor's shared memory the stages may take

// A block's share of a multiprocessor: `blocks` of them resident at once, each with 1/blocks of the
// shared-memory budget and of the warps.
struct staged_limits {
  int blocks = 1;
  bool tight = true;     // 3-tap warps where a class has 3 taps, a 3x3 filter's rows in one warp (section 30)
  bool segments = true;  // a tile's rows in segments of w for the warps left over
  bool gather = false;   // one warp walks every unit (the gather: a warp's outputs, not its taps; staged_gather_plan.hpp)
  std::size_t reserve = 0;  // bytes of a block's share kept from the stages (the gather's taps)
  int stages = staged_stages;  // TMA stages the tiles must fit (2 to staged_most_stages)
  bool pairs = true;     // the gather: blocks walk (tile, channel block) pairs where the last block is narrow (staged_gather_plan.hpp)
  std::size_t smem() const { return staged_smem_budget / static_cast<std::size_t>(blocks) - reserve; }
  int warps() const { return staged_max_warps / blocks; }
};
constexpr int staged_max_box = 256;   // elements per box axis (TMA)
constexpr int staged_gather_outputs = 8;  // outputs of a row a gather warp walks at once (staged_gather.hpp)

// One warp's taps: `count` taps of the filter's last tap digit, `spacing` apart (a class of the slide:
// tap i + 1 at position w is tap i at w + slide_w), at fixed values of the other tap digits.
struct staged_unit {
  int x_off;  // shared-memory elements: the other tap digits' part of x's offset
  int first;  // the chunk's first value of the last tap digit
  int count;  // taps (<= the kernel's T)
  int n0;     // C's column of the first tap; tap i is n0 + i * spacing
};

// What the kernel reads (trivially copyable: it travels in the kernel's parameters).
struct staged_geometry {
  int k_digits = 0;                   // of the reduction, slowest first: [.., h, w]
  index_t len[boxes::max_digits] = {};   // digit lengths
  int ext[boxes::max_digits] = {};       // a tile's extent along each digit (TW, TH, then 1)
  index_t tiles_of[boxes::max_digits] = {};  // tiles along each digit
  index_t tiles = 0;                  // their product
  int x_rank = 0, y_rank = 0;         // TMA tensors: x (B) and dy (A)
  int x_axis[boxes::max_digits] = {}, x_coef[boxes::max_digits] = {};  // where a digit moves x (-1: nowhere)
  int y_axis[boxes::max_digits] = {}, y_coef[boxes::max_digits] = {};
  int x_base[arch::tma_box::max_rank] = {}, y_base[arch::tma_box::max_rank] = {};  // corners at digit 0
  int x_box[arch::tma_box::max_rank] = {}, y_box[arch::tma_box::max_rank] = {};    // box extents
  int x_pitch_h = 0, x_pitch_w = 0, y_pitch_h = 0, y_pitch_w = 0;  // shared-memory elements per unit of h, w
  int x_tap = 0;                      // ... per unit of the last tap digit
  int slide_w = 1, spacing = 1;       // w steps per slide, taps apart in a unit
  int units = 0, slices_w = 1, slices_h = 1;  // warps: units / group x slices_w x slices_h x segments
  int group = 1;                      // units a warp walks at once (3: a 3-tap filter row's every row of taps)
  int segments = 1, seg_w = 0;        // a row's w in segments of seg_w (a multiple of slide_w), a warp each
  int taps = 4;                       // the kernel's taps per warp (3, 4, 7 or 8)
  int gather = 0;                     // 1: each warp walks every unit (staged_limits::gather)
  int stages = staged_stages;         // TMA stages (staged_limits::stages)
  int x_elems = 0, y_elems = 0;       // per stage
  int y_at = 0, stage_bytes = 0;      // dy's byte offset in a stage (128-aligned); a stage's bytes (1024-aligned)
  staged_unit unit[staged_max_units] = {};
  TG_HD int walkers() const { return gather ? 1 : units / group; }  // warps per (w residue, row slice, segment)
  TG_HD int slices() const { return slices_w * slices_h * segments; }  // warps per walker
  TG_HD int warps() const { return walkers() * slices(); }
};

struct staged_plan {
  bool ok = false;
  std::string why;
  staged_geometry geo;
  arch::tma_box x, y;  // tensors and boxes (x: B's tensor, y: A's)
};

// Tile t's first digit values (w fastest). Loops over the most digits with constant indices, so that
// a kernel keeps the arrays in registers (no stack frame).
TG_HD inline void staged_tile_start(const staged_geometry& g, index_t t, index_t (&start)[boxes::max_digits]) {
  TG_UNROLL for (int d = boxes::max_digits - 1; d >= 0; --d) {
    start[d] = 0;
    if (d >= g.k_digits) continue;
    start[d] = t % g.tiles_of[d] * g.ext[d];
    t /= g.tiles_of[d];
  }
}
// Tile t's real extents along w and h (the last tiles of a digit may be shorter), without a stack.
TG_HD inline void staged_tile_extents(const staged_geometry& g, index_t t, int& tw, int& th) {
  const int w = g.k_digits - 1, h = g.k_digits - 2;
  const index_t w0 = t % g.tiles_of[w] * g.ext[w];
  tw = static_cast<int>(g.len[w] - w0 < g.ext[w] ? g.len[w] - w0 : g.ext[w]);
  th = 1;
  if (h >= 0) {
    const index_t h0 = t / g.tiles_of[w] % g.tiles_of[h] * g.ext[h];
    th = static_cast<int>(g.len[h] - h0 < g.ext[h] ? g.len[h] - h0 : g.ext[h]);
  }
}
// A box's corner for a tile starting at `start` (axis 0: the block's first channel).
TG_HD inline void staged_corner(const staged_geometry& g, bool x, const index_t (&start)[boxes::max_digits], index_t c0,
                                int (&corner)[arch::tma_box::max_rank]) {
  TG_UNROLL for (int a = 0; a < arch::tma_box::max_rank; ++a) {
    corner[a] = (x ? g.x_base[a] : g.y_base[a]) + (a == 0 ? static_cast<int>(c0) : 0);
    TG_UNROLL for (int d = 0; d < boxes::max_digits; ++d)
      if ((x ? g.x_axis[d] : g.y_axis[d]) == a && d < g.k_digits) corner[a] += static_cast<int>(start[d]) * (x ? g.x_coef[d] : g.y_coef[d]);
  }
}

namespace detail {
inline int ceil_balance(index_t len, int most) {  // the even extent for tiles of at most `most`
  const index_t n = (len + most - 1) / most;
  return static_cast<int>((len + n - 1) / n);
}
inline index_t product_of(const int* e, int rank) {
  index_t p = 1;
  for (int a = 0; a < rank; ++a) p *= e[a];
  return p;
}
}  // namespace detail

// The plan from A's and B's digits and axes (boxes.hpp); elem_bytes: 2 (the TMA path is 16-bit).
inline staged_plan plan_staged_sliding(const boxes::view_digits& dA, const boxes::view_axes& aA, const boxes::view_digits& dB,
                                       const boxes::view_axes& aB, int elem_bytes, staged_limits lim = {}) {
  staged_plan r;
  staged_geometry& g = r.geo;
  auto fail = [&](std::string w) {
    r.ok = false;
    r.why = std::move(w);
    return r;
  };
  if (elem_bytes != 2) return fail("element type: 16-bit only");
  if (lim.stages < staged_stages || lim.stages > staged_most_stages || (!lim.gather && lim.stages != staged_stages))
    return fail("stages: the sliding kernel's ring has " + std::to_string(staged_stages) + ", the gather's 2 to " + std::to_string(staged_most_stages));
  if (!aA.ok) return fail("dy is not a TMA tensor: " + aA.why);
  if (!aB.ok) return fail("x is not a TMA tensor: " + aB.why);
  for (int p = 0; p < dA.count[1]; ++p)
    if (dA.length[1][p] > 1) return fail("more than one row per group");
  // The groups: axis 0 of both tensors, one element apart.
  auto groups_on_axis0 = [](const boxes::view_digits& d, const boxes::view_axes& ax) {
    int moving = 0;
    for (int p = 0; p < d.count[0]; ++p) {
      if (d.length[0][p] <= 1) continue;
      if (ax.axis[0][p] != 0 || ax.coef[0][p] != 1 || ++moving > 1) return false;
    }
    for (int dim = 1; dim < 3; ++dim)
      for (int p = 0; p < d.count[dim]; ++p)
        if (d.length[dim][p] > 1 && ax.axis[dim][p] == 0) return false;
    return moving == 1;
  };
  if (!groups_on_axis0(dA, aA) || !groups_on_axis0(dB, aB)) return fail("groups not the contiguous axis of dy and x");
  const int K = dA.count[2];
  if (K != dB.count[2] || K < 1 || K > boxes::max_digits) return fail("dy's and x's reductions have different digits");
  for (int d = 0; d < K; ++d)
    if (dA.length[2][d] != dB.length[2][d]) return fail("dy's and x's reductions have different digits");
  for (int a = 1; a < aB.tensor.rank; ++a)
    if (aB.tensor.stride[a] * elem_bytes % 16 != 0) return fail("x's strides are not multiples of 16 bytes");
  for (int a = 1; a < aA.tensor.rank; ++a)
    if (aA.tensor.stride[a] * elem_bytes % 16 != 0) return fail("dy's strides are not multiples of 16 bytes");
  g.k_digits = K;
  const int w = K - 1, h = K - 2;  // h < 0: no rows digit (tiles of one row)
  for (int d = 0; d < K; ++d) {
    g.len[d] = dA.length[2][d];
    const bool moves = g.len[d] > 1;
    g.x_axis[d] = moves ? aB.axis[2][d] : -1, g.x_coef[d] = moves ? aB.coef[2][d] : 0;
    g.y_axis[d] = moves ? aA.axis[2][d] : -1, g.y_coef[d] = moves ? aA.coef[2][d] : 0;
    if (moves && (g.x_axis[d] < 0 || g.y_axis[d] < 0 || g.x_coef[d] <= 0 || g.y_coef[d] <= 0)) return fail("a reduction digit that does not walk dy and x forward");
  }
  // Taps: the digits longer than one (C's column is their mixed radix: digits of one value add
  // nothing); the last slides along w's axis of x, every other moves an axis of x forward.
  int taps = 0;
  index_t tap_len[boxes::max_digits + 1] = {};
  int tap_axis[boxes::max_digits + 1] = {}, tap_coef[boxes::max_digits + 1] = {};
  for (int p = 0; p < dB.count[1]; ++p) {
    if (dB.length[1][p] <= 1) continue;
    tap_len[taps] = dB.length[1][p], tap_axis[taps] = aB.axis[1][p], tap_coef[taps] = aB.coef[1][p];
    if (tap_axis[taps] <= 0 || tap_coef[taps] <= 0) return fail("a filter tap that does not walk x forward");
    ++taps;
  }
  // The sliding digit: the last, unless the filter is one tap wide along w (then a digit of one value
  // after the others: nothing slides, every tap is its own unit).
  if (taps == 0 || (g.len[w] > 1 && tap_axis[taps - 1] != g.x_axis[w])) tap_len[taps] = 1, tap_axis[taps] = -1, tap_coef[taps] = 0, ++taps;
  const int s = taps - 1;
  const index_t S = tap_len[s];
  int slide_w = 1, spacing = 1;
  if (S > 1) {
    if (g.len[w] > 1) {  // slide_w * stride = spacing * dilation, the least such
      int a = g.x_coef[w], b = tap_coef[s];
      while (b != 0) {
        const int t = a % b;
        a = b, b = t;
      }
      slide_w = tap_coef[s] / a, spacing = g.x_coef[w] / a;
    } else {
      spacing = static_cast<int>(S);  // one output per row: nothing slides, every tap its own class
    }
  }
  g.slide_w = slide_w, g.spacing = spacing;
  // Units: the classes of the last tap digit (residues mod spacing) in chunks of `taps`, at every value
  // of the other tap digits.
  index_t others = 1;
  for (int p = 0; p < s; ++p) others *= tap_len[p];
  int longest = 0;
  for (int c = 0; c < spacing && c < S; ++c) longest = static_cast<int>((S - c + spacing - 1) / spacing) > longest ? static_cast<int>((S - c + spacing - 1) / spacing) : longest;
  // Taps per warp: the longest class, so that no ring slot is idle where it is 3 (a 3-wide filter row,
  // or 5 taps at stride 2) or 7 (a 7-wide row).
  g.taps = longest <= 4 ? (longest <= 3 && lim.tight ? 3 : 4) : longest <= 7 && lim.tight ? 7 : 8;
  index_t chunks = 0;
  for (int c = 0; c < spacing && c < S; ++c) chunks += ((S - c + spacing - 1) / spacing + g.taps - 1) / g.taps;
  // Three rows of 3 taps in one warp where every value of the other tap digits is one unit (3x3,
  // 3x3x3): a step's dy pair then serves 9 taps (performance.md section 30).
  g.group = !lim.gather && g.taps == 3 && chunks == 1 && others % 3 == 0 ? 3 : 1;
  g.gather = lim.gather ? 1 : 0;
  const index_t walkers = (lim.gather ? 1 : others * chunks / g.group) * slide_w;
  if (others * chunks > staged_max_units || walkers > lim.warps())
    return fail("filter too large: " + std::to_string(walkers) + " warps of taps (at most " + std::to_string(lim.warps()) + ")");
  g.units = static_cast<int>(others * chunks), g.slices_w = slide_w;
  // TMA coordinates are 32-bit: every corner and every coordinate a box reaches must be one.
  auto reach = [&](bool x, int axis) {
    index_t hi = x ? aB.base[axis] : aA.base[axis];
    for (int d = 0; d < K; ++d)
      if ((x ? g.x_axis[d] : g.y_axis[d]) == axis) hi += (g.len[d] - 1) * (x ? g.x_coef[d] : g.y_coef[d]);
    if (x)
      for (int p = 0; p < taps; ++p)
        if (tap_axis[p] == axis) hi += (tap_len[p] - 1) * tap_coef[p];
    return hi + staged_channels;
  };
  for (int a = 0; a < aB.tensor.rank; ++a)
    if (aB.tensor.length[a] > INT_MAX || reach(true, a) > INT_MAX) return fail("x too long for 32-bit TMA coordinates");
  for (int a = 0; a < aA.tensor.rank; ++a)
    if (aA.tensor.length[a] > INT_MAX || reach(false, a) > INT_MAX) return fail("dy too long for 32-bit TMA coordinates");
  // Tile extents: w as long as a box allows, h the most rows whose stages fit.
  auto box_extent = [&](bool x, int axis, const int* ext) {
    index_t e = 1;
    for (int d = 0; d < K; ++d)
      if ((x ? g.x_axis[d] : g.y_axis[d]) == axis) e += static_cast<index_t>(ext[d] - 1) * (x ? g.x_coef[d] : g.y_coef[d]);
    if (x)
      for (int p = 0; p < taps; ++p)
        if (tap_axis[p] == axis) e += (tap_len[p] - 1) * tap_coef[p];
    return e;
  };
  const index_t tap_span = S > 1 ? (S - 1) * tap_coef[s] : 0;
  if (tap_span >= staged_max_box) return fail("filter row wider than a TMA box");
  index_t most_w = (staged_max_box - 1 - tap_span) / (g.len[w] > 1 ? g.x_coef[w] : 1) + 1;
  most_w = most_w < staged_max_box ? most_w : staged_max_box;
  int tw = detail::ceil_balance(g.len[w], static_cast<int>(most_w < g.len[w] ? most_w : g.len[w]));
  const index_t len_h = h >= 0 ? g.len[h] : 1;
  // The most rows (up to most_rows) whose stages fit for tiles tw wide, 0 if none; xe: A's (x's) box
  // elements per channel for them.
  auto rows_fitting = [&](int w_ext, int most_rows, index_t& x_per_channel) {
    for (int want = static_cast<int>(len_h < most_rows ? len_h : most_rows); want >= 1; --want) {
      for (int d = 0; d < K; ++d) g.ext[d] = 1;
      g.ext[w] = w_ext;
      const int eh = h >= 0 ? detail::ceil_balance(len_h, want) : 1;
      if (h >= 0) g.ext[h] = eh;
      index_t xe = staged_channels, ye = staged_channels;
      bool fits = true;
      for (int a = 1; a < aB.tensor.rank; ++a) {
        const index_t e = box_extent(true, a, g.ext);
        fits = fits && e <= staged_max_box;
        xe *= e;
      }
      for (int a = 1; a < aA.tensor.rank; ++a) {
        const index_t e = box_extent(false, a, g.ext);
        fits = fits && e <= staged_max_box;
        ye *= e;
      }
      const index_t y_at = (xe * elem_bytes + 127) / 128 * 128;
      const index_t stage = (y_at + (lim.gather ? 0 : ye * elem_bytes) + 1023) / 1024 * 1024;  // the gather stages no C
      if (fits && stage * lim.stages <= static_cast<index_t>(lim.smem())) return x_per_channel = xe / staged_channels, eh;
    }
    return 0;
  };
  int th = 0;
  index_t x_box = 0;
  for (int tries = 0; tries < 16 && th == 0; ++tries) {
    th = rows_fitting(tw, 8, x_box);
    if (th == 0) {
      if (tw <= 8) return fail("a tile of one row does not fit shared memory");
      tw = detail::ceil_balance(g.len[w], (tw + 1) / 2);
    }
  }
  if (lim.gather && th > 0) {
    // The gather's tile: the most outputs per element of x's box (a tile's halo is read again by its
    // neighbours), over rows up to 16 and w halved while it stays at least 8 (a 5x5 stride-2 row of
    // 28 outputs reads 5 rows of x for one row of outputs: 14 x 4 reads 11 for 4).
    double best = static_cast<double>(tw) * th / static_cast<double>(x_box);
    int best_w = tw, best_h = th;
    for (int cand = tw;;) {
      index_t xb = 0;
      const int r = rows_fitting(cand, 16, xb);
      if (r > 0 && static_cast<double>(cand) * r / static_cast<double>(xb) > 1.02 * best)
        best = static_cast<double>(cand) * r / static_cast<double>(xb), best_w = cand, best_h = r;
      if (cand <= 8) break;
      cand = detail::ceil_balance(g.len[w], (cand + 1) / 2);
    }
    tw = best_w;
    th = rows_fitting(tw, best_h, x_box);  // sets g.ext
  }
  if (th == 0) return fail("a tile of one row does not fit shared memory");
  g.tiles = 1;
  for (int d = 0; d < K; ++d) {
    g.tiles_of[d] = (g.len[d] + g.ext[d] - 1) / g.ext[d];
    g.tiles *= g.tiles_of[d];
  }
  // Slices of a tile's rows: as many rows at once as the warps allow, in the fewest warps that take
  // that many (a slice with one row more than the others would keep the block waiting at its barrier).
  const int most = lim.warps() / (g.walkers() * g.slices_w);
  g.slices_h = 1;
  for (int sl = 2; sl <= most && sl <= th; ++sl)
    if ((th + sl - 1) / sl < (th + g.slices_h - 1) / g.slices_h) g.slices_h = sl;
  // Segments of w for the warps left (each at least 8 slides long: a segment warms its ring up again).
  const int room = most / g.slices_h, longest_split = tw / (8 * g.slide_w);
  g.segments = !lim.segments ? 1 : room < longest_split ? room : longest_split;
  g.segments = g.segments > 1 ? g.segments : 1;
  const int per_seg = (tw + g.segments - 1) / g.segments;
  g.seg_w = (per_seg + g.slide_w - 1) / g.slide_w * g.slide_w;
  g.segments = (tw + g.seg_w - 1) / g.seg_w;
  if (lim.gather) {  // the gather's warps take (row, w residue, group of outputs) items in turn instead (staged_gather_item)
    const int groups = ((tw + g.slide_w - 1) / g.slide_w + staged_gather_outputs - 1) / staged_gather_outputs, items = th * g.slide_w * groups;
    g.slices_w = 1, g.segments = 1, g.seg_w = tw, g.slices_h = items < lim.warps() ? items : lim.warps();
  }
  // The boxes: tensors from the axes, extents from the tile, corners from the digits.
  r.x = aB.tensor, r.y = aA.tensor;
  g.x_rank = r.x.rank, g.y_rank = r.y.rank;
  for (int a = 0; a < arch::tma_box::max_rank; ++a) {
    g.x_base[a] = a < r.x.rank ? aB.base[a] : 0;
    g.y_base[a] = a < r.y.rank ? aA.base[a] : 0;
  }
  int xp[arch::tma_box::max_rank] = {}, yp[arch::tma_box::max_rank] = {};
  for (int a = 0; a < r.x.rank; ++a) {
    r.x.box[a] = a == 0 ? staged_channels : static_cast<int>(box_extent(true, a, g.ext)), r.x.elem_stride[a] = 1;
    g.x_box[a] = r.x.box[a];
    xp[a] = a == 0 ? 1 : xp[a - 1] * r.x.box[a - 1];
  }
  for (int a = 0; a < r.y.rank; ++a) {
    r.y.box[a] = a == 0 ? staged_channels : static_cast<int>(box_extent(false, a, g.ext)), r.y.elem_stride[a] = 1;
    g.y_box[a] = r.y.box[a];
    yp[a] = a == 0 ? 1 : yp[a - 1] * r.y.box[a - 1];
  }
  g.x_elems = static_cast<int>(detail::product_of(r.x.box, r.x.rank));
  g.y_elems = static_cast<int>(detail::product_of(r.y.box, r.y.rank));
  g.stages = lim.stages;
  g.y_at = (g.x_elems * elem_bytes + 127) / 128 * 128;
  g.stage_bytes = (g.y_at + (lim.gather ? 0 : g.y_elems * elem_bytes) + 1023) / 1024 * 1024;
  auto pitch = [](const int* p, int axis, int coef) { return axis >= 0 ? p[axis] * coef : 0; };
  g.x_pitch_w = pitch(xp, g.x_axis[w], g.x_coef[w]), g.y_pitch_w = pitch(yp, g.y_axis[w], g.y_coef[w]);
  g.x_pitch_h = h >= 0 ? pitch(xp, g.x_axis[h], g.x_coef[h]) : 0;
  g.y_pitch_h = h >= 0 ? pitch(yp, g.y_axis[h], g.y_coef[h]) : 0;
  g.x_tap = pitch(xp, tap_axis[s], tap_coef[s]);
  // The units: C's column of a tap is the taps' digits in mixed radix (slowest first).
  int u = 0;
  for (index_t o = 0; o < others; ++o) {
    int x_off = 0;
    index_t rest = o, n_other = 0, radix = S;
    for (int p = s - 1; p >= 0; --p) {
      const index_t v = rest % tap_len[p];
      rest /= tap_len[p];
      x_off += static_cast<int>(v) * pitch(xp, tap_axis[p], tap_coef[p]);
      n_other += v * radix;
      radix *= tap_len[p];
    }
    for (int c = 0; c < spacing && c < S; ++c)
      for (index_t i = 0; c + i * spacing < S; i += g.taps) {
        staged_unit& un = g.unit[u++];
        un.x_off = x_off;
        un.first = static_cast<int>(c + i * spacing);
        const index_t left = (S - un.first + spacing - 1) / spacing;
        un.count = static_cast<int>(left < g.taps ? left : g.taps);
        un.n0 = static_cast<int>(n_other + un.first);
      }
  }
  r.ok = true;
  return r;
}

// A tile's products per element staged (per channel): its outputs x the filter's taps over the
// elements of its two boxes. Two blocks per multiprocessor take half the shared memory each, so
// shorter tiles whose x boxes are more halo than rows where the filter is small.
inline double staged_intensity(const staged_geometry& g) {
  const int w = g.k_digits - 1, h = g.k_digits - 2;
  double taps = 0;
  for (int u = 0; u < g.units; ++u) taps += g.unit[u].count;
  const double outputs = static_cast<double>(g.ext[w]) * (h >= 0 ? g.ext[h] : 1);
  return outputs * taps / (static_cast<double>(g.x_elems + g.y_elems) / staged_channels);
}
// One block per multiprocessor instead of two where two leave the tiles staging-bound: fewer than 6
// products per staged element, and one block's taller tiles 1.2x more (H200, performance.md section
// 30: MobileNetV2's 3x3 C144 rows, 2.9 -> 3.8, 1.16x faster with one block; ConvNeXt's 7x7, 10.6, and
// the 7x7 images, whose tiles are whole either way, faster with two).
inline bool staged_one_block_better(const staged_plan& two, const staged_plan& one) {
  if (!two.ok) return one.ok;
  if (!one.ok) return false;
  const double i2 = staged_intensity(two.geo), i1 = staged_intensity(one.geo);
  return i2 < 6.0 && i1 >= 1.2 * i2;
}

// The plan of a single GEMM's views (elem_bytes: the element size the kernel would read), or why not.
template <class V>
staged_plan staged_plan_of(const V& v, int elem_bytes, staged_limits lim = {}) {
  if (v.m() != 1) {
    staged_plan r;
    r.why = "more than one row per group";
    return r;
  }
  const boxes::view_digits dA = boxes::digits_of(v.a), dB = boxes::digits_of(v.b);
  return plan_staged_sliding(dA, boxes::axes_of(dA), dB, boxes::axes_of(dB), elem_bytes, lim);
}
}  // namespace tg
