// The cp.async GEMM kernel's set-up: its launch arguments, threads per block and launch bounds, the
// per-target choices of how fragments reach the matrix cores, and the block's shared-memory plan.
#pragma once
#include "arch/codegen.hpp"
#include "lowering/gpu/gemm_drain.hpp"

namespace tg {
namespace gpu_gemm {
struct launch_args {
  int splits;
  operand_mode a, b, c;
  const void *a_ks, *b_ks;  // the k entries of A and B, [batch][k_stride] (k_entries_kernel)
  const void *a_kt, *b_kt;  // their k-tile summaries, [batch][k_stride / BK] (k_tiles_kernel)
  const void* views;        // batch.views(t) for every t (views_kernel)
  index_t k_stride;
  split_k_mode mode;
  float* workspace;         // [splits, G, M, N] partial sums (deterministic split-K)
};

template <class Policy, class Views>
constexpr int threads_of() {
  return Policy::WarpsM * Policy::WarpsN * arch::default_atom<elem_t<decltype(Views::a)>>::lanes;
}

// A variable, not an expression in the attribute: clang HIP sees std::declval in __launch_bounds__ as a
// host call from device code, and HIP's __launch_bounds__ macro splits its argument at commas.
template <class Policy, class Batch>
inline constexpr int threads_of_batch = threads_of<Policy, decltype(std::declval<Batch>().views(0))>();

// Whether shared tiles follow their operand's orientation (else every tile is [rows][k] and
// rows-contiguous operands fill element by element): arch/codegen.hpp's fact (AMD: one fragment path).
inline constexpr bool tile_orientations = arch::gemm_tile_orientations;

// Fragments straight from shared memory by ldmatrix: NVIDIA's 16-bit atoms (m16n8k16).
template <class Atom>
inline constexpr bool ldmatrix_fragments =
#if defined(TG_NV_LDMATRIX)
    Atom::input != arch::atom_input::tf32;
#else
    false;
#endif

// The shared allocation's alignment (arch/codegen.hpp).
inline constexpr int gemm_smem_align = arch::gemm_smem_align;

// Fragments never in registers: wgmma (sm_90a, 16-bit atoms) reads both operands from the shared
// tiles, each warpgroup (4 warps) multiplying 64-row slices of its share of the block's rows by all BN
// columns. Needs whole warpgroups, BM a multiple of 64 per warpgroup, BN a wgmma width (64, 128).
template <class Atom, class Policy, int Threads>
inline constexpr bool wgmma_tile =
#if defined(TG_NV_WGMMA)
    Atom::input != arch::atom_input::tf32 && Threads % 128 == 0 && Policy::BM % (64 * (Threads / 128)) == 0 &&
    (Policy::BN == 64 || Policy::BN == 128) && (Policy::BK == 16 || Policy::BK == 32 || Policy::BK == 64);  // K-major rows: one swizzle width
#else
    false;
#endif

// Whether the GEMM blocks copy their views from views_kernel's table (batches of col2im classes)
// instead of building them.
template <class Batch>
inline constexpr bool shared_views = !is_single_gemm<Batch>::value;

// Slots of the rings of k entries and of k-tile summaries in shared memory: those of k-tile u are
// copied S-1 tiles before its fill, with the copies of tile u-S+1, so they have landed when the fill
// reads them (one L2 round trip per k-tile off the fill's critical path: the summaries' load right
// before its test took 15% of the stall samples of dense backward weight, performance.md 12). At least 2S-2 slots (a power of two: the
// slot is a mask): the prologue's copies and fills never share a slot, and in the loop the slot
// written was last read before the barrier.
template <int S>
inline constexpr int entry_ring = 2 * S - 2 <= 2 ? 2 : 2 * S - 2 <= 4 ? 4 : 8;
static_assert(entry_ring<4> >= 6 && entry_ring<5> >= 8, "the ring holds 2S-2 slots");

// The shared memory of one block, carved from the dynamic allocation: Stages tiles of A and B, the
// affine_split entries of the tile rows, the ring of k entries where the policy has one (made once per
// launch by k_entries_kernel in global memory, copied ahead per k-tile), the ring of k-tile summaries
// (k_tiles_kernel's, likewise), and after the main loop, in the same space, the C tile and the entries of its
// rows and columns; last, for the whole kernel, the block's views where they are shared_views.
template <class Policy, class V, bool Shared>
struct smem_plan {
  using E = elem_t<decltype(V::a)>;
  using SA = affine_split<decltype(V::a)>;
  using SB = affine_split<decltype(V::b)>;
  using SC = affine_split<decltype(V::c)>;
  static constexpr int BM = Policy::BM, BN = Policy::BN, BK = Policy::BK, S = Policy::Stages;
  static constexpr std::size_t ea = sizeof(typename SA::entry), eb = sizeof(typename SB::entry), ec = sizeof(typename SC::entry);
  static constexpr std::size_t a_tiles = 0, b_tiles = a_tiles + sizeof(E) * S * BM * BK, tiles_end = b_tiles + sizeof(E) * S * BN * BK;
  static constexpr std::size_t a_rows = (tiles_end + 15) / 16 * 16, b_rows = a_rows + ea * (SA::on ? BM : 0);
  static constexpr int ring = Policy::entry_ring ? entry_ring<S> : 0;
  static constexpr std::size_t a_ring = (b_rows + eb * (SB::on ? BN : 0) + 15) / 16 * 16, b_ring = a_ring + ea * (SA::on ? ring * BK : 0);
  // k-tile summaries: single GEMMs only (backward weight). Batches (backward data: views in shared
  // memory) measured 4-8% slower with the ring (performance.md 12) and keep the global reads.
  static constexpr int kt_ring = (SA::on || SB::on) && !Shared ? entry_ring<S> : 0;
  using TA = typename SA::k_tile;
  using TB = typename SB::k_tile;
  static constexpr std::size_t a_kts = (b_ring + eb * (SB::on ? ring * BK : 0) + 15) / 16 * 16;
  static constexpr std::size_t b_kts = a_kts + sizeof(TA) * (SA::on ? kt_ring : 0);
  static constexpr std::size_t tables_end = b_kts + sizeof(TB) * (SB::on ? kt_ring : 0);
  using EOut = elem_t<decltype(V::c)>;
  static constexpr std::size_t c_tile = 0, c_rows = (sizeof(EOut) * BM * BN + 15) / 16 * 16, c_cols = c_rows + ec * (SC::on ? BM : 0);
  static constexpr std::size_t c_end = c_cols + ec * (SC::on ? BN : 0);
  static_assert(c_end <= tables_end, "the C tile and its entries reuse the operand tiles' space");
  static constexpr std::size_t views = (tables_end + 15) / 16 * 16;  // the block's views (shared_views)
  static constexpr std::size_t bytes = views + (Shared ? sizeof(V) : 0);
};
}  // namespace gpu_gemm
}  // namespace tg
