// lowering/gpu/smem_tile.hpp: the GEMM's shared-memory tile layout and its wgmma descriptors, over
// whole tiles. The layout is checked against the hardware's definition of the swizzled canonical
// layouts (an xor of address bits 4.. with bits 7.., from the PTX ISA), written here independently
// as a brute-force byte map: every element lands where that map says, and the map is a bijection.
// The descriptors' fields are decoded and compared with the byte map of the sub-tile's first element.
#include "lowering/gpu/smem_tile.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "dsl/numeric.hpp"

namespace {
using tg::index_t;

// Swizzle<B, 4, 3> on byte addresses: bits [4, 4+B) ^= bits [7, 7+B).
std::uint32_t swizzle_bytes(std::uint32_t x, int b) { return x ^ (((x >> 7) & ((1u << b) - 1)) << 4); }
int log2i(index_t x) { int l = 0; while ((index_t{1} << l) < x) ++l; return l; }

// The byte offset of element (r, c) of a [Rows, Cols] tile by the canonical layouts: rows of at most
// 128 bytes packed and swizzled over their width; wider rows cut into 128-byte column blocks [block]
// [row], swizzled over 128 bytes.
template <index_t Rows, index_t Cols, class E>
std::uint32_t canonical_byte(index_t r, index_t c) {
  const index_t row_bytes = Cols * sizeof(E);
  if (row_bytes <= 128) return swizzle_bytes(static_cast<std::uint32_t>(r * row_bytes + c * sizeof(E)), log2i(row_bytes / 16));
  const index_t block = 128 / sizeof(E);
  return swizzle_bytes(static_cast<std::uint32_t>((c / block) * Rows * 128 + r * 128 + (c % block) * sizeof(E)), 3);
}

template <index_t Rows, index_t Cols, class E>
void check_layout() {
  SCOPED_TRACE(testing::Message() << Rows << "x" << Cols << " of " << sizeof(E) << "-byte elements");
  const auto d = tg::gpu_gemm::smem_tile_desc<Rows, Cols, E>();
  std::vector<int> hits(Rows * Cols, 0);
  for (index_t r = 0; r < Rows; ++r)
    for (index_t c = 0; c < Cols; ++c) {
      const index_t off = d.offset({{r, c}});
      ASSERT_EQ(off * static_cast<index_t>(sizeof(E)), (canonical_byte<Rows, Cols, E>(r, c))) << "element (" << r << ", " << c << ")";
      ASSERT_TRUE(off >= 0 && off < Rows * Cols);
      ++hits[off];
    }
  for (index_t i = 0; i < Rows * Cols; ++i) ASSERT_EQ(hits[i], 1) << "offset " << i;
}

TEST(SmemTile, LayoutIsTheCanonicalSwizzle) {
  check_layout<128, 32, tg::half_t>();   // K-major operand tiles: 64-byte rows
  check_layout<64, 32, tg::half_t>();
  check_layout<128, 16, tg::half_t>();   // 32-byte rows
  check_layout<32, 64, tg::half_t>();    // MN-major operand tiles: one 128-byte block
  check_layout<32, 128, tg::half_t>();   // two blocks
  check_layout<128, 32, float>();        // fp32 operand tiles: 128-byte rows
  check_layout<32, 128, float>();        // four blocks
  check_layout<128, 128, tg::half_t>();  // C tiles
  check_layout<128, 64, float>();
}

struct fields {
  std::uint32_t addr, lbo, sbo, swizzle;
};
fields decode(std::uint64_t d) {
  return {static_cast<std::uint32_t>(d & 0x3fff) << 4, static_cast<std::uint32_t>((d >> 16) & 0x3fff) << 4,
          static_cast<std::uint32_t>((d >> 32) & 0x3fff) << 4, static_cast<std::uint32_t>(d >> 62)};
}

TEST(SmemTile, WgmmaDescriptors) {
  using tg::half_t;
  const std::uint32_t base = 0x2000;
  // K-major [128][32]: 64-byte swizzle (mode 2), 8 rows = 512 bytes apart; k0 = 16 starts 32 bytes in.
  for (index_t r0 = 0; r0 < 128; r0 += 64)
    for (index_t k0 = 0; k0 < 32; k0 += 16) {
      const fields f = decode(tg::gpu_gemm::wgmma_operand<128, 32, half_t, false>(base, r0, k0));
      EXPECT_EQ(f.addr, base + (canonical_byte<128, 32, half_t>(r0, k0)));
      EXPECT_EQ(f.addr, base + r0 * 64 + k0 * 2);  // the unpermuted address
      EXPECT_EQ(f.sbo, 512u);
      EXPECT_EQ(f.swizzle, 2u);
    }
  // MN-major [32][128] (rows contiguous): 128-byte swizzle (mode 1), blocks of 64 rows 32 * 128
  // bytes apart (LBO), 8 k = 1024 bytes apart (SBO).
  for (index_t r0 = 0; r0 < 128; r0 += 64)
    for (index_t k0 = 0; k0 < 32; k0 += 16) {
      const fields f = decode(tg::gpu_gemm::wgmma_operand<128, 32, half_t, true>(base, r0, k0));
      EXPECT_EQ(f.addr, base + (canonical_byte<32, 128, half_t>(k0, r0)));
      EXPECT_EQ(f.addr, base + (r0 / 64) * 4096 + k0 * 128);
      EXPECT_EQ(f.lbo, 4096u);
      EXPECT_EQ(f.sbo, 1024u);
      EXPECT_EQ(f.swizzle, 1u);
    }
  // 32-byte rows: mode 3, SBO 256.
  const fields f = decode(tg::gpu_gemm::wgmma_operand<64, 16, half_t, false>(base, 8, 0));
  EXPECT_EQ(f.addr, base + 8 * 32);
  EXPECT_EQ(f.sbo, 256u);
  EXPECT_EQ(f.swizzle, 3u);
}

// The GEMM adds a sub-tile's offset to its tile's descriptor (one add per wgmma): equal to the
// descriptor built from the sub-tile's address for every stage the shared memory can hold, i.e. the
// 14-bit address field never carries into the next one. Whole domains: every 1024-byte-aligned tile
// start whose tile ends below 228 KB, every (r0, k0) sub-tile of both orientations.
template <index_t Rows, index_t BK, bool RowsFast>
void check_desc_sum() {
  using tg::half_t;
  constexpr std::uint32_t tile_bytes = Rows * BK * sizeof(half_t), smem_max = 228 * 1024;
  const auto tile_desc = [](std::uint32_t a) { return tg::gpu_gemm::wgmma_tile_desc<Rows, BK, half_t, RowsFast>(a); };
  for (std::uint32_t base = 0; base + tile_bytes <= smem_max; base += 1024)
    for (index_t r0 = 0; r0 < Rows; r0 += RowsFast ? 64 : 8)
      for (index_t k0 = 0; k0 < BK; k0 += 16) {
        const std::uint64_t sum = tile_desc(base) + tg::gpu_gemm::wgmma_sub_offset<Rows, BK, half_t, RowsFast>(r0, k0);
        const auto off = static_cast<std::uint32_t>(RowsFast ? canonical_byte<BK, Rows, half_t>(k0, r0) : canonical_byte<Rows, BK, half_t>(r0, k0));
        ASSERT_EQ(sum, tile_desc(base + off)) << "base " << base << " r0 " << r0 << " k0 " << k0;
      }
}

// The tf32 tiles (fp32, K-major, 128-byte rows of 32 elements: tma_gemm's BK 32): every k8 step's
// descriptor is the 16-bit tile's k16 step's, byte for byte (a step is 32 bytes of each row in both),
// which is why the TMA kernels share their descriptors and offsets between the two; and the sum of a
// tile's descriptor and a sub-tile's offset is the sub-tile's descriptor over the whole shared memory.
TEST(SmemTile, Tf32DescriptorsAreThe16BitOnesInBytes) {
  using tg::half_t;
  for (std::uint32_t base = 0; base + 256 * 128 <= 228 * 1024; base += 1024)
    for (index_t r0 = 0; r0 < 256; r0 += 8)
      for (index_t step = 0; step < 4; ++step) {
        const std::uint64_t f32 = tg::gpu_gemm::wgmma_operand<256, 32, float, false>(base, r0, 8 * step);
        ASSERT_EQ(f32, (tg::gpu_gemm::wgmma_operand<256, 64, half_t, false>(base, r0, 16 * step))) << "base " << base << " r0 " << r0;
        ASSERT_EQ(f32, (tg::gpu_gemm::wgmma_tile_desc<256, 32, float, false>(base) + tg::gpu_gemm::wgmma_sub_offset<256, 32, float, false>(r0, 8 * step)));
        const fields f = decode(f32);
        EXPECT_EQ(f.addr, base + (canonical_byte<256, 32, float>(r0, 8 * step)));
        EXPECT_EQ(f.sbo, 1024u);
        EXPECT_EQ(f.swizzle, 1u);
      }
}

TEST(SmemTile, WgmmaDescriptorPlusOffsetIsTheSubTilesDescriptor) {
  check_desc_sum<128, 64, false>();
  check_desc_sum<128, 32, false>();
  check_desc_sum<64, 16, false>();
  check_desc_sum<128, 64, true>();
  check_desc_sum<128, 32, true>();
}
}  // namespace
