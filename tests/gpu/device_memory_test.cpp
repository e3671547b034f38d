// arch/runtime.hpp's device_memory() on a real device: free within total, total the device's memory,
// and an allocation taken out of free (what the examples' memory_plan checks tensors against).
#include <gtest/gtest.h>
#include "arch/runtime.hpp"
#include "lowering/gpu/backend.hpp"

namespace {
TEST(GpuDeviceMemory, FreeAndTotalOfTheCurrentDevice) {
  if (!tg::gpu_backend::available()) GTEST_SKIP() << "no GPU on this machine: GPU tests skipped";
  namespace ta = tg::arch;
  const auto before = ta::device_memory();
  EXPECT_GT(before.free, 0u);
  EXPECT_LE(before.free, before.total);
  EXPECT_EQ(before.total, ta::query_device(ta::current_device()).global_bytes);
  constexpr std::size_t bytes = std::size_t{1} << 30;
  ASSERT_GT(before.free, 2 * bytes) << "the device is nearly full";
  ta::device_buffer<unsigned char> b(bytes);
  const auto during = ta::device_memory();
  EXPECT_LE(during.free + bytes, before.free) << "a 1 GiB allocation left free at " << during.free << " from " << before.free;
}
}  // namespace
