// arch/tma_box.hpp: the numbers a tensor map is encoded from (tma_map_params_of). Over random boxes of
// 2- and 4-byte elements, every element of the box's domain is where the box's own index map says
// (data + (base + sum c[a] stride[a]) elements) when addressed as the driver does (origin + c[0] x the
// element size + sum over a > 0 of c[a] x strides_bytes[a - 1]); each documented limit is refused by name.
#include "arch/tma_box.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

namespace {
using tg::arch::tma_box;
using tg::arch::tma_map_params;

int pick(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// A box over a dense tensor of `rank` axes whose strides past axis 0 are 16-byte multiples.
tma_box random_box(std::mt19937& rng, int elem_bytes) {
  tma_box b;
  b.rank = pick(rng, 1, tma_box::max_rank);
  const int align = 16 / elem_bytes;  // elements per 16 bytes
  std::int64_t stride = 1;
  for (int a = 0; a < b.rank; ++a) {
    b.length[a] = pick(rng, 1, 9);
    b.stride[a] = stride;
    b.elem_stride[a] = a == 0 ? 1 : pick(rng, 1, 3);
    b.box[a] = a == 0 ? align * pick(rng, 1, 128 / 16) : b.elem_stride[a] * pick(rng, 1, 4);
    stride *= a == 0 ? align * ((b.length[a] + align - 1) / align + pick(rng, 0, 1)) : b.length[a] + pick(rng, 0, 2);
  }
  b.base = align * pick(rng, 0, 5);
  return b;
}

TEST(TmaBox, MapParamsAddressEveryElementAsTheBox) {
  std::mt19937 rng(20261201);
  alignas(16) static unsigned char memory[64];
  for (int elem_bytes : {2, 4}) {
    int checked = 0;
    for (int trial = 0; trial < 400; ++trial) {
      const tma_box b = random_box(rng, elem_bytes);
      tma_map_params p;
      const char* why = tg::arch::tma_map_params_of(b, elem_bytes, memory, true, p);
      ASSERT_EQ(why, nullptr) << why;
      ASSERT_EQ(p.rank, b.rank);
      for (int a = 0; a < b.rank; ++a) {
        EXPECT_EQ(p.dims[a], static_cast<std::uint64_t>(b.length[a]));
        EXPECT_EQ(p.box[a], static_cast<std::uint32_t>(b.box[a]));
        EXPECT_EQ(p.elem_strides[a], static_cast<std::uint32_t>(b.elem_stride[a]));
      }
      // Every coordinate inside the tensor (the domain is small: at most 9^5).
      std::int64_t c[tma_box::max_rank] = {};
      for (;;) {
        std::uintptr_t driver = p.origin + static_cast<std::uintptr_t>(c[0] * elem_bytes);
        std::int64_t elems = b.base;
        for (int a = 0; a < b.rank; ++a) elems += c[a] * b.stride[a];
        for (int a = 1; a < b.rank; ++a) driver += static_cast<std::uintptr_t>(c[a]) * p.strides_bytes[a - 1];
        ASSERT_EQ(driver, reinterpret_cast<std::uintptr_t>(memory) + static_cast<std::uintptr_t>(elems * elem_bytes)) << "trial " << trial;
        ++checked;
        int a = 0;
        while (a < b.rank && ++c[a] == b.length[a]) c[a++] = 0;
        if (a == b.rank) break;
      }
    }
    EXPECT_GT(checked, 1000);
  }
}

// A 4-byte element's strides are 4 bytes per element (regression guard: the encoder once assumed 2).
TEST(TmaBox, Fp32StridesAreFourBytesAnElement) {
  tma_box b;
  b.rank = 2, b.length[0] = 64, b.length[1] = 10, b.stride[0] = 1, b.stride[1] = 68, b.box[0] = 32, b.box[1] = 8;
  b.elem_stride[0] = b.elem_stride[1] = 1, b.base = 4;
  alignas(16) static float data[8];
  tma_map_params p;
  ASSERT_EQ(tg::arch::tma_map_params_of(b, 4, data, true, p), nullptr);
  EXPECT_EQ(p.strides_bytes[0], 68u * 4u);
  EXPECT_EQ(p.origin, reinterpret_cast<std::uintptr_t>(data) + 16u);
}

TEST(TmaBox, MapParamsRefuseEachDocumentedLimitByName) {
  alignas(16) static unsigned char memory[64];
  tma_box ok;
  ok.rank = 3;
  for (int a = 0; a < 3; ++a) ok.length[a] = 40, ok.box[a] = 8, ok.elem_stride[a] = 1;
  ok.stride[0] = 1, ok.stride[1] = 64, ok.stride[2] = 64 * 40, ok.box[0] = 64;
  tma_map_params p;
  ASSERT_EQ(tg::arch::tma_map_params_of(ok, 2, memory, true, p), nullptr);
  auto refused = [&](tma_box b, int elem_bytes, const void* data, bool swizzle, const char* word) {
    const char* why = tg::arch::tma_map_params_of(b, elem_bytes, data, swizzle, p);
    ASSERT_NE(why, nullptr) << "accepted; expected a refusal naming " << word;
    EXPECT_NE(std::string(why).find(word), std::string::npos) << why;
  };
  tma_box b = ok;
  b.rank = 6;
  refused(b, 2, memory, true, "rank");
  refused(ok, 3, memory, true, "element size");
  refused(ok, 2, memory + 8, true, "origin");
  b = ok, b.base = 4;  // 8 bytes off
  refused(b, 2, memory, true, "origin");
  b = ok, b.length[1] = 0;
  refused(b, 2, memory, true, "length");
  b = ok, b.length[2] = (std::int64_t{1} << 32) + 1;
  refused(b, 2, memory, true, "length");
  b = ok, b.box[1] = 257;
  refused(b, 2, memory, true, "box extent");
  b = ok, b.elem_stride[1] = 9;
  refused(b, 2, memory, true, "traversal step");
  b = ok, b.stride[1] = 60;  // 120 bytes
  refused(b, 2, memory, true, "stride");
  b = ok, b.stride[2] = std::int64_t{1} << 39;  // 2^40 bytes
  refused(b, 2, memory, true, "stride");
  b = ok, b.box[0] = 12;  // 24 bytes
  refused(b, 2, memory, true, "multiple of 16 bytes");
  b = ok, b.box[0] = 64;  // 256 bytes of fp32
  refused(b, 4, memory, true, "128-byte swizzle");
  b = ok, b.box[0] = 64, b.stride[1] = 64;
  EXPECT_EQ(tg::arch::tma_map_params_of(b, 4, memory, false, p), nullptr) << "a plain (unswizzled) box may be wider";
}
}  // namespace
