// Whether a GEMM batch takes the depthwise pipeline (gemm_depthwise.hpp), and its block shape: a function
// of the batch's numbers alone (host-tested: tests/lowering/gpu/depthwise_choice_test.cpp), never of
// which op runs. The pipeline serves GEMMs of one column per group with the groups one element apart in
// A and C (channels-last depthwise backward data and forward, channel multiplier 1), where a matrix-core
// tile would be 1/64 used; everything else keeps the GEMM pipelines.
#pragma once
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include "lowering/gpu/split_view.hpp"

namespace tg {
struct depthwise_facts {
  index_t groups = 0, max_m = 0, max_n = 0, max_k = 0;  // over the batch's GEMMs
  int group_word = 8;                                    // groups per 16-byte word (16 / element size)
  int rows_per_thread = 4;                               // the kernel's (depthwise_rows)
  std::size_t entry_bytes = 0;                           // one k entry of A (affine_split::entry)
  std::size_t row_entry_bytes = 0;                       // one row entry of A plus one of C
  std::size_t b_entry_bytes = 0;                         // one row entry of B
  bool unit_groups = false;                              // A's and C's groups one element apart, every GEMM
};

struct depthwise_plan {
  bool ok = false;
  const char* why = "";
  int lanes = 0;         // group words side by side per row of a block
  int tile_rows = 0;     // rows per tile: depthwise_slots(lanes) * rows per thread
  std::size_t smem = 0;  // A's k entries, the block's taps as floats, their groups' B row entries, two tiles' row entries
};

constexpr int depthwise_threads = 256;
constexpr int depthwise_max_lanes = 32;                   // words of groups side by side per row, at most
// Rows side by side per block: threads / lanes, but at most 64 (with fewer than 4 lanes, few groups,
// the row entries of more would not fit in shared memory; the other threads idle).
constexpr int depthwise_slots(int lanes) { return depthwise_threads / lanes < 64 ? depthwise_threads / lanes : 64; }
constexpr std::size_t depthwise_smem_limit = 48 * 1024;  // without opting in to more

// Shared memory of a block with `lanes` words of groups per row: A's k entries (rounded to 16 bytes),
// the taps as floats, their groups' B row entries, two tiles' row entries of A and C.
constexpr std::size_t depthwise_smem(const depthwise_facts& f, int lanes) {
  const std::size_t k = static_cast<std::size_t>(f.max_k), groups = static_cast<std::size_t>(lanes * f.group_word);
  const std::size_t tile_rows = static_cast<std::size_t>(depthwise_slots(lanes) * f.rows_per_thread);
  return (k * f.entry_bytes + 15) / 16 * 16 + k * groups * sizeof(float) + groups * f.b_entry_bytes + 2 * tile_rows * f.row_entry_bytes;
}

// Lanes: as many words of groups side by side as shared memory holds the taps of (up to 32, and all
// of them where they fit): a tile's row entries cost as much as several taps' products and are made
// once per block, so the more groups a block serves, the less they cost per product (MobileNet's
// 144 channels with a 3x3 filter: 35% of the instructions with 6 words per row). Among the counts
// from half the largest that fits to it, the one that leaves the fewest idle lanes in the last block,
// the most lanes on a tie. 0 where none fits.
constexpr int depthwise_lanes(const depthwise_facts& f) {
  const index_t words = (f.groups + f.group_word - 1) / f.group_word;
  int most = 0;
  for (int l = 1; l <= depthwise_max_lanes && l <= words; ++l)
    if (depthwise_smem(f, l) <= depthwise_smem_limit) most = l;
  int best = most;
  index_t best_idle = most > 0 ? (words + most - 1) / most * most - words : 0;
  for (int l = most - 1; l > 0 && 2 * l >= most; --l) {
    const index_t idle = (words + l - 1) / l * l - words;
    if (depthwise_smem(f, l) <= depthwise_smem_limit && idle < best_idle) best = l, best_idle = idle;
  }
  return best;
}

constexpr depthwise_plan choose_depthwise(const depthwise_facts& f) {
  depthwise_plan p;
  if (f.max_n != 1) return p.why = "more than one column per group", p;
  if (f.groups < f.group_word) return p.why = "fewer groups than a 16-byte word holds", p;
  if (f.max_m == 0) return p.why = "no rows", p;
  if (!f.unit_groups) return p.why = "groups not one element apart", p;
  p.lanes = depthwise_lanes(f);
  if (p.lanes == 0) return p.why = "filter too large for shared memory", p;
  p.tile_rows = depthwise_slots(p.lanes) * f.rows_per_thread;
  p.smem = depthwise_smem(f, p.lanes);
  p.ok = true;
  return p;
}

// unit_groups of a view, remembered per descriptor: it walks every group (a microsecond per hundred on
// the host), and a training step asks about the same layers every step.
template <class View>
bool unit_groups_remembered(const View& v) {
  using D = typename View::desc_type;
  if constexpr (!std::is_trivially_copyable_v<D>) {
    return unit_groups(v);
  } else {
    static std::mutex lock;
    static std::unordered_map<std::string, bool> seen;
    std::string key(sizeof(D), '\0');
    std::memcpy(key.data(), &v.desc, sizeof(D));  // equal bytes are equal descriptors
    std::lock_guard<std::mutex> hold(lock);
    const auto it = seen.find(key);
    if (it != seen.end()) return it->second;
    const bool u = unit_groups(v);
    if (seen.size() < 4096) seen.emplace(std::move(key), u);
    return u;
  }
}

// Rows per thread: 4, but 2 for views with three guards (3-d), whose row entries spilled with 4 under
// two blocks per SM (ptxas: 64 bytes).
template <class A>
constexpr int depthwise_rows = affine_split<A>::n_guards <= 2 ? 4 : 2;

// The views the pipeline can take, from their types: A's rows and C's stores come from their
// affine-split entries, and B is staged whole in shared memory, so it must be a filter: a B with padding
// guards is an activation's im2col (backward weight's x, K = every output position), which never fits,
// and instantiating the kernel for it cost compile time for nothing (AMD: +30% per unit).
template <class Batch>
constexpr bool depthwise_views_ok() {
  using V = decltype(std::declval<Batch>().views(0));
  return affine_split<decltype(V::a)>::on && affine_split<decltype(V::c)>::on && affine_split<decltype(V::b)>::n_guards == 0;
}

// The batch's facts for choose_depthwise, each GEMM's views built once (a col2im class's take a
// microsecond on the host, inside every call): it stops at the first GEMM of more than one column or
// too few groups (choose_depthwise refuses those whatever the rest), and asks unit_groups only where
// the cheaper facts pass.
template <class Batch>
depthwise_facts depthwise_facts_of(const Batch& batch) {
  using V = decltype(batch.views(0));
  depthwise_facts f;
  f.group_word = 16 / static_cast<int>(sizeof(std::remove_const_t<typename decltype(V::a)::value_type>));
  f.entry_bytes = sizeof(typename affine_split<decltype(V::a)>::entry);
  f.row_entry_bytes = f.entry_bytes + sizeof(typename affine_split<decltype(V::c)>::entry);
  f.b_entry_bytes = sizeof(typename affine_split<decltype(V::b)>::entry);
  f.rows_per_thread = depthwise_rows<decltype(V::a)>;
  f.unit_groups = true;
  for (index_t t = 0; t < batch.count(); ++t) {
    const auto v = batch.views(t);
    f.groups = v.groups();
    f.max_m = v.m() > f.max_m ? v.m() : f.max_m;
    f.max_n = v.n() > f.max_n ? v.n() : f.max_n;
    f.max_k = v.k() > f.max_k ? v.k() : f.max_k;
    if (f.max_n != 1 || f.groups < f.group_word) return f.unit_groups = false, f;
    f.unit_groups = f.unit_groups && unit_groups_remembered(v.a) && unit_groups_remembered(v.c);
  }
  return f;
}

}  // namespace tg
