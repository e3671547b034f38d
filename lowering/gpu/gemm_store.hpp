// The cp.async GEMM's epilogue: the accumulators to C. A plain store (one split, the common case)
// stages the tile in shared memory and drains it in 16-byte runs (gemm_drain.hpp); accumulation and
// split-K go element by element from the fragments (deterministic splits: their partial sums to the
// workspace; atomic: added into fp32 C).
#pragma once
#include "lowering/gpu/gemm_setup.hpp"

namespace tg {
namespace gpu_gemm {
template <class Policy, int Threads, class Plan, class V, class Consumer>
__device__ __forceinline__ void store_c(const V& v, const gemm_epilogue& ep, const launch_args& la, unsigned char* smem, const Consumer& mma,
                               const typename Consumer::accumulators& acc, bool c_rows_fast, index_t g, int s, index_t m0, index_t n0,
                               index_t M, index_t N, index_t G, int tid) {
  using Atom = typename Consumer::Atom;
  using SC = typename Plan::SC;
  using EC = typename SC::entry;
  using EOut = elem_t<decltype(V::c)>;
  constexpr int BM = Policy::BM, BN = Policy::BN, TM = Consumer::TM, TN = Consumer::TN, VC = 16 / sizeof(EOut);
  const int lane = tid % Atom::lanes;
  // The C tile's row and column entries, tabulated once.
  EC* const c_rows = reinterpret_cast<EC*>(smem + Plan::c_rows);
  EC* const c_cols = reinterpret_cast<EC*>(smem + Plan::c_cols);
  if constexpr (SC::on) {
    tabulate<BM, VC>(c_rows, v.c, g, 1, m0, tid, Threads);
    tabulate<BN, VC>(c_cols, v.c, g, 2, n0, tid, Threads);
  }
  const auto c_frag = arch::fragment_distribution<Atom>::c();
  if constexpr (SC::on) {
    if (la.splits == 1 && ep.op == epilogue_op::store) {
      EOut* const ct = reinterpret_cast<EOut*>(smem + Plan::c_tile);
      const auto c_rc = smem_tile_desc<BM, BN, EOut>();
      const auto c_cr = reorder(smem_tile_desc<BN, BM, EOut>(), seq<1, 0>{});
      auto stage = [&](const auto& tile) {
        TG_UNROLL for (int i = 0; i < TM; ++i)
          TG_UNROLL for (int j = 0; j < TN; ++j)
            TG_UNROLL for (int e = 0; e < Atom::c_per_lane; ++e) {
              const auto rc = c_frag.coord(lane, e);
              const int mm = mma.row(i) + static_cast<int>(rc[0]), nn = mma.col(j) + static_cast<int>(rc[1]);
              ct[tile.offset({{mm, nn}})] = arch::cvt_from_float<EOut>(ep.alpha * acc[i][j][e]);
            }
      };
      if (c_rows_fast) stage(c_cr); else stage(c_rc);
      __syncthreads();
      const auto cols = column_tile<BN, Threads, decltype(V::c)>(c_cols, n0, N, tid);
      if (cols.uniform) {
        if (c_rows_fast) drain_uniform<true, BM, BN, Threads>(ct, c_cr, v.c, m0, M, la.c.vectors, tid, c_rows, cols);
        else drain_uniform<false, BM, BN, Threads>(ct, c_rc, v.c, m0, M, la.c.vectors, tid, c_rows, cols);
        return;
      }
      if (c_rows_fast) drain_tile<true, BM, BN, Threads>(ct, c_cr, v.c, m0, M, n0, N, la.c.vectors, tid, c_rows, c_cols);
      else drain_tile<false, BM, BN, Threads>(ct, c_rc, v.c, m0, M, n0, N, la.c.vectors, tid, c_rows, c_cols);
      return;
    }
    __syncthreads();
  }
  TG_UNROLL for (int i = 0; i < TM; ++i)
    TG_UNROLL for (int j = 0; j < TN; ++j)
      TG_UNROLL for (int e = 0; e < Atom::c_per_lane; ++e) {
        const auto rc = c_frag.coord(lane, e);
        const int mm = mma.row(i) + static_cast<int>(rc[0]), nn = mma.col(j) + static_cast<int>(rc[1]);
        const index_t m = m0 + mm, n = n0 + nn;
        if (m >= M || n >= N) continue;
        if (la.splits > 1 && la.mode == split_k_mode::deterministic) {
          la.workspace[((s * G + g) * M + m) * N + n] = acc[i][j][e];
          continue;
        }
        index_t off = -1;  // the element's offset in C, -1 where it is not stored (padding)
        if constexpr (SC::on) {
          off = affine_offset(v.c, c_rows[mm], c_cols[nn]);
        } else {
          const multi_index<3> c{{g, m, n}};
          if (v.c.desc.is_valid(c)) off = v.c.desc.offset(c);
        }
        if (off < 0) continue;
        if (la.splits == 1) {
          const float old = ep.op == epilogue_op::accumulate ? arch::cvt_to_float(v.c.data[off]) : 0.0f;
          v.c.data[off] = arch::cvt_from_float<EOut>(ep.apply(acc[i][j][e], old));
        } else if constexpr (std::is_same_v<EOut, float>) {
          arch::atomic_add(&v.c.data[off], ep.alpha * acc[i][j][e]);
        }
      }
}
}  // namespace gpu_gemm
}  // namespace tg
