// Where a consumer warpgroup's m64 blocks of A lie in a stage: the wgmma descriptor of block b at k16
// step kk. Boxes (the usual tile): block b is a swizzled 64 x BK tile of its own, 8 KB after the
// previous one. A k-halo (k_halo_plan.hpp): block b is its
// filter tap's window of the stage's one halo box: step kk's 16 positions start at the halo row
// block_row[b] + kk_row[kk], their two groups of 8 sbo_rows apart. A block whose tap lies past the
// filter (the 4th of a 4-tap tile of a 3-tap row) reads the tile's first block's window instead: its
// rows are past M and never stored, and skipping its wgmma would be a divergent branch around wgmma,
// which ptxas serializes (C7520: every wgmma of the kernel waits for the previous one).
#pragma once
#include "arch/wgmma_nvidia.hpp"
#include "lowering/gpu/smem_tile.hpp"
#include "lowering/gpu/tma_gemm/params.hpp"

namespace tg::tma_gemm {
#if defined(TG_NV_WGMMA)
template <class E, class P, bool AMn>
struct a_box_blocks {
  static constexpr int block_bytes = 64 * boxes::swizzle_bytes;
  std::uint32_t first;  // this warpgroup's first block's offset in the stage
  __device__ a_box_blocks(const launch_args&, const gemm_class&, const unit&, int wg) : first(wg * P::row_blocks * block_bytes) {}
  __device__ std::uint64_t desc(std::uint32_t stage, int b, int kk) const {
    using namespace gpu_gemm;
    return wgmma_tile_desc<64, P::BK, E, AMn>(stage + first + b * block_bytes) + wgmma_sub_offset<64, P::BK, E, AMn>(0, kk * P::k_step);
  }
};

template <class E, class P, bool AMn>
struct a_halo_blocks {
  static_assert(AMn && sizeof(E) == 2, "a k-halo is MN-major: 16-bit");
  std::uint64_t base;                   // the descriptor of halo row 0 with the stage address left out
  std::uint32_t block[P::row_blocks];   // descriptor start units (16 bytes) of each block's tap shift
  std::uint32_t step[P::BK / 16];       // ... of each k16 step's first position
  __device__ a_halo_blocks(const launch_args& a, const gemm_class& c, const unit& w, int wg)
      : base(arch::smem_matrix_desc(0, 64 * P::BK * 2, 128u * static_cast<std::uint32_t>(a.k_halo.sbo_rows), arch::smem_swizzle::b128)) {
    int cm[nd];
    corner(c.m, w.tm, cm);
    TG_UNROLL for (int b = 0; b < P::row_blocks; ++b) {
      const int tb = wg * P::row_blocks + b;  // the block's index in the tile: its first row is 64 tb
      long long unused;
      const bool in = local_digits<pow2_rows<P>>(c.m, cm, 64 * tb, c.c_m, unused);  // its tap inside the filter
      block[b] = 8u * static_cast<std::uint32_t>(a.k_halo.block_row[in ? tb : 0]);
    }
    TG_UNROLL for (int kk = 0; kk < P::BK / 16; ++kk) step[kk] = 8u * static_cast<std::uint32_t>(a.k_halo.kk_row[kk]);
  }
  // Shared addresses lie below 256 KB: the start field (address / 16, 14 bits) never carries.
  __device__ std::uint64_t desc(std::uint32_t stage, int b, int kk) const { return base + (stage >> 4) + block[b] + step[kk]; }
};

template <class E, class P, bool AMn>
using a_blocks = std::conditional_t<P::k_halo, a_halo_blocks<E, P, AMn>, a_box_blocks<E, P, AMn>>;
#endif
}  // namespace tg::tma_gemm
