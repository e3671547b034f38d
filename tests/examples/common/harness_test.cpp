// examples/common/harness.hpp's memory_plan: the memory an example will take, checked before it
// allocates anything, against given amounts (every branch) and against this host (issue 21).
#include "../../../examples/common/harness.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {
using namespace tg;
using testing::HasSubstr;

ex::options with_verify(int verify) {
  ex::options o;
  o.verify = verify;
  return o;
}
// The insufficient_memory a check throws, or a failure.
template <class F>
ops::insufficient_memory thrown(F&& f) {
  try {
    f();
  } catch (const ops::insufficient_memory& e) {
    return e;
  }
  ADD_FAILURE() << "no insufficient_memory thrown";
  return ops::insufficient_memory("none", "none", "none", 0, 0);
}

TEST(MemoryPlan, HostBytesPerElementCountTheExamplesCopies) {
  // fp32 on the host backend: 3 copies of 4 bytes and 8 bytes of double per element; 8 more to verify.
  const auto plan = ex::memory_plan("op", with_verify(0)).add("dy", 10, 4);
  EXPECT_NO_THROW(plan.check(false, 200, 0));
  const auto e = thrown([&] { plan.check(false, 199, 0); });
  EXPECT_EQ(e.parameter, "dy");
  EXPECT_EQ(e.bytes, 200u);
  EXPECT_STREQ(e.what(), "op: dy needs 200 bytes of host memory (10 elements of 4 bytes, with the copies this example keeps), more than the "
                         "199 bytes available");
  const auto verified = ex::memory_plan("op", with_verify(1)).add("dy", 10, 2);
  EXPECT_NO_THROW(verified.check(false, 220, 0));  // 3 x 2 + 16
  EXPECT_THROW(verified.check(false, 219, 0), ops::insufficient_memory);
}

TEST(MemoryPlan, NamesTheTensorThatDoesNotFitWithTheOnesBefore) {
  const auto plan = ex::memory_plan("conv", with_verify(0)).add("dy", 10, 4).add("w", 5, 4).add("dx", 10, 4);  // 200 + 100 + 200
  EXPECT_NO_THROW(plan.check(false, 500, 0));
  auto e = thrown([&] { plan.check(false, 499, 0); });
  EXPECT_EQ(e.parameter, "dx");
  EXPECT_THAT(e.what(), HasSubstr("conv: dx needs 200 bytes of host memory"));
  EXPECT_THAT(e.what(), HasSubstr("on top of 300 bytes for the tensors before it"));
  e = thrown([&] { plan.check(false, 250, 0); });
  EXPECT_EQ(e.parameter, "w");
}

TEST(MemoryPlan, GpuBackendsAlsoNeedTheDevice) {
  // Host: 2 copies of 2 bytes + 8 per element; device: one copy of 2 bytes.
  const auto plan = ex::memory_plan("pool", with_verify(0)).add("dy", 100, 2).add("dx", 400, 2);
  EXPECT_NO_THROW(plan.check(true, 6000, 1000));
  auto e = thrown([&] { plan.check(true, 6000, 999); });
  EXPECT_EQ(e.parameter, "dx");
  EXPECT_THAT(e.what(), HasSubstr("pool: dx needs 800 bytes of device memory (400 elements of 2 bytes) on top of 200 bytes"));
  e = thrown([&] { plan.check(true, 5999, 1000); });
  EXPECT_THAT(e.what(), HasSubstr("of host memory"));
}

TEST(MemoryPlan, BytesPast64BitsAreRefusedNotWrapped) {
  // 2^60 fp32 elements fit in 64 bits (validation passes), their 28 bytes per element do not.
  const auto plan = ex::memory_plan("op", with_verify(1)).add("x", std::int64_t{1} << 60, 4);
  const auto e = thrown([&] { plan.check(false, UINT64_MAX - 1, 0); });
  EXPECT_THAT(e.what(), HasSubstr("x needs more than 9223372036854775807 bytes"));
}

TEST(MemoryPlan, ChecksThisHost) {
  host_backend be;
  EXPECT_NO_THROW(ex::memory_plan("op", with_verify(1)).add("x", 1000, 4).check(be));
  const auto e = thrown([&] { ex::memory_plan("op", with_verify(1)).add("small", 10, 4).add("huge", std::int64_t{1} << 56, 4).check(be); });
  EXPECT_EQ(e.parameter, "huge");
  EXPECT_EQ(e.bytes, (std::uint64_t{1} << 56) * 28);
  EXPECT_GT(e.bytes, e.available);
}
}  // namespace
