// The staged gather's plan: the staged sliding plan (staged_sliding_plan.hpp) read the other way round
// (host and device arithmetic, host-tested against the views by
// tests/lowering/gpu/staged_gather_plan_test.cpp). Channels-last depthwise forward and backward data are
//   C[g, m] = sum over taps k of A[g, m, k] * B[g, k],
// A a window over x (forward) or dy (backward data: one GEMM per stride class), B the filter. With
// the views' row and k dimensions swapped, C's rows are the sliding plan's reduction digits (its dy)
// and A's taps its filter taps over a window (its x): the same tiles, boxes of A with the halo, units
// of taps and slide. A tap digit that walks its tensor backwards (backward data's taps step dy's
// coordinates down) is flipped: counted from its last value, it walks forward from a lower corner.
// The rest is the gather's own: each unit's taps as offsets of B's elements, and where C's rows lie
// in memory (a block stores its outputs directly: nothing is reduced across blocks).
#pragma once
#include <bit>
#include <string>
#include <utility>
#include "lowering/gpu/staged_sliding_plan.hpp"

namespace tg {
constexpr int gather_max_taps = 8;  // a unit's taps (the plan's T)

struct staged_gather_plan {
  bool ok = false;
  std::string why;
  int blocks = 1;                                             // per multiprocessor (the limits it was planned for)
  bool empty = false;                                         // no rows: nothing to launch
  bool zero = false;                                          // no products (no taps, or A all padding): C = epilogue(0)
  staged_plan tiles;                                          // geo and the A box (as its x); its y is C's tensor
  index_t tap_b[staged_max_units * gather_max_taps] = {};     // B's element offset of unit u's tap i (u * 8 + i), i < count
  index_t b0 = 0, b_group = 0;                                // B's offset at group 0, per group
  index_t c_pitch_h = 0, c_pitch_w = 0;                       // C's elements per unit of a tile's h and w
  int tap_sets = 1;                                           // channel blocks whose taps a block holds: > 1, it walks (tile, channel block) pairs
};

// A block's taps in shared memory: [unit][tap][64 channels] as floats, and each unit's first word and count.
TG_HD inline std::size_t staged_gather_taps_bytes(const staged_geometry& g) {
  return static_cast<std::size_t>(g.units) * (static_cast<std::size_t>(g.taps) * staged_channels * sizeof(float) + 2 * sizeof(int));
}

// Where the last channel block is narrow (fewer than 64 channels), its tiles cost a block less than
// a whole block's, so a grid of one column of blocks per channel block leaves the narrow column's
// multiprocessors idle at the end (section 32's profile: SMs active 77% of the elapsed cycles). A block
// that holds every channel block's taps (their shared memory at most this) walks (tile, channel block)
// pairs instead, tile-major, and every block gets its share of narrow pairs.
constexpr std::size_t staged_gather_pair_taps_most = 24 * 1024;

// A block's work: pieces [first, end) of `work` (tiles of its channel block, or (tile, channel block)
// pairs), split over `runs` blocks in runs that differ by at most one piece.
struct staged_gather_run {
  index_t first, end;
};
TG_HD inline staged_gather_run staged_gather_run_of(index_t work, index_t runs, index_t r) { return {work * r / runs, work * (r + 1) / runs}; }
// Piece `piece` of a block in the grid's column `column`: its tile and channel block (tap_sets > 1:
// pairs, tile-major; else the column's channel block).
TG_HD inline void staged_gather_piece(index_t piece, int tap_sets, index_t column, index_t& tile, index_t& block) {
  tile = tap_sets == 1 ? piece : piece / tap_sets;
  block = tap_sets == 1 ? column : piece - tile * tap_sets;
}

// Lanes per item in a block of `channels` real channels: a lane holds a pair, so 32 lanes cover the
// 64 of a whole block; a block of fewer (the last, where the groups are not a multiple of 64) splits
// each warp into 32 / L items side by side on the fewest lanes L (a power of two) that hold its
// channels, and issues up to 32 / L times fewer instructions for its tiles. (Host: the launch passes it.)
inline int staged_gather_lanes(index_t channels) {
  const index_t pairs = channels < 2 ? 1 : channels > 2 * 32 ? 32 : (channels + 1) / 2;
  return static_cast<int>(std::bit_ceil(static_cast<unsigned>(pairs)));
}

// A tile of tw x th outputs as items of work, taken by the block's warps in turn: a row, a residue of
// w modulo the slide, a group of up to staged_gather_outputs outputs of that residue (slide_w apart).
// Item `it`'s row and first output; returns its outputs (0: the residue has no outputs that far).
TG_HD inline int staged_gather_items(const staged_geometry& g, int tw, int th) {
  return th * g.slide_w * (((tw + g.slide_w - 1) / g.slide_w + staged_gather_outputs - 1) / staged_gather_outputs);
}
TG_HD inline int staged_gather_item(const staged_geometry& g, int tw, int it, int& hh, int& w) {
  const int groups = ((tw + g.slide_w - 1) / g.slide_w + staged_gather_outputs - 1) / staged_gather_outputs, per_row = g.slide_w * groups;
  hh = it / per_row;
  const int r = it % per_row;
  w = r / groups + r % groups * staged_gather_outputs * g.slide_w;
  if (w >= tw) return 0;
  const int left = (tw - w + g.slide_w - 1) / g.slide_w;
  return left < staged_gather_outputs ? left : staged_gather_outputs;
}

namespace detail {
// Rows and k swapped: dimension 1 becomes the GEMM's k (A's taps; C's one column), 2 its rows.
inline void swap_rows_and_k(boxes::view_digits& d, boxes::view_axes& a) {
  std::swap(d.count[1], d.count[2]);
  for (int p = 0; p < boxes::max_digits; ++p) {
    std::swap(d.length[1][p], d.length[2][p]);
    std::swap(d.off[1][p], d.off[2][p]);
    for (int i = 0; i < boxes::max_guards; ++i) std::swap(d.guard[1][p][i], d.guard[2][p][i]);
    std::swap(a.axis[1][p], a.axis[2][p]);
    std::swap(a.coef[1][p], a.coef[2][p]);
    std::swap(a.exact[1][p], a.exact[2][p]);
  }
}
// The flat index of digit values v over lengths len (slowest first), and back.
inline index_t flat_of(const index_t* v, const index_t* len, int n) {
  index_t f = 0;
  for (int p = 0; p < n; ++p) f = f * len[p] + v[p];
  return f;
}
inline void digits_from(index_t f, const index_t* len, int n, index_t* v) {
  for (int p = n - 1; p >= 0; --p) v[p] = f % len[p], f /= len[p];
}
}  // namespace detail

// The plan of a GEMM of one column per group (elem_bytes: the element size the kernel reads).
template <class V>
staged_gather_plan staged_gather_plan_of(const V& v, int elem_bytes, staged_limits lim = {}) {
  staged_gather_plan r;
  auto fail = [&](std::string w) {
    r.ok = false;
    r.why = std::move(w);
    return r;
  };
  if (v.n() != 1) return fail("more than one column per group");
  if (v.m() < 1 || v.groups() < 1) return r.ok = r.empty = true, r;  // a stride class of dx with no positions: nothing to write
  boxes::view_digits dC = boxes::digits_of(v.c), dA = boxes::digits_of(v.a);
  const boxes::view_digits dB = boxes::digits_of(v.b);
  boxes::view_axes aC = boxes::axes_of(dC), aA = boxes::axes_of(dA);
  if (!aC.ok) return fail("C is not a TMA tensor: " + aC.why);
  // Every product zero (a stride class of dx that no tap reaches, or whose taps read only padding):
  // C's tiles alone, planned as a gather of C over itself with no units (nothing of it is read).
  r.zero = v.k() < 1 || aA.all_padding;
  if (r.zero) dA = dC, aA = aC;
  if (!aA.ok) return fail("A is not a TMA tensor: " + aA.why);
  detail::swap_rows_and_k(dC, aC);
  detail::swap_rows_and_k(dA, aA);
  bool flipped[boxes::max_digits] = {};
  for (int p = 0; p < dA.count[1]; ++p) {
    const int ax = aA.axis[1][p], c = aA.coef[1][p];
    if (dA.length[1][p] <= 1 || ax < 0 || c >= 0) continue;
    aA.base[ax] += static_cast<int>((dA.length[1][p] - 1) * c);  // the last tap's coordinate: the lowest
    aA.coef[1][p] = -c, flipped[p] = true;
  }
  lim.gather = true;
  r.blocks = lim.blocks;
  r.tiles = plan_staged_sliding(dC, aC, dA, aA, elem_bytes, lim);
  // Every channel block's taps in each block where the last block is narrow and they fit (above).
  const index_t channel_blocks = (v.groups() + staged_channels - 1) / staged_channels;
  if (r.tiles.ok && lim.pairs && v.groups() % staged_channels != 0 && channel_blocks > 1 &&
      staged_gather_taps_bytes(r.tiles.geo) * static_cast<std::size_t>(channel_blocks) <= staged_gather_pair_taps_most)
    r.tap_sets = static_cast<int>(channel_blocks);
  if (r.tiles.ok && staged_gather_taps_bytes(r.tiles.geo) * static_cast<std::size_t>(r.tap_sets) > lim.reserve) {  // again, with the taps' shared memory kept aside
    lim.reserve = staged_gather_taps_bytes(r.tiles.geo) * static_cast<std::size_t>(r.tap_sets);
    r.tiles = plan_staged_sliding(dC, aC, dA, aA, elem_bytes, lim);
  }
  if (!r.tiles.ok) return fail(r.tiles.why);
  staged_geometry& g = r.tiles.geo;
  if (r.zero) g.units = 0;
  if (g.taps > gather_max_taps) return fail("more taps per unit than the kernel holds");
  // B: the filter, one moving group digit, no padding.
  if (dB.n_guards != 0) return fail("B has padding");
  int moving = 0;
  for (int p = 0; p < dB.count[0]; ++p)
    if (dB.length[0][p] > 1) r.b_group = dB.off[0][p], ++moving;
  if (moving != 1) return fail("B's groups are not one axis");
  r.b0 = dB.off0;
  // Unit u's tap i: its flat index in the flipped digits (the plan's column n0 + i * spacing), the
  // GEMM's k (flipped digits counted back), B's offset of that k (B's own digits of it).
  index_t flip_len[boxes::max_digits] = {}, b_len[boxes::max_digits] = {}, kv[boxes::max_digits] = {};
  for (int p = 0; p < dA.count[1]; ++p) flip_len[p] = dA.length[1][p];
  for (int p = 0; p < dB.count[2]; ++p) b_len[p] = dB.length[2][p];
  for (int u = 0; u < g.units; ++u)
    for (int i = 0; i < g.unit[u].count; ++i) {
      detail::digits_from(g.unit[u].n0 + static_cast<index_t>(i) * g.spacing, flip_len, dA.count[1], kv);
      for (int p = 0; p < dA.count[1]; ++p)
        if (flipped[p]) kv[p] = flip_len[p] - 1 - kv[p];
      const index_t k = detail::flat_of(kv, flip_len, dA.count[1]);
      detail::digits_from(k, b_len, dB.count[2], kv);
      index_t off = 0;
      for (int p = 0; p < dB.count[2]; ++p) off += kv[p] * dB.off[2][p];
      r.tap_b[u * gather_max_taps + i] = off;
    }
  // C's rows in memory: a pair of channels is one 4-byte store where every offset is even.
  const arch::tma_box& ct = r.tiles.y;
  const int w = g.k_digits - 1, h = g.k_digits - 2;
  r.c_pitch_w = g.y_axis[w] >= 0 ? ct.stride[g.y_axis[w]] * g.y_coef[w] : 0;
  r.c_pitch_h = h >= 0 && g.y_axis[h] >= 0 ? ct.stride[g.y_axis[h]] * g.y_coef[h] : 0;
  if (ct.base % 2 != 0) return fail("C's channel pairs are not 4-byte words");
  r.ok = true;
  return r;
}
// Blocks per multiprocessor: one where its whole share of shared memory gives tiles of more outputs
// than two blocks' halves, two where the tiles come out the same (H100, performance.md section 31:
// MobileNetV2's 56-wide rows in 56x10 tiles against 28x10, 1.09x faster with one; the 7x7 images,
// whole either way, 1.4-1.5x faster with two blocks hiding each other's staging).
inline int staged_gather_tile_outputs(const staged_gather_plan& p) {
  const staged_geometry& g = p.tiles.geo;
  return g.ext[g.k_digits - 1] * (g.k_digits > 1 ? g.ext[g.k_digits - 2] : 1);
}
inline bool staged_gather_one_block_better(const staged_gather_plan& two, const staged_gather_plan& one) {
  if (!two.ok) return one.ok;
  if (!one.ok || two.empty || one.empty) return false;
  return staged_gather_tile_outputs(one) > staged_gather_tile_outputs(two);
}
// The plan for `want.blocks` blocks per multiprocessor (0: the better of one and two) and `want.stages`
// stages (0: two).
template <class V>
staged_gather_plan staged_gather_plan_chosen(const V& v, int elem_bytes, staged_limits want) {
  if (want.stages == 0) want.stages = staged_stages;
  if (want.blocks > 0) return staged_gather_plan_of(v, elem_bytes, want);
  staged_limits one = want, two = want;
  one.blocks = 1, two.blocks = 2;
  staged_gather_plan p2 = staged_gather_plan_of(v, elem_bytes, two), p1 = staged_gather_plan_of(v, elem_bytes, one);
  return staged_gather_one_block_better(p2, p1) ? p1 : p2;
}
}  // namespace tg
