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
  std::size_t entry_bytes = 0;                           // one k entry of A (affine_split::entry)
  bool unit_groups = false;                              // A's and C's groups one element apart, every GEMM
};

struct depthwise_plan {
  bool ok = false;
  const char* why = "";
  int lanes = 0;         // group words side by side per row of a block
  std::size_t smem = 0;  // A's k entries, then the block's filter taps as floats
};

constexpr int depthwise_max_lanes = 8;                    // 128 bytes of groups per row: one line
constexpr std::size_t depthwise_smem_limit = 48 * 1024;  // without opting in to more

// Lanes: 4 to 8 words of groups side by side (fewer where there are fewer words), the count that
// leaves the fewest idle lanes in the last block (MobileNet's 144 fp16 channels: 18 words, 6 lanes
// and 3 blocks instead of 8 lanes with 6 idle), the most lanes on a tie.
constexpr int depthwise_lanes(index_t words) {
  if (words <= depthwise_max_lanes) return static_cast<int>(words);
  int best = depthwise_max_lanes;
  index_t best_idle = (words + best - 1) / best * best - words;
  for (int l = depthwise_max_lanes - 1; l >= 4; --l) {
    const index_t idle = (words + l - 1) / l * l - words;
    if (idle < best_idle) best = l, best_idle = idle;
  }
  return best;
}

constexpr depthwise_plan choose_depthwise(const depthwise_facts& f) {
  depthwise_plan p;
  if (f.max_n != 1) return p.why = "more than one column per group", p;
  if (f.groups < f.group_word) return p.why = "fewer groups than a 16-byte word holds", p;
  if (f.max_m == 0) return p.why = "no rows", p;
  if (!f.unit_groups) return p.why = "groups not one element apart", p;
  p.lanes = depthwise_lanes((f.groups + f.group_word - 1) / f.group_word);
  const std::size_t k = static_cast<std::size_t>(f.max_k);
  p.smem = (k * f.entry_bytes + 15) / 16 * 16 + k * static_cast<std::size_t>(p.lanes * f.group_word) * sizeof(float);
  if (p.smem > depthwise_smem_limit) return p.why = "filter too large for shared memory", p;
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

template <class Batch>
constexpr bool depthwise_views_ok() {  // A's rows and C's stores come from their affine-split entries
  using V = decltype(std::declval<Batch>().views(0));
  return affine_split<decltype(V::a)>::on && affine_split<decltype(V::c)>::on;
}

// The batch's facts for choose_depthwise (unit_groups asked only where the cheaper facts pass).
template <class Batch>
depthwise_facts depthwise_facts_of(const Batch& batch) {
  using V = decltype(batch.views(0));
  depthwise_facts f;
  f.group_word = 16 / static_cast<int>(sizeof(std::remove_const_t<typename decltype(V::a)::value_type>));
  f.entry_bytes = sizeof(typename affine_split<decltype(V::a)>::entry);
  for (index_t t = 0; t < batch.count(); ++t) {
    const auto v = batch.views(t);
    f.groups = v.groups();
    f.max_m = v.m() > f.max_m ? v.m() : f.max_m;
    f.max_n = v.n() > f.max_n ? v.n() : f.max_n;
    f.max_k = v.k() > f.max_k ? v.k() : f.max_k;
  }
  if (f.max_n != 1 || f.groups < f.group_word) return f;
  f.unit_groups = true;
  for (index_t t = 0; t < batch.count() && f.unit_groups; ++t) {
    const auto v = batch.views(t);
    f.unit_groups = unit_groups_remembered(v.a) && unit_groups_remembered(v.c);
  }
  return f;
}

}  // namespace tg
