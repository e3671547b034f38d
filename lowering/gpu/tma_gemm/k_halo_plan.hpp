// The halo of an MN-major operand along k (host only, no CUDA types: host-tested). Where a GEMM's rows
// run over filter taps and a block of channels while its k runs over output positions (backward
// weight planned as dW^T = im2col(x)^T dy: A's rows are (taps, channels), its k the positions), the
// m64 blocks of a tile (one tap each, 64 channels) read shifted windows of one box: the k-tile's input
// positions plus the tile's taps' reach. One box per k-tile instead of one per tap: a 4-tap tile of a
// 3x3 layer over 8 x 8 positions brings 8 x 10 = 80 rows instead of 256. Each block's wgmma reads its
// window in place: an MN-major k16 step is two groups of 8 k rows (positions) that must be 8
// consecutive halo rows each, sbo_rows apart, at any 128-byte row (the swizzle is of the address
// bits: performance.md section 23).
//
// Derived from the view's digits alone: the halo box spans each axis the tile's tap digits and the
// k-tile's position digits move (along an axis only they move, with the gcd of their steps as the
// box's traversal step); every position of every k16 step is checked to lie where the descriptor
// reads it.
#pragma once
#include <string>
#include "lowering/gpu/boxes.hpp"

namespace tg::tma_gemm {
constexpr int k_halo_max_blocks = 9;  // m64 blocks (taps) of a tile: 4 (256 rows) or 9 (the taps tile, plan.hpp)
struct k_halo_plan {
  bool on = false;
  int rows = 0;          // the halo box's 128-byte rows
  int sbo_rows = 0;      // rows between a k16 step's two groups of 8 positions (the descriptor's SBO / 128)
  int kk_row[4] = {};    // per k16 step of the k-tile: the halo row of its first position (before the tap's shift)
  int block_row[k_halo_max_blocks] = {}; // per m64 block of the tile: the rows its tap shifts every position by
};

struct k_halo_boxes {
  bool ok = false;
  std::string why;
  boxes::operand_boxes a;  // one box (the halo) per k-tile; order: the k-tile's spanned digits, smem-fastest first
  k_halo_plan h;
  int n_row_order = 0, row_order[boxes::max_digits] = {};  // the tile's spanned row digits, fastest first (the channels)
};

namespace detail {
constexpr int gcd(int a, int b) { return b == 0 ? (a < 0 ? -a : a) : gcd(b, a % b); }
}

// A's halo along k (A: axes x, digits d, MN-major: its contiguous digit a row digit) for tiles of
// `rows` rows with row extents em (64 of the channels, the rest over tap digits) and k-tiles of
// extents ek; ok false, with why, where a k16 step's positions are not two runs of 8 consecutive halo
// rows at one stride (stride 2 along the fastest spanned axis, ...), the tile spans a row digit that
// is no filter tap, or the halo has more than max_rows rows.
inline k_halo_boxes k_halo_of(const boxes::view_axes& x, const boxes::view_digits& d, const boxes::extents& em, const boxes::extents& ek,
                              int rows, int max_rows) {
  using namespace boxes;
  k_halo_boxes r;
  auto fail = [&](std::string w) { r.ok = false, r.why = std::move(w); return r; };
  if (!x.ok) return fail(x.why);
  if (rows % 64 != 0 || rows / 64 > k_halo_max_blocks) return fail("tiles of 64 to 576 rows");
  int inner;
  if (contiguous_digit(x, d, inner) != 1 || em.e[inner] != swizzle_elems) return fail("a tile row block is not 64 of the contiguous row digit");
  operand_boxes& o = r.a;
  o.mn_major = true;
  start_box(x, o, swizzle_elems);  // MN-major: 16-bit operands only
  int lo[max_rank] = {}, hi[max_rank] = {}, es[max_rank] = {};  // each axis's reach from the corner, traversal step
  bool by_k[max_rank] = {};
  for (int dim = 0; dim < 3; ++dim)
    for (int p = 0; p < d.count[dim]; ++p)
      if (x.axis[dim][p] >= 0) o.step[dim][p][x.axis[dim][p]] = x.coef[dim][p];
  auto reach = [&](int a, long long span, int coef) {
    (span < 0 ? lo[a] : hi[a]) += static_cast<int>(span);
    es[a] = detail::gcd(es[a], coef);
  };
  for (int p = 0; p < d.count[2]; ++p) {
    if (ek.e[p] == 1) continue;
    const int a = x.axis[2][p];
    if (a <= 0) return fail("a k-tile spans a digit that moves no axis past the channels");
    if (by_k[a]) return fail("two spanned k digits move along one axis");
    if (x.coef[2][p] < 1) return fail("a k digit that steps backwards");
    by_k[a] = true;
    reach(a, static_cast<long long>(ek.e[p] - 1) * x.coef[2][p], x.coef[2][p]);
  }
  for (int p = 0; p < d.count[1]; ++p) {
    if (p == inner || em.e[p] == 1) continue;
    const int a = x.axis[1][p];
    if (a <= 0 || d.length[1][p] <= 1) return fail("a tile spans a row digit that is no filter tap");
    const long long taps = em.e[p] < d.length[1][p] ? em.e[p] : d.length[1][p];  // blocks past the filter read nothing
    const long long span = (taps - 1) * static_cast<long long>(x.coef[1][p]);
    if (span > 256 || span < -256) return fail("a filter reaching over 256 positions");
    reach(a, span, x.coef[1][p]);
    r.row_order[++r.n_row_order] = p;  // slot 0: the channels
  }
  r.row_order[0] = inner, ++r.n_row_order;
  if (r.n_row_order == 1) return fail("no taps to share a halo");
  int stride_rows[max_rank] = {};  // halo rows per traversal step of each axis past the channels
  int n_rows = 1;
  for (int a = 1; a < o.box.rank; ++a) {
    if (es[a] == 0) es[a] = 1;
    if (es[a] > 8) return fail("a traversal step over 8");
    const int count = (hi[a] - lo[a]) / es[a] + 1;
    o.box.box[a] = count * es[a], o.box.elem_stride[a] = es[a];
    if (o.box.box[a] > 256) return fail("a halo box over 256 elements");
    o.base[a] += lo[a];
    stride_rows[a] = n_rows;
    n_rows *= count;
  }
  if (n_rows > max_rows) return fail("a halo of " + std::to_string(n_rows) + " rows (at most " + std::to_string(max_rows) + ")");
  for (int a = 1; a < o.box.rank; ++a)  // the k-tile's positions in smem order: axes ascending (boxes_of's)
    for (int p = 0; p < d.count[2]; ++p)
      if (ek.e[p] > 1 && x.axis[2][p] == a) o.order[o.n_order++] = p;
  auto rows_of = [&](int dim, long long v, int p) { return static_cast<int>(v * x.coef[dim][p] / es[x.axis[dim][p]]) * stride_rows[x.axis[dim][p]]; };
  auto k_row = [&](int i) {  // position i of the k-tile (the order's digits, fastest first)
    int row = 0;
    for (int j = 0; j < o.n_order; ++j) {
      const int p = o.order[j], e = ek.e[p];
      row += rows_of(2, i % e, p);
      i /= e;
    }
    return row;
  };
  int corner_row = 0;  // the halo row of the tile's first tap at the k-tile's first position
  for (int a = 1; a < o.box.rank; ++a) corner_row += -lo[a] / es[a] * stride_rows[a];
  r.h.rows = n_rows;
  r.h.sbo_rows = k_row(8) - k_row(0);
  if (r.h.sbo_rows <= 0 || r.h.sbo_rows * 128 >= (1 << 18)) return fail("no group stride for the descriptor");
  for (int kk = 0; kk < swizzle_elems / 16; ++kk) {
    r.h.kk_row[kk] = corner_row + k_row(16 * kk);
    for (int j = 0; j < 16; ++j)
      if (k_row(16 * kk + j) != k_row(16 * kk) + (j / 8) * r.h.sbo_rows + j % 8)
        return fail("a k16 step's positions are not two runs of 8 consecutive halo rows at one stride");
  }
  for (int b = 0; b < rows / 64; ++b) {  // block b: tile row 64 b, its tap digits in row order after the channels
    int i = b, row = 0;
    for (int j = 1; j < r.n_row_order; ++j) {
      const int p = r.row_order[j], e = em.e[p];
      row += rows_of(1, i % e, p);
      i /= e;
    }
    r.h.block_row[b] = row;
  }
  if (!corners_aligned(o, d, em, ek, swizzle_elems)) return fail(unaligned_corner);
  r.h.on = true;
  r.ok = true;
  return r;
}
}  // namespace tg::tma_gemm
