// The halo of a K-major operand (host only, no CUDA types: host-tested): where a GEMM's k runs over
// filter taps and a block of channels (an implicit convolution at stride 1), the taps' tiles of A are
// shifted windows of one box: the tile's input positions plus a halo of (filter - 1) x dilation along
// each axis the taps move. Loading that box once per channel block, instead of one box per tap, cuts
// the 128-byte rows the TMA brings for A by up to taps x (tile rows / halo rows): 9 x 256 / 400 for
// a 3x3 filter over 4 x 8 x 8 outputs. The per-tap tiles are read in place by wgmma: an m64 block is 8
// groups of 8 consecutive halo rows at a fixed row stride (the descriptor's SBO), starting at the
// block's row plus the tap's (measured on the H100: any 128-byte row start, any stride, descriptor
// base offset 0; performance.md section 23).
//
// Derived from the view's digits alone: A's contiguous k digit (the channels) becomes the slowest k
// digit so that a channel block's taps are consecutive k-tiles; the halo box spans each axis the
// tile's row digits and the tap digits move; every row of every block of the tile is checked to lie
// where the descriptor reads it.
#pragma once
#include <string>
#include "lowering/gpu/boxes.hpp"

namespace tg::tma_gemm {
constexpr int max_taps = 32;  // k-tiles per channel block: a 3x3x3 filter's 27

struct halo_plan {
  bool on = false;
  int taps = 1;                  // k-tiles per channel block (the tap digits' product), fastest in k order
  int rows = 0;                  // the halo box's 128-byte rows
  int group_rows = 0;            // rows between an m64 block's groups of 8 (the descriptor's SBO / 128)
  int block_row[4] = {};         // per m64 block of the tile: the halo row of its first row at tap 0
  int tap_row[max_taps] = {};    // per tap in k order: the rows it shifts every block by
};

// A's digits with its contiguous k digit `pa` moved to the first (slowest) k slot; perm[slot] is the
// view's digit in that slot.
inline boxes::view_digits channels_slowest(boxes::view_digits d, int pa, int (&perm)[boxes::max_digits]) {
  const boxes::view_digits o = d;
  int s = 0;
  perm[s++] = pa;
  for (int p = 0; p < o.count[2]; ++p)
    if (p != pa) perm[s++] = p;
  for (int p = o.count[2]; p < boxes::max_digits; ++p) perm[p] = p;
  for (int p = 0; p < o.count[2]; ++p) {
    d.length[2][p] = o.length[2][perm[p]];
    d.off[2][p] = o.off[2][perm[p]];
    for (int i = 0; i < boxes::max_guards; ++i) d.guard[2][p][i] = o.guard[2][perm[p]][i];
  }
  return d;
}

// The halo box of A (digits d, its contiguous k digit in slot 0) for tiles of `rows` rows with row
// extents em, and where each block and tap reads it; ok false, with why, where the tile's blocks are
// not 8 groups of 8 consecutive halo rows at one stride (stride-2 convolutions, a row digit spanning
// fewer than 8 positions, ...) or the halo has more than max_rows rows.
struct halo_boxes {
  bool ok = false;
  std::string why;
  boxes::operand_boxes a;
  halo_plan h;
};

// Whether the halo plan's tiles, more than the boxes' (a halo tile covers whole 8-row groups of the
// image, so small images leave rows empty), still beat them on `processors` multiprocessors: a halo
// tile brings fewer rows of A, so it wins unless it needs over 1.5 times the waves. Measured (section
// 38): ResNet-50's 3x3 layers at 28x28 (4 waves against 3) and 14x14 run 1.05-1.4x faster on halos;
// fp32's 7x7 C512, whose 384-row halos hold 2 images a tile (256 tiles: 2 waves against 1), 1.37x
// slower.
constexpr bool halo_tiles_fill(long long halo_tiles, long long box_tiles, long long processors) {
  const long long halo_waves = (halo_tiles + processors - 1) / processors, box_waves = (box_tiles + processors - 1) / processors;
  return 2 * halo_waves <= 3 * box_waves;
}
inline halo_boxes halo_of(const boxes::view_axes& x, const boxes::view_digits& d, const boxes::extents& em, int rows, int max_rows, int bk) {
  using namespace boxes;
  halo_boxes r;
  auto fail = [&](std::string w) { r.ok = false, r.why = std::move(w); return r; };
  if (!x.ok) return fail(x.why);
  if (d.count[2] < 1 || x.axis[2][0] != 0 || x.coef[2][0] != 1) return fail("the channels are not the first k digit along the contiguous axis");
  operand_boxes& o = r.a;
  start_box(x, o, bk);
  int lo[max_rank] = {}, hi[max_rank] = {};  // each axis's reach from the corner: rows (hi), taps (lo..hi)
  bool by_row[max_rank] = {};
  for (int dim = 0; dim < 3; ++dim)
    for (int p = 0; p < d.count[dim]; ++p)
      if (x.axis[dim][p] >= 0 && !(dim == 2 && p > 0)) o.step[dim][p][x.axis[dim][p]] = x.coef[dim][p];  // taps do not move the halo
  for (int p = 0; p < d.count[1]; ++p) {
    if (em.e[p] == 1) continue;
    const int a = x.axis[1][p];
    if (a <= 0) return fail("a tile spans a row digit that moves no axis past the channels");
    if (by_row[a]) return fail("two spanned row digits move along one axis");
    if (x.coef[1][p] < 1) return fail("a row digit that steps backwards");
    by_row[a] = true;
    hi[a] += (em.e[p] - 1) * x.coef[1][p];
  }
  int taps = 1;
  for (int p = 1; p < d.count[2]; ++p) {
    if (d.length[2][p] <= 1) continue;
    const int a = x.axis[2][p];
    if (a <= 0) return fail("a tap digit that moves no axis past the channels");
    const long long reach = (d.length[2][p] - 1) * static_cast<long long>(x.coef[2][p]);
    if (reach > 256 || reach < -256) return fail("a filter reaching over 256 positions");
    (reach < 0 ? lo[a] : hi[a]) += static_cast<int>(reach);
    taps *= static_cast<int>(d.length[2][p]);
    if (taps > max_taps) return fail("more than " + std::to_string(max_taps) + " taps");
  }
  int stride_rows[max_rank] = {};  // halo rows per unit of each axis past the channels
  int n_rows = 1;
  for (int a = 1; a < o.box.rank; ++a) {
    o.box.box[a] = hi[a] - lo[a] + 1;
    if (o.box.box[a] > 256) return fail("a halo box over 256 elements");
    o.base[a] += lo[a];
    stride_rows[a] = n_rows;
    n_rows *= o.box.box[a];
  }
  if (n_rows > max_rows) return fail("a halo of " + std::to_string(n_rows) + " rows (at most " + std::to_string(max_rows) + ")");
  for (int a = 1; a < o.box.rank; ++a)  // the tile's row digits in smem order: axes ascending (boxes_of's)
    for (int p = 0; p < d.count[1]; ++p)
      if (em.e[p] > 1 && x.axis[1][p] == a) o.order[o.n_order++] = p;
  // Tile row i's digits: the spanned digits in that order, fastest first (class_plan's fill_digits).
  auto halo_row = [&](int i) {
    int row = 0;
    for (int j = 0; j < o.n_order; ++j) {
      const int p = o.order[j], e = em.e[p];
      row += (i % e) * x.coef[1][p] * stride_rows[x.axis[1][p]];
      i /= e;
    }
    return row;
  };
  r.h.rows = n_rows;
  r.h.group_rows = halo_row(8) - halo_row(0);
  if (rows % 64 != 0 || rows / 64 > 4) return fail("tiles of 64 to 256 rows");
  if (r.h.group_rows <= 0 || r.h.group_rows * 128 >= (1 << 18)) return fail("no group stride for the descriptor");
  for (int b = 0; b < rows / 64; ++b) {
    r.h.block_row[b] = halo_row(64 * b);
    for (int i = 0; i < 64; ++i)
      if (halo_row(64 * b + i) != r.h.block_row[b] + (i / 8) * r.h.group_rows + i % 8)
        return fail("the tile's rows are not groups of 8 consecutive halo rows at one stride");
  }
  // The taps in k order (the odometer: the last k slot fastest) and the rows each shifts by.
  r.h.taps = taps;
  for (int t = 0; t < taps; ++t) {
    int rest = t, row = 0;
    for (int p = d.count[2] - 1; p >= 1; --p) {
      const int len = static_cast<int>(d.length[2][p]), v = rest % len;
      rest /= len;
      if (len > 1) row += (v * x.coef[2][p] - lo[x.axis[2][p]]) * stride_rows[x.axis[2][p]];
    }
    r.h.tap_row[t] = row;
  }
  boxes::extents ek;  // a k-tile: bk of the channels (the taps do not move the halo)
  ek.e[0] = bk;
  if (!corners_aligned(o, d, em, ek, bk)) return fail(unaligned_corner);
  r.h.on = true;
  r.ok = true;
  return r;
}
}  // namespace tg::tma_gemm
