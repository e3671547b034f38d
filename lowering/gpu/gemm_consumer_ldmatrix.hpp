// The cp.async GEMM's consumer for NVIDIA's 16-bit atoms (m16n8k16, sm_80 on): fragments straight
// from the shared tiles by ldmatrix, then mma.sync. The policy's warp grid: each warp a WM x WN tile
// of TM x TN atoms.
#pragma once
#include "lowering/gpu/gemm_setup.hpp"

namespace tg {
namespace gpu_gemm {
template <class Policy, class E, int Threads>
struct ldmatrix_consumer;

#if defined(TG_NV_LDMATRIX)
template <class Policy, class E, int Threads>
struct ldmatrix_consumer {
  using Atom = arch::default_atom<E>;
  static constexpr int BM = Policy::BM, BN = Policy::BN, BK = Policy::BK;
  static constexpr int WM = BM / Policy::WarpsM, WN = BN / Policy::WarpsN;  // warp tile
  static constexpr int TM = WM / Atom::M, TN = WN / Atom::N, KS = BK / Atom::K;
  static constexpr bool async = false;
  static_assert(WM % Atom::M == 0 && WN % Atom::N == 0 && BK % Atom::K == 0, "tile must be a multiple of the atom");
  static_assert(TN % 2 == 0, "ldmatrix reads B fragments in pairs of atoms");
  using accumulators = float[TM][TN][Atom::c_per_lane];

  int wm, wn;
  bool a_rows_fast, b_rows_fast;
  // Each lane's ldmatrix addresses within a stage, worked out once (the swizzled tile's index
  // arithmetic stays out of the main loop). Lane l addresses row l % 8 of 8x8 tile l / 8. A: tiles
  // (rows +0/+8) x (k +0/+8), the four registers of an m16k16 fragment; B: tiles (k +0/+8) x
  // (n +0/+8), two n8 fragments.
  int a_ld[TM][KS], b_ld[TN / 2][KS];

  __device__ static void check_shared(const unsigned char*) {}
  __device__ ldmatrix_consumer(int tid, bool a_rows_fast_, bool b_rows_fast_)
      : wm(tid / Atom::lanes / Policy::WarpsN), wn(tid / Atom::lanes % Policy::WarpsN), a_rows_fast(a_rows_fast_), b_rows_fast(b_rows_fast_) {
    const auto a_rk = smem_tile_desc<BM, BK, E>();
    const auto a_kr = reorder(smem_tile_desc<BK, BM, E>(), seq<1, 0>{});
    const auto b_rk = smem_tile_desc<BN, BK, E>();
    const auto b_kr = reorder(smem_tile_desc<BK, BN, E>(), seq<1, 0>{});
    const int lane = tid % Atom::lanes, q = lane / 8, i8 = lane % 8;
    TG_UNROLL for (int ks = 0; ks < KS; ++ks) {
      TG_UNROLL for (int i = 0; i < TM; ++i) {
        const int r = wm * WM + i * Atom::M + (q & 1) * 8, k = ks * Atom::K + (q >> 1) * 8;
        a_ld[i][ks] = static_cast<int>(a_rows_fast ? a_kr.offset({{r, k + i8}}) : a_rk.offset({{r + i8, k}}));
      }
      TG_UNROLL for (int j = 0; j < TN; j += 2) {
        const int n = wn * WN + j * Atom::N + (q >> 1) * 8, k = ks * Atom::K + (q & 1) * 8;
        b_ld[j / 2][ks] = static_cast<int>(b_rows_fast ? b_kr.offset({{n, k + i8}}) : b_rk.offset({{n + i8, k}}));
      }
    }
  }
  // The tile row and column of accumulator block (i, j).
  __device__ int row(int i) const { return wm * WM + i * Atom::M; }
  __device__ int col(int j) const { return wn * WN + j * Atom::N; }
  template <int Pending>
  __device__ __forceinline__ void wait(accumulators&) const {}  // mma.sync is synchronous

  // The k-tile in shared tiles a and b.
  __device__ __forceinline__ void multiply(accumulators& acc, const E* a, const E* b) const {
    TG_UNROLL for (int ks = 0; ks < BK; ks += Atom::K) {
      std::uint32_t fa[TM][4], fb[TN][2];
      TG_UNROLL for (int i = 0; i < TM; ++i) {
        if (a_rows_fast) arch::ldmatrix_x4<true>(fa[i], a + a_ld[i][ks / Atom::K]);
        else arch::ldmatrix_x4<false>(fa[i], a + a_ld[i][ks / Atom::K]);
      }
      TG_UNROLL for (int j = 0; j < TN; j += 2) {
        std::uint32_t r4[4];
        if (b_rows_fast) arch::ldmatrix_x4<true>(r4, b + b_ld[j / 2][ks / Atom::K]);
        else arch::ldmatrix_x4<false>(r4, b + b_ld[j / 2][ks / Atom::K]);
        fb[j][0] = r4[0]; fb[j][1] = r4[1]; fb[j + 1][0] = r4[2]; fb[j + 1][1] = r4[3];
      }
      TG_UNROLL for (int i = 0; i < TM; ++i)
        TG_UNROLL for (int j = 0; j < TN; ++j) Atom::mma(acc[i][j], fa[i], fb[j]);
    }
  }
  __device__ static void before_barrier() {}
};
#endif
}  // namespace gpu_gemm
}  // namespace tg
