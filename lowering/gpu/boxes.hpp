// From descriptors to boxes: whether a GEMM operand's tiles can be fetched by the Tensor Memory
// Accelerator as boxes of one tensor, and if so which tensor and which box, worked out from the view
// alone (no code per op).
//
// An affine-split view (split_view.hpp) [G, rows, K] has a separable top stage of merges whose digits
// are the level-1 components, and affine stages below: an element's offset and the coordinates its
// pads test are affine in the digits. Probing each digit gives its offset step and guard steps. Each
// guarded coordinate becomes a tensor axis (length: the pad's box, so a box reaching past it reads
// zeros, which is how padding is read), and each unguarded digit an axis of its own; the axis with
// stride 1 is axis 0. A tile of a GEMM dimension is then a box over that dimension's digits (pow2
// extents whose product is the tile size), and a box's corner moves affinely with the digits' corners:
// for channels-last im2col and col2im a k-tile is a block of channels at one filter tap, a block of
// rows a box of output positions, each one TMA box. Host-tested over whole random domains
// (tests/lowering/gpu/boxes_test.cpp): every element a box brings equals the view's, zero where the
// view says padding. Views that cannot be boxes keep the cp.async pipeline (gemm.hpp).
#pragma once
#include <string>
#include "arch/tma_box.hpp"
#include "lowering/gpu/split_view.hpp"

namespace tg::boxes {
constexpr int max_digits = 4;  // digits of one top dimension (a 3-d convolution's (N, d, h, w))
constexpr int max_guards = 8;
constexpr int max_rank = arch::tma_box::max_rank;
// A box's axis-0 extent is one 128-byte swizzled row (wgmma's canonical layout): row_elems(2) = 64
// elements of 16 bits, row_elems(4) = 32 of fp32 read as tf32. The plans take it as a parameter, bk (a
// k-tile's depth); swizzle_elems names the 16-bit value for the paths that only 16-bit operands take
// (MN-major tiles: tf32 wgmma reads K-major tiles only).
constexpr int swizzle_bytes = 128;
constexpr int row_elems(int elem_bytes) { return swizzle_bytes / elem_bytes; }
constexpr int swizzle_elems = row_elems(2);

// A view's level-1 components, grouped by the top dimension (0: group, 1: rows, 2: k) whose merge
// makes them, slowest first, with what one unit of each moves.
struct view_digits {
  int count[3] = {};
  index_t length[3][max_digits] = {};
  index_t off[3][max_digits] = {};             // elements
  index_t guard[3][max_digits][max_guards] = {};
  int n_guards = 0;
  index_t off0 = 0, guard0[max_guards] = {};   // at all digits 0
  index_t first[max_guards] = {}, span[max_guards] = {};  // guard i holds iff first <= coordinate < first + span
};

template <class View>
view_digits digits_of(const View& v) {
  using S = split_view<View>;
  using A = affine_split<View>;
  static_assert(A::on, "digits_of: an affine-split view");
  static_assert(A::n_guards <= max_guards, "digits_of: too many guards");
  view_digits d;
  d.n_guards = A::n_guards;
  const auto len1 = get<1>(v.desc.chain.stages).upper_lengths();  // level-1 lengths
  const auto e0 = detail::entry_at(v, typename S::parts{});
  d.off0 = e0.off;
  for (int i = 0; i < A::n_guards; ++i) d.guard0[i] = e0.guard[i];
  index_t first[max_guards > 0 ? max_guards : 1] = {}, span[max_guards > 0 ? max_guards : 1] = {};
  if constexpr (A::n_guards > 0) v.desc.chain.template guard_boxes<1>(first, span);
  for (int i = 0; i < A::n_guards; ++i) d.first[i] = first[i], d.span[i] = span[i];
  for (int dim = 0; dim < 3; ++dim) {
    const auto ids = S::top_t::lowers_of(dim);
    d.count[dim] = ids.count;
    for (int p = 0; p < ids.count && p < max_digits; ++p) {
      typename S::parts unit{};
      unit[ids.id[p]] = 1;
      const auto e = detail::entry_at(v, unit);
      d.length[dim][p] = len1[ids.id[p]];
      d.off[dim][p] = e.off - e0.off;
      for (int i = 0; i < A::n_guards; ++i) d.guard[dim][p][i] = e.guard[i] - e0.guard[i];
    }
  }
  return d;
}

// The tensor a view's elements lie in, as TMA axes, and where each digit moves along them.
struct view_axes {
  bool ok = false;
  bool all_padding = false;                // no element is valid: the operand reads as zeros
  std::string why;
  arch::tma_box tensor;                    // rank, base, lengths, strides (box fields unset)
  int axis[3][max_digits] = {};            // the axis a digit moves along, -1 where it moves nothing
  int coef[3][max_digits] = {};            // coordinate step per unit of the digit
  bool exact[3][max_digits] = {};          // its own axis (unguarded): past its length reads zero
  int base[max_rank] = {};                 // coordinates at all digits 0
};

inline view_axes axes_of(const view_digits& d) {
  view_axes r;
  auto fail = [&](std::string w) { r.ok = false; r.why = std::move(w); return r; };
  for (int dim = 0; dim < 3; ++dim) {
    if (d.count[dim] > max_digits) return fail("more than " + std::to_string(max_digits) + " digits in one dimension");
    for (int p = 0; p < d.count[dim]; ++p) r.axis[dim][p] = -1;
  }
  index_t stride[2 * max_rank + max_guards] = {}, length[2 * max_rank + max_guards] = {};
  int base[2 * max_rank + max_guards] = {};
  int n = 0;
  auto add_axis = [&](index_t s, index_t len, int b) {
    stride[n] = s, length[n] = len, base[n] = b;
    return n++;
  };
  for (int i = 0; i < d.n_guards; ++i) {  // a guarded coordinate: one axis, whatever digits move it
    int a = -1;
    for (int dim = 0; dim < 3; ++dim)
      for (int p = 0; p < d.count[dim]; ++p) {
        const index_t g = d.guard[dim][p][i];
        if (g == 0 || d.length[dim][p] <= 1) continue;
        for (int j = 0; j < d.n_guards; ++j)
          if (j != i && d.guard[dim][p][j] != 0) return fail("a digit moves two guarded coordinates");
        if (d.off[dim][p] % g != 0 || d.off[dim][p] / g <= 0) return fail("a guarded coordinate steps backwards or off the element grid");
        const index_t s = d.off[dim][p] / g;  // a digit may step the coordinate backwards (col2im's taps): s stays positive
        if (a < 0) a = add_axis(s, d.span[i], static_cast<int>(d.guard0[i] - d.first[i]));
        if (stride[a] != s) return fail("digits of one guarded coordinate disagree on its stride");
        r.axis[dim][p] = a, r.coef[dim][p] = static_cast<int>(g);
      }
    if (a < 0 && (d.guard0[i] < d.first[i] || d.guard0[i] >= d.first[i] + d.span[i])) {
      r.all_padding = true;
      return fail("the whole view is padding");
    }
  }
  for (int dim = 0; dim < 3; ++dim)
    for (int p = 0; p < d.count[dim]; ++p) {
      if (r.axis[dim][p] >= 0 || d.length[dim][p] <= 1) continue;
      bool guarded = false;
      for (int i = 0; i < d.n_guards; ++i) guarded = guarded || d.guard[dim][p][i] != 0;
      if (guarded) continue;  // (only length-1 digits reach here guarded)
      if (d.off[dim][p] <= 0) return fail("a digit that does not move forward through memory");
      r.axis[dim][p] = add_axis(d.off[dim][p], d.length[dim][p], 0), r.coef[dim][p] = 1, r.exact[dim][p] = true;
    }
  if (n > max_rank) return fail("the view needs " + std::to_string(n) + " tensor axes (TMA takes 5)");
  if (n == 0) return fail("a view of one element");
  int order[2 * max_rank + max_guards], where[2 * max_rank + max_guards];
  for (int a = 0; a < n; ++a) order[a] = a;
  for (int a = 1; a < n; ++a)  // stable sort by stride: axis 0 the contiguous one
    for (int b = a; b > 0 && stride[order[b]] < stride[order[b - 1]]; --b) std::swap(order[b], order[b - 1]);
  if (stride[order[0]] != 1) return fail("no axis is contiguous in memory");
  r.tensor.rank = n;
  index_t base_off = d.off0;
  for (int a = 0; a < n; ++a) {
    where[order[a]] = a;
    r.tensor.length[a] = length[order[a]], r.tensor.stride[a] = stride[order[a]], r.base[a] = base[order[a]];
    base_off -= static_cast<index_t>(base[order[a]]) * stride[order[a]];
    if (length[order[a]] > (index_t{1} << 32)) return fail("an axis longer than 2^32");
  }
  r.tensor.base = base_off;
  for (int dim = 0; dim < 3; ++dim)
    for (int p = 0; p < d.count[dim]; ++p)
      if (r.axis[dim][p] >= 0) r.axis[dim][p] = where[r.axis[dim][p]];
  r.ok = true;
  return r;
}

// The extents of a tile over one GEMM dimension's digits (pow2, product = the tile's size).
struct extents {
  int e[max_digits] = {1, 1, 1, 1};
};

// The digit that moves the contiguous axis one element at a time, which makes a tile's 128-byte side:
// its top dimension (1 rows: MN-major, 2 k: K-major; -1: none) and position. Where more than one does
// (a channels-first im2col's filter column and output column both step along w), the first, a row
// digit, for 16-bit rows (bk = swizzle_elems); for 32-bit ones (tf32 wgmma reads K-major tiles only)
// the k digit. One rule for the plan's orientation (class_plan.hpp, the launch's) and the boxes
// (regression: seed 1439814613, a halo plan whose B boxes took the k digit while the plan read B as
// MN-major).
inline int contiguous_digit(const view_axes& ax, const view_digits& d, int& pos, int bk = swizzle_elems) {
  const int first = bk == swizzle_elems ? 1 : 2;
  for (int dim = first, n = 0; n < 2; ++n, dim = 3 - dim)
    for (int p = 0; p < d.count[dim]; ++p)
      if (ax.axis[dim][p] == 0 && ax.coef[dim][p] == 1) return pos = p, dim;
  return pos = -1, -1;
}

// One operand's boxes for tiles of given extents: the TMA box, the orientation of the shared tile
// (K-major: [rows][bk k]; MN-major: [k][bk rows] per box), and the smem order of the other side's
// spanned digits (fastest first), which both operands sharing that dimension must agree on.
// An MN-major tile of more than one row of boxes (bk rows each) is several boxes: the next bk of the
// contiguous digit, or, where that digit is shorter than the tile (a filter tap's 64 channels), `along`
// boxes of it at each of the next values of one other row digit (the boxes of one tap, then the next
// tap's), so that a 128- or 256-row tile is not mostly padding (fp32's 32-element boxes: a 256-row
// tile of 64-channel taps is 4 taps x 2 boxes, where one box per tap would cover 8 taps of 32).
struct operand_boxes {
  bool ok = false;
  std::string why;
  arch::tma_box box;
  bool mn_major = false;
  int boxes = 1;                          // boxes per stage (MN-major), box i at its corner_of_box
  int along = 1;                          // boxes along the contiguous digit at each step (step_digit >= 0; a power of two)
  int box_step[max_rank] = {};            // coordinates from one step to the next (along = 1: one box to the next)
  int step_digit = -1;                    // the row digit boxes step along (-1: the contiguous one)
  int stack_shift = 0;                    // > 0: the boxes stacked as one (stacked_boxes.hpp), log2 of bk
  int stacked = 1;                        // boxes per load: 1, or the stacked boxes (stacked_boxes.hpp)
  int step[3][max_digits][max_rank] = {};  // coordinate step per unit digit, per axis
  int base[max_rank] = {};
  int n_order = 0, order[max_digits] = {};  // spanned digits of the non-contiguous side, smem-fastest first
};

// The start of every operand's box: the view's tensor (rank, origin, lengths, strides), one 128-byte
// row of the contiguous axis (bk elements) and one element of each other axis, traversed one by one,
// its corner at the view's coordinates of all digits 0. boxes_of and the halos widen it.
inline void start_box(const view_axes& ax, operand_boxes& o, int bk) {
  o.box.rank = ax.tensor.rank;
  o.box.base = ax.tensor.base;
  for (int a = 0; a < o.box.rank; ++a) {
    o.box.length[a] = ax.tensor.length[a], o.box.stride[a] = ax.tensor.stride[a];
    o.box.box[a] = 1, o.box.elem_stride[a] = 1;
    o.base[a] = ax.base[a];
  }
  o.box.box[0] = bk;
}

// Whether every corner a box of tiles with these extents can take lies on a 16-byte boundary of the
// tensor's contiguous axis (axis 0; bk elements are 128 bytes): the TMA faults on one that does not
// (cudaErrorIllegalInstruction: a channels-first filter column shifting w by one fp32 element, found
// on an H200 in session 36). A tile's corner is a multiple of its extent on each digit, with any group,
// so all of them are aligned iff the base, the group step, each digit's step times its extent and the
// step from box to box are. The halos (halo_plan.hpp, k_halo_plan.hpp) ask it too.
// corners_on: the same for any multiple `align` of elements (stack_boxes asks for whole 128-byte rows).
inline bool corners_on(const operand_boxes& o, const view_digits& d, const extents& ext_rows, const extents& ext_k, long long align) {
  auto on = [&](long long v) { return v % align == 0; };
  bool ok = on(o.base[0]) && on(o.box_step[0]);
  for (int p = 0; p < d.count[0]; ++p) ok = ok && on(o.step[0][p][0]);
  for (int p = 0; p < d.count[1]; ++p) ok = ok && on(static_cast<long long>(o.step[1][p][0]) * ext_rows.e[p]);
  for (int p = 0; p < d.count[2]; ++p) ok = ok && on(static_cast<long long>(o.step[2][p][0]) * ext_k.e[p]);
  return ok;
}
inline bool corners_aligned(const operand_boxes& o, const view_digits& d, const extents& ext_rows, const extents& ext_k, int bk) {
  return corners_on(o, d, ext_rows, ext_k, bk / (swizzle_bytes / 16));  // elements in 16 bytes
}
constexpr const char* unaligned_corner = "a box corner off a 16-byte boundary of the contiguous axis (the TMA faults)";

// ext_rows / ext_k: extents over the operand's row (top dimension 1) and k (2) digits; rows: the
// operand's tile rows (BM or BN); k tiles are bk deep (one 128-byte row: row_elems).
inline operand_boxes boxes_of(const view_axes& ax, const view_digits& d, const extents& ext_rows, const extents& ext_k, int rows, int bk) {
  operand_boxes r;
  auto fail = [&](std::string w) { r.ok = false; r.why = std::move(w); return r; };
  if (!ax.ok) return fail(ax.why);
  const extents* ext[3] = {nullptr, &ext_rows, &ext_k};
  int inner_p;
  const int inner_dim = contiguous_digit(ax, d, inner_p, bk);
  if (inner_dim < 0) return fail("the contiguous axis is not a row or k digit");
  r.mn_major = inner_dim == 1;
  r.boxes = r.mn_major ? rows / bk : 1;
  const int inner_e = ext[inner_dim]->e[inner_p];
  if (r.boxes > 1 && inner_e < bk * r.boxes) {  // `along` boxes at each value of another row digit
    if (inner_e % bk != 0) return fail("the tile does not span whole 128-byte rows of the contiguous digit");
    r.along = inner_e / bk;
    for (int p = 0; p < d.count[1]; ++p)
      if (p != inner_p && ext_rows.e[p] > 1) {
        if (r.step_digit >= 0 || ext_rows.e[p] * r.along != r.boxes) return fail("the boxes of a tile step along more than one digit");
        if (ax.axis[1][p] < 0) return fail("the boxes of a tile step along a digit that moves nothing");
        r.step_digit = p;
      }
    if (r.step_digit < 0) return fail("the tile does not span 128 bytes of the contiguous digit");
  } else if (inner_e != bk * r.boxes) {
    return fail("the tile does not span 128 bytes of the contiguous digit");
  }
  start_box(ax, r, bk);
  bool used[max_rank] = {true};
  for (int dim = 0; dim < 3; ++dim)
    for (int p = 0; p < d.count[dim]; ++p) {
      const int a = ax.axis[dim][p];
      if (a >= 0) r.step[dim][p][a] = ax.coef[dim][p];
      const int e = dim == 0 ? 1 : ext[dim]->e[p];
      if (dim == inner_dim && p == inner_p) continue;
      if (dim == 1 && p == r.step_digit) continue;  // moves the boxes, not within one
      if (e == 1) continue;
      if (dim == inner_dim) return fail("the contiguous side of a tile spans more than one digit");
      if (a < 0) return fail("a tile spans a digit that moves nothing");
      if (used[a]) return fail("two spanned digits move along one axis");
      const int c = ax.coef[dim][p];
      if (c < 1 || c > 8 || e * c > 256) return fail("a box step over 8 or a box over 256 elements");
      used[a] = true;
      r.box.box[a] = e * c, r.box.elem_stride[a] = c;
    }
  if (r.step_digit >= 0) r.box_step[ax.axis[1][r.step_digit]] = ax.coef[1][r.step_digit];
  else r.box_step[0] = bk;
  const int other = 3 - inner_dim;
  for (int a = 1; a < r.box.rank; ++a)  // smem order: axes ascending
    for (int p = 0; p < d.count[other]; ++p)
      if (ext[other]->e[p] > 1 && ax.axis[other][p] == a) r.order[r.n_order++] = p;
  if (!corners_aligned(r, d, ext_rows, ext_k, bk)) return fail(unaligned_corner);
  r.ok = true;
  return r;
}

TG_HD constexpr int ceil_log2(int x) {
  int l = 0;
  while ((1 << l) < x) ++l;
  return l;
}

// How an operand's boxes are loaded (the kernel's operand holds it; the host tests emulate it):
// `loads` TMA loads a stage of `stacked` boxes each (stacked_boxes.hpp), 1 << along_shift loads at
// each step (a stacked load brings its step's boxes at once).
struct box_loads {
  int loads = 1, along_shift = 0, stacked = 1;
};
inline box_loads loads_of(const operand_boxes& o) { return {o.boxes / o.stacked, ceil_log2(o.stacked > 1 ? 1 : o.along), o.stacked}; }

// Load i's corner from the tile's (x: the first box's), as the producer and the host tests load it:
// the step digit's box_step per 1 << along_shift loads, bk along the contiguous axis within them.
// Made from x for every load (the producer keeps x for its odometer: a walked corner or a second copy
// cost its warpgroup's 56 registers a spill).
TG_HD inline void corner_of_box(const int (&x)[max_rank], const int (&box_step)[max_rank], int along_shift, int bk, int i, int (&at)[max_rank]) {
  const int step = i >> along_shift;
  TG_UNROLL for (int a = 0; a < max_rank; ++a) at[a] = x[a] + step * box_step[a];
  at[0] += (i - (step << along_shift)) * bk;
}

// Calls f(e) for every set of pow2 extents over `count` digits whose product is `tile` (a power of two),
// the faster digits' shares growing first.
template <class F>
bool each_extents(int count, int tile, F f) {
  const int log = ceil_log2(tile);
  if ((1 << log) != tile || count < 1) return false;
  extents e;
  auto visit = [&](auto&& self, int p, int left) -> void {
    if (p == count - 1) {
      e.e[p] = 1 << left;
      f(static_cast<const extents&>(e));
      return;
    }
    for (int l = 0; l <= left; ++l) {
      e.e[p] = 1 << l;
      self(self, p + 1, left - l);
    }
  };
  visit(visit, 0, log);
  return true;
}

// How much of a tile of extents e over digits of `length` is padding: (tiles x extent) / length,
// multiplied over the digits (1: none).
inline double cover_of(const index_t* length, int count, const extents& x) {
  double cover = 1;
  for (int p = 0; p < count; ++p) cover *= static_cast<double>(ceil_div(length[p], index_t{x.e[p]}) * x.e[p]) / static_cast<double>(length[p] > 0 ? length[p] : 1);
  return cover;
}

// The pow2 extents over digits of `length` (count of them) whose product is `tile`, for which `fits`
// holds, covering the digits with the least padding (ties: more of the tile on faster digits).
template <class Fits>
bool choose_extents(const index_t* length, int count, int tile, Fits fits, extents& best) {
  bool found = false;
  double best_cover = 0;
  each_extents(count, tile, [&](const extents& e) {
    if (!fits(e)) return;
    const double c = cover_of(length, count, e);
    if (!found || c < best_cover - 1e-12) found = true, best_cover = c, best = e;
  });
  return found;
}
}  // namespace tg::boxes
