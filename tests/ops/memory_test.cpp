// ops/memory.hpp: byte counts in messages, the host's available memory, insufficient_memory, and the
// host scratch of groupnorm (the one op program that allocates on the host backend) checked against
// the host's memory before it is taken (issue 21).
#include "ops/memory.hpp"

#include "lowering/host.hpp"
#include "ops/groupnorm_bwd.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {
using namespace tg;
using testing::HasSubstr;

TEST(Memory, BytesAreExactAndReadable) {
  EXPECT_EQ(ops::describe_bytes(0), "0 bytes");
  EXPECT_EQ(ops::describe_bytes(1023), "1023 bytes");
  EXPECT_EQ(ops::describe_bytes(1024), "1024 bytes (1 KiB)");
  EXPECT_EQ(ops::describe_bytes(std::uint64_t{1} << 44), "17592186044416 bytes (16 TiB)");
  EXPECT_EQ(ops::describe_bytes(3ull << 29), "1610612736 bytes (1.5 GiB)");
  // From 2^63 on a count has overflowed: only "more than" the largest size is known.
  EXPECT_EQ(ops::describe_bytes(std::uint64_t{1} << 63), "more than 9223372036854775807 bytes (8 EiB)");
}

// MemTotal of /proc/meminfo in bytes, 0 when it cannot be read.
std::uint64_t mem_total() {
  std::uint64_t total = 0;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    unsigned long long kib = 0;
    if (std::fscanf(f, "MemTotal: %llu kB", &kib) == 1) total = kib * 1024u;
    std::fclose(f);
  }
  return total;
}

TEST(Memory, HostAvailableIsSomeOfTheHostsMemory) {
  const std::uint64_t available = ops::host_available_bytes(), total = mem_total();
  if (total == 0) GTEST_SKIP() << "no /proc/meminfo on this machine";
  EXPECT_GT(available, 0u);
  EXPECT_LE(available, total);
}

TEST(Memory, InsufficientMemoryNamesTheTensorAndTheBytes) {
  EXPECT_NO_THROW(ops::require_memory("some_op", "dx", "host", 1000, 1000));
  try {
    ops::require_memory("some_op", "dx", "host", 1001, 1000);
    ADD_FAILURE() << "no exception";
  } catch (const ops::insufficient_memory& e) {
    EXPECT_EQ(e.parameter, "dx");
    EXPECT_EQ(e.bytes, 1001u);
    EXPECT_EQ(e.available, 1000u);
    EXPECT_STREQ(e.what(), "some_op: dx needs 1001 bytes of host memory, more than the 1000 bytes available");
  }
  // An invalid_problem: whatever rejects bad problems (the examples: exit 2) rejects these too.
  EXPECT_THROW(ops::require_memory("some_op", "w", "device", 2, 1), ops::invalid_problem);
}

// groupnorm on the host backend: N = C = 2^20 with H = W = 1 fits in 64 bits (x: 4 TiB of fp32), but
// its scratch, 5 fp32 [N, C] arrays (20 TiB), is more than a host has: refused before it is taken,
// before anything is read or written.
TEST(Memory, GroupnormHostScratchIsCheckedFirst) {
  ops::groupnorm_problem p;
  p.N = p.C = std::int64_t{1} << 20;
  const std::uint64_t bwd_bytes = 5 * (std::uint64_t{1} << 40) * sizeof(float);
  if (ops::host_available_bytes() >= bwd_bytes) GTEST_SKIP() << "this host has 20 TiB to give";
  ASSERT_NO_THROW(p.validate("groupnorm_bwd"));
  host_backend be;
  const std::vector<float> in(64, 1.0f);
  std::vector<float> out(64, -7.0f), mean(64, -7.0f), rstd(64, -7.0f);
  try {
    ops::groupnorm_bwd(be, p, in.data(), in.data(), in.data(), in.data(), in.data(), out.data(), out.data(), out.data());
    ADD_FAILURE() << "no exception";
  } catch (const ops::insufficient_memory& e) {
    EXPECT_EQ(e.parameter, "scratch");
    EXPECT_EQ(e.bytes, bwd_bytes);
    EXPECT_THAT(e.what(), HasSubstr("groupnorm_bwd: scratch needs 21990232555520 bytes (20 TiB) of host memory"));
  }
  try {
    ops::groupnorm_fwd(be, p, in.data(), in.data(), in.data(), out.data(), mean.data(), rstd.data());
    ADD_FAILURE() << "no exception";
  } catch (const ops::insufficient_memory& e) {
    EXPECT_EQ(e.parameter, "scratch");
    EXPECT_EQ(e.bytes, (2 * (std::uint64_t{1} << 20) + 3 * (std::uint64_t{1} << 40)) * sizeof(float));  // 2 [N, G] + 3 [N, C]
    EXPECT_THAT(e.what(), HasSubstr("groupnorm_fwd: scratch needs"));
  }
  for (const auto* v : {&out, &mean, &rstd}) EXPECT_TRUE(std::all_of(v->begin(), v->end(), [](float f) { return f == -7.0f; }));
}
}  // namespace
