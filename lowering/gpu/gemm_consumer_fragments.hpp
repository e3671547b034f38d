// The cp.async GEMM's consumer through register fragments: each operand's atom fragments loaded from
// the shared tiles by load_tile with the atom's fragment distribution, then the atom's mma (AMD MFMA;
// NVIDIA's tf32 atom). The policy's warp grid: each warp a WM x WN tile of TM x TN atoms.
#pragma once
#include "lowering/gpu/gemm_setup.hpp"

namespace tg {
namespace gpu_gemm {
template <class Policy, class E, int Threads>
struct fragment_consumer {
  using Atom = arch::default_atom<E>;
  static constexpr int BM = Policy::BM, BN = Policy::BN, BK = Policy::BK;
  static constexpr int WM = BM / Policy::WarpsM, WN = BN / Policy::WarpsN;  // warp tile
  static constexpr int TM = WM / Atom::M, TN = WN / Atom::N;
  static constexpr bool async = false;
  static_assert(WM % Atom::M == 0 && WN % Atom::N == 0 && BK % Atom::K == 0, "tile must be a multiple of the atom");
  using accumulators = float[TM][TN][Atom::c_per_lane];

  int lane, wm, wn;
  bool a_rows_fast, b_rows_fast;

  __device__ static void check_shared(const unsigned char*) {}
  __device__ fragment_consumer(int tid, bool a_rows_fast_, bool b_rows_fast_)
      : lane(tid % Atom::lanes), wm(tid / Atom::lanes / Policy::WarpsN), wn(tid / Atom::lanes % Policy::WarpsN),
        a_rows_fast(a_rows_fast_), b_rows_fast(b_rows_fast_) {}
  // The tile row and column of accumulator block (i, j).
  __device__ int row(int i) const { return wm * WM + i * Atom::M; }
  __device__ int col(int j) const { return wn * WN + j * Atom::N; }
  template <int Pending>
  __device__ __forceinline__ void wait(accumulators&) const {}  // the atoms are synchronous

  // The k-tile in shared tiles a and b, in either orientation (fragments index B as (k, n)).
  __device__ __forceinline__ void multiply(accumulators& acc, const E* a, const E* b) const {
    const auto a_rk = smem_tile_desc<BM, BK, E>();
    const auto a_kr = reorder(smem_tile_desc<BK, BM, E>(), seq<1, 0>{});
    const auto b_rk = smem_tile_desc<BN, BK, E>();
    const auto b_kr = reorder(smem_tile_desc<BK, BN, E>(), seq<1, 0>{});
    const auto a_frag = arch::fragment_distribution<Atom>::a();
    const auto b_frag = arch::fragment_distribution<Atom>::b();
    auto run = [&](const auto& a_smem, const auto& b_smem) {
      TG_UNROLL for (int ks = 0; ks < BK; ks += Atom::K) {
        distributed_tensor<E, Atom::a_per_lane> fa[TM];
        distributed_tensor<E, Atom::b_per_lane> fb[TN];
        TG_UNROLL for (int i = 0; i < TM; ++i) fa[i] = load_tile<Atom::a_per_lane>(make_tile_window(a_smem, {{wm * WM + i * Atom::M, ks}}), a_frag, lane);
        TG_UNROLL for (int j = 0; j < TN; ++j) fb[j] = load_tile<Atom::b_per_lane>(make_tile_window(b_smem, {{ks, wn * WN + j * Atom::N}}), b_frag, lane);
        TG_UNROLL for (int i = 0; i < TM; ++i)
          TG_UNROLL for (int j = 0; j < TN; ++j) arch::mma<Atom>(acc[i][j], fa[i].data, fb[j].data);
      }
    };
    const bool ar = a_rows_fast, br = b_rows_fast;
    if (ar && br) run(make_view(a, a_kr), make_view(b, reorder(b_kr, seq<1, 0>{})));
    else if (ar) run(make_view(a, a_kr), make_view(b, reorder(b_rk, seq<1, 0>{})));
    else if (br) run(make_view(a, a_rk), make_view(b, reorder(b_kr, seq<1, 0>{})));
    else run(make_view(a, a_rk), make_view(b, reorder(b_rk, seq<1, 0>{})));
  }
  __device__ static void before_barrier() {}
};
}  // namespace gpu_gemm
}  // namespace tg
