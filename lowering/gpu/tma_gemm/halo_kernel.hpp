// The TMA GEMM with A as halos (sm_90a): the same roles as kernel.hpp (a producer thread, two consumer
// warpgroups on wgmma, a persistent walk over tiles, the same epilogue), but A is not a box per k-tile:
// per channel block the producer loads one halo box (the tile's input positions and the filter's
// reach, halo_plan.hpp) into one of two halo stages, and per k-tile (a filter tap) only B's box into
// the k-tile ring. Each consumer reads the tap's A in place: its m64 block's descriptor starts at the
// block's halo row plus the tap's, 8-row groups group_rows apart. A halo stage is released when the
// batch of its channel block's last tap retires. Units are whole tiles (no split-K: its chunks would
// cut channel blocks).
#pragma once
#include "arch/block.hpp"
#include "arch/mbarrier_nvidia.hpp"
#include "arch/tma_nvidia.hpp"
#include "arch/warpgroup_regs_nvidia.hpp"
#include "arch/wgmma_nvidia.hpp"
#include "lowering/gpu/smem_tile.hpp"
#include "lowering/gpu/tma_gemm/consumer.hpp"
#include "lowering/gpu/tma_gemm/epilogue.hpp"
#include "lowering/gpu/tma_gemm/producer.hpp"

namespace tg::tma_gemm {
// Shared memory: the halo stages, the k-tile ring of B, the consumer warps' staging rows of C, then
// the barriers (the ring's full/empty pairs, the halos' full/empty pairs).
template <class E, class P>
struct halo_smem {
  unsigned char* base;  // 1024-byte aligned
  __device__ explicit halo_smem(unsigned char* raw) : base(swizzle_aligned(raw)) {}
  __device__ E* halo(int stage) const { return reinterpret_cast<E*>(base + stage * P::halo_bytes); }
  __device__ E* b(int stage) const { return reinterpret_cast<E*>(base + P::halo_stages * P::halo_bytes + stage * P::stage_bytes); }
  __device__ unsigned char* c_rows(int w) const { return base + P::halo_stages * P::halo_bytes + P::stages * P::stage_bytes + w * P::epi_warp_bytes; }
  __device__ std::uint64_t* full(int stage) const {
    return reinterpret_cast<std::uint64_t*>(base + P::halo_stages * P::halo_bytes + P::stages * P::stage_bytes + P::epi_bytes) + stage;
  }
  __device__ std::uint64_t* empty(int stage) const { return full(P::stages) + stage; }
  __device__ std::uint64_t* halo_full(int stage) const { return full(2 * P::stages) + stage; }
  __device__ std::uint64_t* halo_empty(int stage) const { return full(2 * P::stages + P::halo_stages) + stage; }
};

#if defined(TG_NV_WGMMA)
// A resident B (P::resident: one N tile, one class) is k-tile i in stage i, loaded when the block's
// walk reaches a group whose B is not there (its first unit, and where a run of units crosses into
// the next group). Load l (0, 1, ...) completes phase l of the full barriers; the consumers release
// the stages (the empty barriers' phase l) after the last unit before a reload.
struct resident_b {
  long long group = -1;
  int loads = 0;  // how many times the stages were filled
  // Whether unit k needs B loaded (then counts the load).
  __device__ bool fresh(const work& k) {
    if (k.w.g == group) return false;
    group = k.w.g, ++loads;
    return true;
  }
  __device__ std::uint32_t parity() const { return static_cast<std::uint32_t>(loads - 1) & 1u; }  // of the current load
};

// The producer thread: per channel block a halo, per k-tile (tap) B's boxes (a resident B only where
// resident_b says so).
template <class E, class P>
__device__ inline void produce_halos(const args<1>& a, const halo_smem<E, P>& s) {
  ring<P::stages> r;
  ring<P::halo_stages> hr;
  resident_b rb;
  const unit_walk wk = walk_of(a, blockIdx.x, gridDim.x);
  for (long long u = wk.begin; u < wk.end; u += wk.step) {
    const work k = work_of(a, u);
    const bool load_b = !P::resident || rb.fresh(k);
    const gemm_class& c = *k.c;
    int cm[nd], cn[nd], ck[nd];
    corner(c.m, k.w.tm, cm);
    corner(c.n, k.w.tn, cn);
    corner(c.k, k.kb, ck);
    int tap = 0;
    for (long long kt = k.kb; kt < k.ke; ++kt) {
      if (tap == 0) {  // a new channel block: its halo (the taps' digits do not move it)
        arch::mbarrier_wait(s.halo_empty(hr.stage), hr.phase ^ 1);
        arch::mbarrier_arrive_expect_tx(s.halo_full(hr.stage), static_cast<std::uint32_t>(a.halo.rows) * 128u);
        int xa[rank];
        box_corner(c.a, k.w.g, cm, ck, xa);
        arch::tma_load(s.halo(hr.stage), &c.a.map, s.halo_full(hr.stage), c.a.rank, xa[0], xa[1], xa[2], xa[3], xa[4]);
        hr.advance();
      }
      if (load_b) {
        const int st = P::resident ? static_cast<int>(kt) : r.stage;
        if (!P::resident) arch::mbarrier_wait(s.empty(st), r.phase ^ 1);
        else if (rb.loads > 1) arch::mbarrier_wait(s.empty(st), rb.parity() ^ 1u);  // the previous group's B released
        arch::mbarrier_arrive_expect_tx(s.full(st), P::b_bytes);
        int xb[rank];
        box_corner(c.b, k.w.g, cn, ck, xb);
        load_operand<E, P>(c.b, s.b(st), s.full(st), xb);
      }
      next_k_tile(c.k, ck);  // the taps fastest, the channel block last
      tap = tap + 1 == a.halo.taps ? 0 : tap + 1;
      r.advance();
    }
  }
}

// A consumer warpgroup's tile: acc[b] (rows 64 b.. of its BM/2) = the sum over the unit's k-tiles.
// A resident B's stages are waited for where b_fresh (with parity b_parity), released where b_last.
template <class E, class P, bool BMn>
__device__ inline void consume_halo_tile(const launch_args& a, const halo_smem<E, P>& s, ring<P::stages>& r, ring<P::halo_stages>& hr, long long kb,
                                         long long ke, int wg, float (&acc)[P::row_blocks][P::BN / 8][4], bool b_fresh,
                                         std::uint32_t b_parity, bool b_last) {
  const bool release_b = !P::resident || b_last;
  TG_UNROLL for (int b = 0; b < P::row_blocks; ++b)
    TG_UNROLL for (int j = 0; j < P::BN / 8; ++j) TG_UNROLL for (int e = 0; e < 4; ++e) acc[b][j][e] = 0.0f;
  const std::uint32_t sbo = static_cast<std::uint32_t>(a.halo.group_rows) * 128u;
  int prev = -1, prev_halo = 0, tap = 0;
  bool prev_last = false;  // the previous k-tile was its channel block's last tap: its halo goes back with it
  for (long long kt = kb; kt < ke; ++kt) {
    if (tap == 0) arch::mbarrier_wait(s.halo_full(hr.stage), hr.phase);
    const int bs = P::resident ? static_cast<int>(kt) : r.stage;
    if (!P::resident || b_fresh) arch::mbarrier_wait(s.full(bs), P::resident ? b_parity : r.phase);
    const std::uint32_t h0 = arch::smem_addr(s.halo(hr.stage)) + 128u * static_cast<std::uint32_t>(a.halo.tap_row[tap]);
    const std::uint64_t db = gpu_gemm::wgmma_tile_desc<P::BN, P::BK, E, BMn>(arch::smem_addr(s.b(bs)));
    arch::wgmma_fence();
    TG_UNROLL for (int kk = 0; kk < P::k_steps; ++kk) {
      const std::uint64_t ob = gpu_gemm::wgmma_sub_offset<P::BN, P::BK, E, BMn>(0, kk * P::k_step);
      TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) {
        const std::uint32_t start = h0 + 128u * static_cast<std::uint32_t>(a.halo.block_row[wg * P::row_blocks + b]);
        // A K-major 128-byte-swizzled block: rows 128 bytes apart, groups of 8 sbo apart; k step kk
        // 32 bytes on (the swizzle is of the address bits, so any row may start a block).
        const std::uint64_t da = arch::smem_matrix_desc(start, 16, sbo, arch::smem_swizzle::b128) + 2u * static_cast<std::uint32_t>(kk);
        mma_k_step<E, P::BN, false, BMn>(acc[b], da, db + ob);
      }
    }
    arch::wgmma_commit();
    if (prev >= 0) {  // the previous batch has retired: its stage, and its halo after a channel block's last tap
      arch::wgmma_wait<1>();
      if (release_b) arch::mbarrier_arrive(s.empty(prev));
      if (prev_last) arch::mbarrier_arrive(s.halo_empty(prev_halo));
    }
    prev = bs, prev_halo = hr.stage, prev_last = tap + 1 == a.halo.taps;
    r.advance();
    if (prev_last) tap = 0, hr.advance(); else ++tap;
  }
  arch::wgmma_wait<0>();
  TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) arch::wgmma_pin(acc[b]);
  if (prev >= 0) {
    if (release_b) arch::mbarrier_arrive(s.empty(prev));
    if (prev_last) arch::mbarrier_arrive(s.halo_empty(prev_halo));
  }
}
#endif

template <class E, class P, bool BMn>
__global__ void __launch_bounds__(P::threads, 1) tma_halo_kernel(const __grid_constant__ args<1> a) {
#if defined(TG_NV_WGMMA) && defined(__CUDA_ARCH__)
  extern __shared__ unsigned char raw[];
  const halo_smem<E, P> s(raw);
  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int i = 0; i < P::stages; ++i) arch::mbarrier_init(s.full(i), 1), arch::mbarrier_init(s.empty(i), 128 * P::consumers);
    for (int i = 0; i < P::halo_stages; ++i) arch::mbarrier_init(s.halo_full(i), 1), arch::mbarrier_init(s.halo_empty(i), 128 * P::consumers);
    arch::mbarrier_init_fence();
  }
  __syncthreads();
  if (wg == 0) {
    arch::warpgroup_regs_release<P::producer_regs>();
    if (threadIdx.x == 0) {
      arch::tma_prefetch_map(&a.cls[0].a.map), arch::tma_prefetch_map(&a.cls[0].b.map);
      produce_halos<E, P>(a, s);
    }
  } else {
    arch::warpgroup_regs_take<P::consumer_regs>();
    ring<P::stages> r;
    ring<P::halo_stages> hr;
    resident_b rb;
    const unit_walk wk = walk_of(a, blockIdx.x, gridDim.x);
    for (long long u = wk.begin; u < wk.end; u += wk.step) {
      const work k = work_of(a, u);
      const bool fresh = P::resident && rb.fresh(k);
      const bool last = P::resident && u + wk.step < wk.end && locate(a, u + wk.step).g != k.w.g;  // the next unit reloads B
      float acc[P::row_blocks][P::BN / 8][4];
      consume_halo_tile<E, P, BMn>(a, s, r, hr, k.kb, k.ke, wg - 1, acc, fresh, rb.parity(), last);
      epilogue<E, P>(a, *k.c, k.w, acc, wg - 1, s.c_rows((threadIdx.x - 128) / 32));
    }
    epilogue_done(a);
  }
#elif defined(__CUDA_ARCH__)
  arch::trap();  // a device pass without wgmma (not sm_90a): never launched (launch.hpp checks the image)
#endif
}
}  // namespace tg::tma_gemm
