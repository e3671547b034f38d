// Whether a GEMM takes the sliding-window pipeline (gemm_sliding.hpp), its threads' columns and its
// grid: functions of the GEMM's numbers and of B's entries alone, never of which op runs (host-tested:
// tests/lowering/gpu/sliding_choice_test.cpp). The pipeline serves single GEMMs of one row per group
// with the groups one element apart in A and B and a long reduction (channels-last depthwise backward
// weight: dw[g, tap] = sum over (n, output position) of dy[g, ...] * x[g, window]).
#pragma once
#include <vector>
#include "lowering/gemm.hpp"
#include "lowering/gpu/depthwise_choice.hpp"

namespace tg {
constexpr int sliding_columns = 4;       // columns (filter taps) a thread holds
constexpr int sliding_max_threads = 128;  // per block (three per multiprocessor: a thread takes ~150-170 registers)
constexpr index_t sliding_min_k = 64;     // k per thread at least (its window is loaded whole first)
constexpr index_t sliding_max_chunk = 32768;  // k per block at most (their step bits are staged in shared memory)

// A thread's columns of B: `count` of them, in n[sliding_columns - count ..] (right-aligned, so the
// last is always the tile's last: the one a sliding step loads). Where `slides`, column j + 1 lies one
// k step after column j (in offset and guards: the filter's next tap is the window's next output
// position), so at k + 1 column j is column j + 1 at k and a step that moves by that k step loads one
// new word of B, not `count`. Otherwise every column is loaded at every k.
struct sliding_tile {
  short n[sliding_columns];
  unsigned char count, slides;
};
// Tiles a launch takes (they travel in the kernel's parameters: 1.5 KiB; a 7x7x7 filter has 98).
constexpr int sliding_max_tiles = 128;

// The columns' tiles from B's column entries col[0 .. N) (group 0) and its k step (the entry of k = 1
// minus that of k = 0): chains of columns each one k step after the previous (a filter row's taps at
// stride 1; every other tap at stride 2), cut into tiles of sliding_columns; the columns no chain
// continues are packed sliding_columns to a tile that does not slide. Every column is in one tile.
template <int NG, class Entry>
std::vector<sliding_tile> sliding_tiles(const std::vector<Entry>& col, const Entry& k_step, bool k_steps) {
  const int N = static_cast<int>(col.size());
  std::vector<char> taken(col.size(), 0);
  std::vector<sliding_tile> tiles;
  std::vector<int> alone;
  for (int n = 0; n < N; ++n) {
    if (taken[n]) continue;
    sliding_tile t{{}, 1, 0};
    t.n[0] = static_cast<short>(n);
    taken[n] = 1;
    for (int m = n + 1; k_steps && m < N && t.count < sliding_columns; ++m)
      if (!taken[m] && moved_by<Entry, NG>(col[t.n[t.count - 1]], col[m], k_step)) t.n[t.count++] = static_cast<short>(m), taken[m] = 1;
    if (t.count > 1) t.slides = 1, tiles.push_back(t);
    else alone.push_back(n);
  }
  for (std::size_t i = 0; i < alone.size(); i += sliding_columns) {
    sliding_tile t{{}, 0, 0};
    for (std::size_t j = i; j < alone.size() && t.count < sliding_columns; ++j) t.n[t.count++] = static_cast<short>(alone[j]);
    tiles.push_back(t);
  }
  for (auto& t : tiles) {  // right-aligned; the columns before them are never read (not real)
    const int first = sliding_columns - t.count;
    for (int j = sliding_columns - 1; j >= first; --j) t.n[j] = t.n[j - first];
    for (int j = 0; j < first; ++j) t.n[j] = t.n[first];
  }
  return tiles;
}

struct sliding_facts {
  index_t groups = 0, m = 0, n = 0, k = 0;
  int group_word = 8;        // groups per 16-byte word
  bool unit_groups = false;  // A's and B's groups one element apart
  index_t tiles = 0;         // sliding_tiles(...).size()
};

struct sliding_plan {
  bool ok = false;
  const char* why = "";
  index_t words = 0, pairs = 0;  // words of groups; (word, tile) pairs, one per thread of a k range
  int pairs_per_block = 0, subs = 0, threads = 0;  // a block: pairs x subs (k ranges of its chunk) threads
  index_t blocks = 0, splits = 0, chunk = 0;       // grid x (pairs), grid y (k chunks of `chunk`)
};

// The block: its pairs as even as ceil(pairs / blocks) allows, the rest of its threads splitting
// its k chunk (summed in the block, in order), rounded up to whole warps.
constexpr sliding_plan sliding_block(sliding_plan p) {
  const index_t per = (p.pairs + sliding_max_threads - 1) / sliding_max_threads;
  p.pairs_per_block = static_cast<int>((p.pairs + per - 1) / per);
  p.subs = sliding_max_threads / p.pairs_per_block;
  p.threads = (p.pairs_per_block * p.subs + 31) / 32 * 32;
  p.blocks = per;
  return p;
}

// `slots`: blocks of p.threads resident at once (per multiprocessor x multiprocessors); the k chunks
// fill one wave of them, each thread's range at least sliding_min_k; `splits` > 0 forces the count.
// Either way no chunk is longer than sliding_max_chunk.
constexpr sliding_plan sliding_grid(sliding_plan p, index_t K, index_t slots, index_t splits) {
  index_t s = splits;
  if (s <= 0) {
    const index_t most = K / (p.subs * sliding_min_k);
    s = slots / p.blocks;
    s = s < most ? s : most;
  }
  const index_t fewest = (K + sliding_max_chunk - 1) / sliding_max_chunk;
  s = s > fewest ? s : fewest;
  s = s < 65535 ? s : 65535;
  s = s > 1 ? s : 1;
  p.chunk = (K + s - 1) / s;
  p.splits = K > 0 ? (K + p.chunk - 1) / p.chunk : 1;
  return p;
}

// Which numbers the pipeline takes; the grid comes after, from the occupancy (sliding_grid).
constexpr sliding_plan choose_sliding(const sliding_facts& f) {
  sliding_plan p;
  if (f.m != 1) return p.why = "more than one row per group", p;
  if (f.groups < f.group_word) return p.why = "fewer groups than a 16-byte word holds", p;
  if (!f.unit_groups) return p.why = "groups not one element apart", p;
  if (f.n == 0 || f.tiles == 0) return p.why = "no columns", p;
  if (f.n > 32767 || f.tiles > sliding_max_tiles) return p.why = "filter too large", p;
  if (f.k > sliding_max_chunk * 65535) return p.why = "reduction too long", p;  // 65535 chunks of at most sliding_max_chunk
  p.words = (f.groups + f.group_word - 1) / f.group_word;
  p.pairs = p.words * f.tiles;
  p.ok = true;
  return sliding_block(p);
}

// The views the pipeline can take, from their types: one GEMM, A and B affine splits, A without padding
// guards. An A with guards is an activation's im2col (the forward convolution's, one row per output
// position), which has one row per group only in degenerate problems; instantiating the kernel for it
// cost compile time for nothing (and clang 15 could not unroll its loops there).
template <class Batch>
constexpr bool sliding_views_ok() {
  using V = decltype(std::declval<Batch>().views(0));
  return is_single_gemm<Batch>::value && affine_split<decltype(V::a)>::on && affine_split<decltype(V::b)>::on &&
         affine_split<decltype(V::a)>::n_guards == 0;
}

// B's column entries of group 0 and its k step, for sliding_tiles.
template <class View>
std::vector<typename affine_split<View>::entry> column_entries(const View& b) {
  std::vector<typename affine_split<View>::entry> col(static_cast<std::size_t>(b.desc.length(1)));
  for (std::size_t n = 0; n < col.size(); ++n) col[n] = affine_entry<1>(b, 0, 1, static_cast<index_t>(n));
  return col;
}
template <class View>
typename affine_split<View>::entry k_step_entry(const View& b) {
  auto e = affine_entry<1>(b, 0, 2, 1);
  const auto z = affine_entry<1>(b, 0, 2, 0);
  e.off -= z.off;
  for (int i = 0; i < affine_split<View>::n_guards; ++i) e.guard[i] -= z.guard[i];
  return e;
}
template <class View>
std::vector<sliding_tile> sliding_tiles_of(const View& b) {
  if (b.desc.length(1) > 32767) return {};  // choose_sliding refuses it
  const bool k_steps = b.desc.length(2) > 1;
  return sliding_tiles<affine_split<View>::n_guards>(column_entries(b), k_steps ? k_step_entry(b) : affine_entry<1>(b, 0, 2, 0), k_steps);
}

// The plan (before its grid) and B's column tiles of a single GEMM's views: the cheap refusals first
// (unit_groups walks every group, the tiles every column).
struct sliding_choice {
  sliding_plan plan;
  std::vector<sliding_tile> tiles;
};
template <class V>
sliding_choice choose_sliding_for(const V& v) {
  sliding_facts f;
  f.groups = v.groups(), f.m = v.m(), f.n = v.n(), f.k = v.k();
  f.group_word = 16 / static_cast<int>(sizeof(std::remove_const_t<typename decltype(V::b)::value_type>));
  sliding_choice c;
  if (f.m == 1 && f.groups >= f.group_word) {
    f.unit_groups = unit_groups_remembered(v.a) && unit_groups_remembered(v.b);
    if (f.unit_groups) c.tiles = sliding_tiles_of(v.b);
    f.tiles = static_cast<index_t>(c.tiles.size());
  }
  c.plan = choose_sliding(f);
  return c;
}
}  // namespace tg
