// row_sums_then_affine in one pass on the GPU: a block owns a group of rows (groupnorm's (n, group)),
// copies its u and v into shared memory while summing them, one thread turns the group's sums into
// its rows' coefficients, and the block writes out = a * v + b * u + c from shared memory. x and dy
// cross the memory bus once where the three-kernel form (row_sums, for_each, row_affine) reads them
// twice: 3 tensor passes instead of 5. Taken where the plan (group_rows_plan.hpp) fits a group in a
// block's shared memory and there are at least as many groups as multiprocessors; the three kernels
// otherwise. TG_GROUP_ROWS=0 turns it off (for A/B runs).
#pragma once
#include <cstdlib>
#include <cstring>
#include <string>
#include "arch/async_copy.hpp"
#include "lowering/gpu/group_rows_plan.hpp"
#include "lowering/gpu/path_report.hpp"
#include "lowering/gpu/row_reduce.hpp"

namespace tg {
namespace gpu_group_rows {
// 256 threads, at most 128 registers each: two blocks per multiprocessor where two groups fit in shared
// memory, so that one block's loads overlap the other's sums and stores.
constexpr int threads = 256;
constexpr int unroll = 8;  // single-element loads in flight per thread and tensor (words: all of a group's at once)

template <class T, int V>
__device__ inline gpu_fast::pack<T, V> load_vec(const T* p) {
  if constexpr (V == 1) return {{p[0]}}; else return gpu_fast::load_pack<T, V>(p);
}
template <class T, int V>
__device__ inline void store_vec(T* p, const gpu_fast::pack<T, V>& x) {
  if constexpr (V == 1) p[0] = x.v[0]; else gpu_fast::store_pack<T, V>(p, x);
}

// One block walks groups blockIdx.x, + gridDim.x, ...; per group: (1) each thread copies its steps of
// its line(s) to shared memory and keeps their sums, (2) row r adds its line's partials in member
// order, (3) thread 0 calls f on the group's sums and coefficients in shared memory (no round trip
// through global memory between the passes), (4) each thread writes its steps from shared memory.
// Barriers between the phases only: a thread reads back the elements it stored itself.
template <class T, int V, bool Interleaved, class F>
__global__ void __launch_bounds__(threads, 2) group_rows_kernel(group_rows_plan plan, T* out, const T* u, const T* v, float* dot, float* sum, F f) {
  extern __shared__ __align__(16) unsigned char group_smem[];
  group_rows_plan p = plan;
  p.interleaved = Interleaved;  // known here: the plan's arithmetic folds
  p.vec = V;
  constexpr int S = Interleaved ? V : 1;  // rows a line's step touches
  T* su = reinterpret_cast<T*>(group_smem);
  T* sv = reinterpret_cast<T*>(group_smem + p.data_bytes);
  float* pd = reinterpret_cast<float*>(group_smem + 2 * p.data_bytes);
  float* ps = pd + p.partials();
  float *sd = ps + p.partials(), *ss = sd + p.rows, *ka_s = ss + p.rows, *kb_s = ka_s + p.rows, *kc_s = kb_s + p.rows;
  const int t = threadIdx.x, slot = p.slot_of(t), member = p.member_of(t);
  const bool active = t < p.slots * p.team;
  for (int q = blockIdx.x; q < p.groups; q += gridDim.x) {
    const int base = p.base(q), row0 = q * p.rows;
    if (active) {
      if constexpr (V > 1) {
        // 16-byte words: every step of the thread's lines in flight at once, copied to shared memory
        // without holding registers (cp.async; AMD copies through registers), then summed from there.
        for (int j = slot; j < p.teams; j += p.slots)
          for (int w = member; w < p.walk; w += p.team) {
            arch::copy16_async(su + p.smem_index(j, w), u + base + p.offset(j, w), true);
            arch::copy16_async(sv + p.smem_index(j, w), v + base + p.offset(j, w), true);
          }
        arch::async_commit();
        arch::async_wait<0>();  // the thread's own copies: it alone reads them
        for (int j = slot; j < p.teams; j += p.slots) {
          float d[S] = {}, s[S] = {};
          for (int w = member; w < p.walk; w += p.team) {
            const auto uu = load_vec<T, V>(su + p.smem_index(j, w)), vv = load_vec<T, V>(sv + p.smem_index(j, w));
            TG_UNROLL for (int e = 0; e < V; ++e) {
              const float y = arch::cvt_to_float(vv.v[e]);
              d[Interleaved ? e : 0] += arch::cvt_to_float(uu.v[e]) * y;
              s[Interleaved ? e : 0] += y;
            }
          }
          TG_UNROLL for (int e = 0; e < S; ++e) { pd[p.partial_index(j, member, e)] = d[e]; ps[p.partial_index(j, member, e)] = s[e]; }
        }
      } else {
        // Single elements (cp.async moves 4 bytes and more): through registers, `unroll` steps in flight.
        for (int j = slot; j < p.teams; j += p.slots) {
          float d[S] = {}, s[S] = {};
          for (int w0 = member; w0 < p.walk; w0 += unroll * p.team) {
            T uu[unroll], vv[unroll];
            TG_UNROLL for (int i = 0; i < unroll; ++i) {
              const int w = w0 + i * p.team;
              if (w < p.walk) { uu[i] = u[base + p.offset(j, w)]; vv[i] = v[base + p.offset(j, w)]; }
            }
            TG_UNROLL for (int i = 0; i < unroll; ++i) {
              const int w = w0 + i * p.team;
              if (w >= p.walk) continue;
              su[p.smem_index(j, w)] = uu[i];
              sv[p.smem_index(j, w)] = vv[i];
              const float y = arch::cvt_to_float(vv[i]);
              d[0] += arch::cvt_to_float(uu[i]) * y;
              s[0] += y;
            }
          }
          pd[p.partial_index(j, member, 0)] = d[0];
          ps[p.partial_index(j, member, 0)] = s[0];
        }
      }
    }
    __syncthreads();
    for (int r = t; r < p.rows; r += threads) {
      const int j = Interleaved ? r / V : r, e = Interleaved ? r % V : 0;
      float a = 0.0f, b = 0.0f;
      for (int m = 0; m < p.team; ++m) { a += pd[p.partial_index(j, m, e)]; b += ps[p.partial_index(j, m, e)]; }
      sd[r] = dot[row0 + r] = a;
      ss[r] = sum[row0 + r] = b;
    }
    __syncthreads();
    if (t == 0) f(static_cast<index_t>(q), sd, ss, ka_s, kb_s, kc_s);
    __syncthreads();
    if (active) {
      for (int j = slot; j < p.teams; j += p.slots) {
        float ka[S], kb[S], kc[S];
        TG_UNROLL for (int e = 0; e < S; ++e) {
          const int r = p.row_of(j, e);
          ka[e] = ka_s[r]; kb[e] = kb_s[r]; kc[e] = kc_s[r];
        }
        for (int w = member; w < p.walk; w += p.team) {
          const auto uu = load_vec<T, V>(su + p.smem_index(j, w)), vv = load_vec<T, V>(sv + p.smem_index(j, w));
          gpu_fast::pack<T, V> o;
          TG_UNROLL for (int e = 0; e < V; ++e) {
            const int c = Interleaved ? e : 0;
            o.v[e] = arch::cvt_from_float<T>(ka[c] * arch::cvt_to_float(vv.v[e]) + kb[c] * arch::cvt_to_float(uu.v[e]) + kc[c]);
          }
          store_vec<T, V>(out + base + p.offset(j, w), o);
        }
      }
    }
    __syncthreads();  // the partials and coefficients are the next group's
  }
}

template <class T, int V, bool Interleaved, class F>
void launch(gpu_backend& be, const group_rows_plan& plan, T* out, const T* u, const T* v, float* dot, float* sum, const F& f) {
  auto kernel = &group_rows_kernel<T, V, Interleaved, F>;
  static std::size_t allowed = 0;  // per instance: the opt-in is set once for the largest group seen
  if (plan.smem > allowed) {
    arch::allow_dynamic_shared(kernel, plan.smem);
    allowed = plan.smem;
  }
  const int resident = arch::resident_blocks(kernel, threads, plan.smem);
  const int most = resident * be.processors();
  group_rows_plan p = plan;
  p.grid = p.groups < most ? p.groups : most;
  TG_LAUNCH(kernel, static_cast<unsigned>(p.grid), threads, p.smem, be.stream, p, out, u, v, dot, sum, f);
}

template <class OutView, class UView, class VView, class F>
bool try_one_pass(gpu_backend& be, const OutView& out, const UView& u, const VView& v, index_t rows, float* dot, float* sum, const F& f) {
  using T = std::remove_const_t<typename OutView::value_type>;
  if constexpr (!gpu_rows::rows3_of<OutView>::on || !gpu_rows::rows3_of<UView>::on || !gpu_rows::rows3_of<VView>::on ||
                !std::is_same_v<std::remove_const_t<typename UView::value_type>, T> || !std::is_same_v<std::remove_const_t<typename VView::value_type>, T>) {
    return false;
  } else {
    static const bool enabled = [] { const char* e = std::getenv("TG_GROUP_ROWS"); return !e || std::strcmp(e, "0") != 0; }();
    const gpu_rows::rows3 g = gpu_rows::rows3_get(out);
    if (!enabled || !gpu_rows::same_rows(g, gpu_rows::rows3_get(u)) || !gpu_rows::same_rows(g, gpu_rows::rows3_get(v)) || rows > g.R0) {
      report_path("rows", enabled ? "three passes: not plain strided rows of one layout" : "three passes: TG_GROUP_ROWS=0");
      return false;
    }
    const bool aligned = gpu_fast::aligned16(out.data) && gpu_fast::aligned16(u.data) && gpu_fast::aligned16(v.data);
    const group_rows_plan plan = plan_group_rows({g.R1, g.R0, g.L, g.s1, g.s0, g.sl}, static_cast<int>(rows), static_cast<int>(sizeof(T)), aligned,
                                                 threads, be.shared_per_block(), be.processors());
    if (!plan.ok) {
      report_path("rows", std::string("three passes (row sums, coefficients, affine): ") + plan.why);
      return false;
    }
    report_path("rows", "one pass: groups of " + std::to_string(rows) + (plan.interleaved ? " interleaved" : " contiguous") + " rows in " +
                            std::to_string(plan.smem / 1024) + " KB of shared memory, " + std::to_string(plan.vec) + "-element accesses");
    constexpr int W = gpu_fast::vec_of<T>;
    if (plan.vec == W) {
      if (plan.interleaved) launch<T, W, true>(be, plan, out.data, u.data, v.data, dot, sum, f);
      else launch<T, W, false>(be, plan, out.data, u.data, v.data, dot, sum, f);
    } else {
      if (plan.interleaved) launch<T, 1, true>(be, plan, out.data, u.data, v.data, dot, sum, f);
      else launch<T, 1, false>(be, plan, out.data, u.data, v.data, dot, sum, f);
    }
    return true;
  }
}
}  // namespace gpu_group_rows

template <class OutView, class UView, class VView, class F>
void row_sums_then_affine(gpu_backend& be, const OutView& out, const UView& u, const VView& v, index_t rows, float* dot, float* sum, const F& f,
                          row_coefficient_arrays k) {
  if (gpu_group_rows::try_one_pass(be, out, u, v, rows, dot, sum, f)) return;
  row_sums(be, u, v, dot, sum);
  for_each(be, v.desc.length(0) / rows, group_step<F>{f, dot, sum, k, rows});
  row_affine(be, out, v, u, k);
}
}  // namespace tg
