// arch/convert.hpp: the device's hardware fp16 conversions give dsl/numeric.hpp's bits for all 2^16
// fp16 and all 2^32 fp32 inputs (a quiet NaN for NaN inputs); arch/reciprocal.hpp's call-free
// reciprocal gives the host's 1.0f / n for every count n in [1, 2^24] (0 for n = 0).
#include <gtest/gtest.h>
#include "arch/convert.hpp"
#include "arch/reciprocal.hpp"
#include "lowering/gpu/backend.hpp"

namespace {
TEST(GpuConvert, HardwareHalfConversionsMatchNumericExhaustively) {
  if (!tg::gpu_backend::available()) GTEST_SKIP() << "no GPU on this machine: GPU tests skipped";
  const auto r = tg::arch::check_device_conversions();
  EXPECT_EQ(r.to_float_bad, 0u) << "first fp16 input 0x" << std::hex << r.first_to_float;
  EXPECT_EQ(r.from_float_bad, 0u) << "first fp32 input 0x" << std::hex << r.first_from_float;
}

TEST(GpuReciprocal, CountReciprocalsMatchTheHostsDivisionExhaustively) {
  if (!tg::gpu_backend::available()) GTEST_SKIP() << "no GPU on this machine: GPU tests skipped";
  const auto r = tg::arch::check_device_reciprocals();
  EXPECT_EQ(r.bad, 0u) << "first count " << r.first_bad;
}
}  // namespace
