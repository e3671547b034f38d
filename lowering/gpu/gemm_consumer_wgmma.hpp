// The cp.async GEMM's consumer on sm_90a: wgmma reads both operands from the shared tiles by
// descriptor. Each warpgroup (4 warps) multiplies 64-row slices of its share of the block's rows by
// all BN columns; the accumulators are TM x TN blocks of 16x8 in mma.m16n8's C layout.
#pragma once
#include "lowering/gpu/gemm_setup.hpp"

namespace tg {
namespace gpu_gemm {
template <class Policy, class E, int Threads>
struct wgmma_consumer;

#if defined(TG_NV_WGMMA)
template <class Policy, class E, int Threads>
struct wgmma_consumer {
  using Atom = arch::default_atom<E>;
  static constexpr int BM = Policy::BM, BN = Policy::BN, BK = Policy::BK, WG = Threads / 128;
  static constexpr int TM = BM / (64 * WG), TN = BN / 8;
  // One batch kept in flight across the next k-tile's fill (the stage loop's look-ahead shrinks by one).
  static constexpr bool async = Policy::wgmma_async;
  using accumulators = float[TM][TN][Atom::c_per_lane];
  // Every stage of A and B then starts on a whole swizzle pattern (S stages of A come first).
  static_assert(BM * BK * sizeof(E) % 1024 == 0 && BN * BK * sizeof(E) % 1024 == 0, "wgmma descriptors carry no base offset");

  int warp;
  bool a_rows_fast, b_rows_fast;

  // wgmma descriptors carry no base offset: the allocation must start on a whole swizzle pattern.
  __device__ static void check_shared(const unsigned char* smem) {
    if (arch::smem_addr(smem) % 1024 != 0) arch::trap();
  }
  __device__ wgmma_consumer(int tid, bool a_rows_fast_, bool b_rows_fast_)
      : warp(tid / Atom::lanes), a_rows_fast(a_rows_fast_), b_rows_fast(b_rows_fast_) {}
  // The tile row and column of accumulator block (i, j).
  __device__ int row(int i) const { return (warp / 4) * (BM / WG) + i * 64 + (warp % 4) * 16; }
  __device__ int col(int j) const { return j * 8; }

  // Waits for all but Pending batches, then marks the accumulators as written there.
  template <int Pending>
  __device__ __forceinline__ void wait(accumulators& acc) const {
    arch::wgmma_wait<Pending>();
    TG_UNROLL for (int i = 0; i < TM; ++i) arch::wgmma_pin(acc[i]);
  }
  // The k-tile in shared tiles a and b (async: issued, not waited for). The orientations are
  // immediates of the instruction, so the k-tile's loop is instantiated per orientation pair and chosen
  // once here (a choice per instruction made ptxas add a warpgroup.arrive before each).
  __device__ __forceinline__ void multiply(accumulators& acc, const E* a, const E* b) const {
    const auto a_addr = arch::smem_addr(a), b_addr = arch::smem_addr(b);
    constexpr bool bf16 = Atom::input == arch::atom_input::bf16;
    auto run = [&](auto a_mn, auto b_mn) {
      constexpr bool AMn = decltype(a_mn)::value, BMn = decltype(b_mn)::value;
      // Each descriptor is the tile's plus a constant (wgmma_sub_offset): one add, not ~8 instructions.
      const std::uint64_t a_desc = wgmma_tile_desc<BM, BK, E, AMn>(a_addr) + wgmma_sub_offset<BM, BK, E, AMn>((warp / 4) * (BM / WG), 0);
      const std::uint64_t b_desc = wgmma_tile_desc<BN, BK, E, BMn>(b_addr);
      arch::wgmma_fence();
      TG_UNROLL for (int ks = 0; ks < BK; ks += 16)
        TG_UNROLL for (int i = 0; i < TM; ++i)
          arch::wgmma_m64k16<BN, bf16, AMn, BMn>(acc[i], a_desc + wgmma_sub_offset<BM, BK, E, AMn>(i * 64, ks),
                                                 b_desc + wgmma_sub_offset<BN, BK, E, BMn>(0, ks));
      arch::wgmma_commit();
      if constexpr (!async) wait<0>(acc);
    };
    using yes = std::true_type;
    using no = std::false_type;
    if (a_rows_fast) b_rows_fast ? run(yes{}, yes{}) : run(yes{}, no{});
    else b_rows_fast ? run(no{}, yes{}) : run(no{}, no{});
  }
  // Before the stage loop's barrier: this thread's tile writes, before wgmma reads them.
  __device__ static void before_barrier() { arch::fence_proxy_async_shared(); }
};
#endif
}  // namespace gpu_gemm
}  // namespace tg
