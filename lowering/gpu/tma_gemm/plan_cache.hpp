// Plans of GEMM batches already seen (host only, no CUDA types: host-tested). A training step calls the
// same layers with the same shapes every step, and planning a batch (the search over tile extents of
// boxes.hpp, per GEMM of the batch) costs microseconds per GEMM of host time inside every call. A plan
// depends on the tile, the views' numbers (boxes.hpp's view_digits of A, B and C) and the views'
// types: the key is the views' descriptors (their bytes, or their digits where the bytes are not plain
// numbers), and each instantiation (tile, batch type) has its own cache. The pointers are not in the
// key: the launch checks their alignment on every call.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <type_traits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>
#include "lowering/gpu/tma_gemm/class_plan.hpp"

namespace tg::tma_gemm {
// A batch's plans: one per GEMM (empty GEMMs: a default plan), the shared orientation (-1 where no GEMM
// reads its operands) and, where the batch cannot take the pipeline, why.
struct batch_plan {
  bool ok = false;
  std::string why;
  int orient = -1;
  class_plan plans[max_classes];
};

namespace detail {
inline void put_digits(std::vector<long long>& k, const boxes::view_digits& d) {
  for (int dim = 0; dim < 3; ++dim) {
    k.push_back(d.count[dim]);
    for (int p = 0; p < d.count[dim] && p < boxes::max_digits; ++p) {
      k.push_back(d.length[dim][p]), k.push_back(d.off[dim][p]);
      for (int i = 0; i < d.n_guards; ++i) k.push_back(d.guard[dim][p][i]);
    }
  }
  k.push_back(d.n_guards), k.push_back(d.off0);
  for (int i = 0; i < d.n_guards; ++i) k.push_back(d.guard0[i]), k.push_back(d.first[i]), k.push_back(d.span[i]);
}
struct key_hash {
  std::size_t operator()(const std::vector<long long>& k) const {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the words
    for (long long w : k) h = (h ^ static_cast<std::uint64_t>(w)) * 1099511628211ull;
    return static_cast<std::size_t>(h);
  }
};
}  // namespace detail

// A batch's views, made once per call (a col2im class's views take a microsecond or more to build on
// the host; the launch reads them several times).
template <class Batch>
std::vector<decltype(std::declval<Batch>().views(0))> views_of(const Batch& batch) {
  std::vector<decltype(batch.views(0))> v;
  v.reserve(static_cast<std::size_t>(batch.count()));
  for (index_t t = 0; t < batch.count(); ++t) v.push_back(batch.views(t));
  return v;
}

// Plans every GEMM of the batch (its views vs) for BM x BN x BK tiles, from the views alone; false with
// the reason where one cannot take the pipeline.
template <int BM, int BN, bool Transposed = false, halo_kind H = halo_kind::none, int BK = boxes::swizzle_elems, class V>
batch_plan plan_views(const std::vector<V>& vs) {
  batch_plan r;
  auto fail = [&](std::string w) { r.ok = false, r.why = std::move(w); return r; };
  if (vs.size() > static_cast<std::size_t>(max_classes)) return fail("more than " + std::to_string(max_classes) + " GEMMs in the batch");
  for (std::size_t t = 0; t < vs.size(); ++t) {
    const V& v = vs[t];
    if (v.m() == 0 || v.n() == 0) continue;  // no units
    r.plans[t] = plan_class<BM, BN, Transposed, H, BK>(v);
    if (!r.plans[t].ok) return fail(r.plans[t].why);
    // A transposed plan is worth it only where its tiles' rows (the view's N, in boxes: a filter tap's
    // channels are one box) are at least half real; M in a 128-row tile would be half padding anyway.
    if (Transposed && 2 * v.n() <= r.plans[t].m.count * BM) return fail("the transposed tiles would be mostly padding");
    if (!r.plans[t].has_k) continue;
    const int o = r.plans[t].a_mn * 2 + r.plans[t].b_mn;
    if (r.orient >= 0 && o != r.orient) return fail("the batch's GEMMs differ in operand orientation");
    r.orient = o;
  }
  if (r.orient == 2) return fail("MN-major A with K-major B (not instantiated)");
  r.ok = true;
  return r;
}
template <int BM, int BN, class Batch>
batch_plan plan_views(const Batch& batch) {
  return plan_views<BM, BN>(views_of(batch));
}

// Whether views of type V are keyed by their descriptors' bytes: descriptors of plain numbers (no
// padding bits, no pointers: equal bytes are equal descriptors), from which every number of the plan
// follows. Hashing their bytes costs a fraction of working out the digits again (a 4-class backward
// data: 0.4 against 2.9 us per call, tools/host_plan_bench.cpp).
template <class D>
constexpr bool plain_numbers = std::is_trivially_copyable_v<D> && std::has_unique_object_representations_v<D>;
template <class V>
constexpr bool keyed_by_bytes = plain_numbers<decltype(V::a.desc)> && plain_numbers<decltype(V::b.desc)> && plain_numbers<decltype(V::c.desc)>;

namespace detail {
template <class D>
void put_bytes(std::vector<long long>& k, const D& d) {
  const std::size_t at = k.size();
  k.resize(at + (sizeof(D) + sizeof(long long) - 1) / sizeof(long long), 0);
  std::memcpy(k.data() + at, &d, sizeof(D));
}
}  // namespace detail

// The cache key of a batch's views: their descriptors' bytes where they are plain numbers, else the
// GEMMs' sizes and view digits (none where a view is not an affine split, which plan_class refuses by
// its type alone).
template <class V>
std::vector<long long> plan_key(const std::vector<V>& vs) {
  std::vector<long long> k;
  if constexpr (keyed_by_bytes<V>) {
    k.reserve(1 + vs.size() * ((sizeof(V::a.desc) + sizeof(V::b.desc) + sizeof(V::c.desc)) / sizeof(long long) + 3));
    k.push_back(static_cast<long long>(vs.size()));
    for (const V& v : vs) detail::put_bytes(k, v.a.desc), detail::put_bytes(k, v.b.desc), detail::put_bytes(k, v.c.desc);
  } else {
    k.reserve(vs.size() * 160 + 1);
    k.push_back(static_cast<long long>(vs.size()));
    for (const V& v : vs) {
      k.push_back(v.groups()), k.push_back(v.m()), k.push_back(v.n()), k.push_back(v.k());
      if constexpr (affine_split<decltype(v.a)>::on && affine_split<decltype(v.b)>::on && affine_split<decltype(v.c)>::on) {
        detail::put_digits(k, boxes::digits_of(v.a));
        detail::put_digits(k, boxes::digits_of(v.b));
        detail::put_digits(k, boxes::digits_of(v.c));
      }
    }
  }
  return k;
}
template <class Batch>
std::vector<long long> plan_key(const Batch& batch) {
  return plan_key(views_of(batch));
}

// Counts of a cache's lookups, for tests and the host benchmark.
struct plan_cache_stats {
  long long hits = 0, misses = 0;
};

// A memo of values per shape key (plan_key): at most 256 entries, cleared when full (a program that
// cycles through more shapes than that plans again, as without it); the value is made outside the lock.
template <class Value>
class shape_cache {
 public:
  template <class Make>
  Value get(std::vector<long long> key, Make&& make, plan_cache_stats* stats = nullptr) {
    {
      std::lock_guard<std::mutex> lock(m_);
      if (const auto it = map_.find(key); it != map_.end()) {
        ++counts_.hits;
        if (stats) *stats = counts_;
        return it->second;
      }
    }
    Value v = make();
    std::lock_guard<std::mutex> lock(m_);
    ++counts_.misses;
    if (stats) *stats = counts_;
    if (map_.size() >= 256) map_.clear();
    map_.emplace(std::move(key), v);
    return v;  // a copy: another thread may clear the map
  }

 private:
  std::mutex m_;
  std::unordered_map<std::vector<long long>, Value, detail::key_hash> map_;
  plan_cache_stats counts_;
};

// plan_views through a per-(tile, transposed, halo kind, views type) shape_cache.
template <int BM, int BN, bool Transposed = false, halo_kind H = halo_kind::none, int BK = boxes::swizzle_elems, class V>
batch_plan plan_views_cached(const std::vector<V>& vs, plan_cache_stats* stats = nullptr) {
  static shape_cache<batch_plan> cache;
  return cache.get(plan_key(vs), [&] { return plan_views<BM, BN, Transposed, H, BK>(vs); }, stats);
}
template <int BM, int BN, class Batch>
batch_plan plan_views_cached(const Batch& batch, plan_cache_stats* stats = nullptr) {
  return plan_views_cached<BM, BN>(views_of(batch), stats);
}
}  // namespace tg::tma_gemm
