// Host test of arch/runtime.hpp under a plain C++ compiler: it says there is no GPU runtime, reports
// zero devices, and refuses memory operations with a message instead of pretending.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "arch/runtime.hpp"

namespace {
namespace ta = tg::arch;

TEST(ArchRuntime, PlainCompilerHasNoGpuRuntime) {
  static_assert(!ta::has_gpu_runtime);
  EXPECT_STREQ(ta::runtime_name, "none");
  EXPECT_EQ(ta::device_count(), 0);
}

TEST(ArchRuntime, MemoryOperationsSayWhy) {
  try {
    ta::device_buffer<float> b(16);
    FAIL() << "allocation without a runtime did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("without a GPU runtime"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ta::synchronize(), std::runtime_error);
  EXPECT_THROW(ta::device_name(), std::runtime_error);
  EXPECT_THROW(ta::device_memory(), std::runtime_error);
}

TEST(ArchRuntime, EmptyBufferNeedsNoDevice) {
  ta::device_buffer<int> b;  // nothing to allocate
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_TRUE(b.download().empty());
  ta::device_buffer<int> moved = std::move(b);
  EXPECT_EQ(moved.size(), 0u);
  EXPECT_THROW(moved.upload(std::vector<int>(3)), std::invalid_argument);  // size mismatch is checked first
}

}  // namespace
