// The shared-memory tiles of the GPU GEMM: one swizzled layout (smem_tile_desc) that ldmatrix, the
// generic fragment loads and the asynchronous copies all address through, and the wgmma matrix
// descriptors (wgmma_operand) of its sub-tiles, since that layout is one of wgmma's canonical ones.
#pragma once
#include <cstdint>
#include "arch/wgmma_nvidia.hpp"
#include "dsl/descriptor.hpp"
#include "dsl/transform/merge.hpp"
#include "dsl/transform/pass_through.hpp"
#include "dsl/transform/xor_swizzle.hpp"

namespace tg {
namespace gpu_gemm {
// A shared-memory tile [Rows, Cols] with no padding, its 16-byte chunks permuted so that the eight
// rows a fragment read touches fall in distinct banks. Every access goes through this one descriptor.
// Rows of at most 128 bytes: the chunks of a row are xor-ed with the index of its 128-byte line
// (modulo the chunks per row). Wider rows: the tile is cut into column blocks of 128 bytes, [block]
// [row][chunk], each chunk xor-ed with row % 8. Both are the canonical swizzled layouts of the wgmma
// matrix descriptors (wgmma_operand below): rows of 32/64/128 bytes are the 32/64/128-byte swizzle
// with k contiguous; column blocks are the 128-byte swizzle with the rows contiguous.
template <index_t Rows, index_t Cols, class E>
TG_FN auto smem_tile_desc() {
  constexpr index_t vec = 16 / sizeof(E), chunks = Cols / vec, row_bytes = Cols * sizeof(E);
  static_assert(Cols % vec == 0 && (chunks & (chunks - 1)) == 0, "swizzled tile shape");
  if constexpr (row_bytes <= 128) {
    constexpr index_t per_line = 128 / row_bytes;  // rows in one 128-byte line
    static_assert(Rows % per_line == 0, "swizzled tile shape");
    const auto phys = make_naive_descriptor(tg::make_tuple(number<Rows / per_line>{}, number<per_line>{}, number<chunks>{}, number<vec>{}),
                                            tg::make_tuple(number<per_line * Cols>{}, number<Cols>{}, number<vec>{}, n_<1>));
    const auto swizzled = transform(phys, tg::make_tuple(xor_swizzle<number<Rows / per_line>, number<chunks>>{}, pass_through<number<per_line>>{},
                                                         pass_through<number<vec>>{}),
                                    tg::make_tuple(seq<0, 2>{}, seq<1>{}, seq<3>{}), tg::make_tuple(seq<0, 2>{}, seq<1>{}, seq<3>{}));
    return transform(swizzled, tg::make_tuple(merge<tuple<number<Rows / per_line>, number<per_line>>>{}, merge<tuple<number<chunks>, number<vec>>>{}),
                     tg::make_tuple(seq<0, 1>{}, seq<2, 3>{}), tg::make_tuple(seq<0>{}, seq<1>{}));
  } else {
    constexpr index_t block = 128 / sizeof(E), blocks = Cols / block;  // elements per 128-byte block row
    const auto phys = make_naive_descriptor(tg::make_tuple(number<blocks>{}, number<Rows>{}, number<8>{}, number<vec>{}),
                                            tg::make_tuple(number<Rows * block>{}, number<block>{}, number<vec>{}, n_<1>));
    const auto swizzled = transform(phys, tg::make_tuple(pass_through<number<blocks>>{}, xor_swizzle<number<Rows>, number<8>>{}, pass_through<number<vec>>{}),
                                    tg::make_tuple(seq<0>{}, seq<1, 2>{}, seq<3>{}), tg::make_tuple(seq<0>{}, seq<1, 2>{}, seq<3>{}));
    return transform(swizzled, tg::make_tuple(pass_through<number<Rows>>{}, merge<tuple<number<blocks>, number<8>, number<vec>>>{}),
                     tg::make_tuple(seq<1>{}, seq<0, 2, 3>{}), tg::make_tuple(seq<0>{}, seq<1>{}));
  }
}

// The wgmma descriptor of the operand sub-tile at (r0, k0) (rows r0.., 32 bytes of k from k0: k16 of
// 16-bit elements, k8 of fp32 read as tf32, K-major only) of a shared
// tile in smem_tile_desc's layout starting at shared address `tile`: [Rows][BK] (k contiguous,
// K-major: the 32/64/128-byte swizzle of its row width, 8-row groups SBO apart) or, rows_fast,
// [BK][Rows] (rows contiguous, MN-major: 128-byte swizzle, column blocks of 64 rows LBO apart, 8-k
// groups SBO apart). r0 a multiple of 8 (K-major) or 64 (MN-major), k0 of 16: there the layout's
// permutation is the identity, so the start is the unpermuted address, as the descriptor wants.
// Split in two so that a k-tile's descriptors are one add each: the descriptor of the tile's start
// (wgmma_tile_desc), and the sub-tile's offset in the start-address field (wgmma_sub_offset, a
// constant where r0 and k0 are). The field is the address / 16 in 14 bits and shared addresses lie
// below 256 KB, so adding the offset never carries out of it.
template <index_t Rows, index_t BK, class E, bool RowsFast>
TG_FN std::uint64_t wgmma_tile_desc(std::uint32_t tile) {
  static_assert(sizeof(E) == 2 || (sizeof(E) == 4 && !RowsFast), "wgmma descriptors here: 16-bit elements, or fp32 (tf32) K-major");
  if constexpr (!RowsFast) {
    constexpr index_t row_bytes = BK * sizeof(E);
    static_assert(row_bytes == 32 || row_bytes == 64 || row_bytes == 128, "a K-major row is one swizzle width");
    constexpr arch::smem_swizzle sw = row_bytes == 128 ? arch::smem_swizzle::b128 : row_bytes == 64 ? arch::smem_swizzle::b64 : arch::smem_swizzle::b32;
    return arch::smem_matrix_desc(tile, 16, 8 * row_bytes, sw);
  } else {
    static_assert(Rows * sizeof(E) % 128 == 0, "an MN-major tile is whole 128-byte column blocks");
    return arch::smem_matrix_desc(tile, BK * 128, 8 * 128, arch::smem_swizzle::b128);
  }
}
template <index_t Rows, index_t BK, class E, bool RowsFast>
TG_FN std::uint64_t wgmma_sub_offset(index_t r0, index_t k0) {
  const index_t off = RowsFast ? smem_tile_desc<BK, Rows, E>().offset({{k0, r0}}) : smem_tile_desc<Rows, BK, E>().offset({{r0, k0}});
  return static_cast<std::uint64_t>(off * static_cast<index_t>(sizeof(E)) / 16);
}
template <index_t Rows, index_t BK, class E, bool RowsFast>
TG_FN std::uint64_t wgmma_operand(std::uint32_t tile, index_t r0, index_t k0) {
  return wgmma_tile_desc<Rows, BK, E, RowsFast>(tile) + wgmma_sub_offset<Rows, BK, E, RowsFast>(r0, k0);
}
}  // namespace gpu_gemm
}  // namespace tg
