// avgpool3d_bwd on the host backend against the naive reference (ops/reference/avgpool3d.hpp), on random
// problems: NCDHW and NDHWC, fp32/fp16/bf16, both divisors (count_include_pad and valid positions),
// dilation 1-3, stride larger than the window, asymmetric padding, windows made only of padding.
//
// Seeds: TG_SEED=<n> sets the base seed (default in support.hpp); TG_OPS_CASES=<n> the number of random cases.
#include "../../examples/common/harness.hpp"
#include "lowering/host.hpp"
#include "ops/avgpool3d_bwd.hpp"
#include "ops/reference/avgpool3d.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

#include <cstdlib>
#include <sstream>

namespace {
using namespace tg;
using namespace tg::test;

const std::vector<int> kNCDHW{0, 1, 2, 3, 4}, kNDHWC{0, 2, 3, 4, 1};

std::string describe(const ops::avgpool3d_problem& p) {
  std::ostringstream s;
  auto list = [&](const char* name, const i64* v) { s << " " << name << v[0] << "," << v[1] << "," << v[2]; };
  s << "N" << p.N << " C" << p.C;
  list("in", p.in); list("win", p.window); list("s", p.stride); list("d", p.dilation); list("pl", p.pad_l); list("pr", p.pad_r);
  s << (p.layout == ops::channel_order::first ? " ncdhw" : " ndhwc") << (p.count_include_pad ? " count_include_pad" : " exclude_pad");
  return s.str();
}

ref::avgpool3d_params reference_of(const ops::avgpool3d_problem& p) {
  ref::avgpool3d_params rp{p.N, p.C, p.in[0], p.in[1], p.in[2], {p.window[0], p.window[1], p.window[2]}};
  for (int d = 0; d < 3; ++d) { rp.s[d] = p.stride[d]; rp.pl[d] = p.pad_l[d]; rp.pr[d] = p.pad_r[d]; rp.dil[d] = p.dilation[d]; }
  rp.count_include_pad = p.count_include_pad;
  return rp;
}

struct pool_case {
  ops::avgpool3d_problem p;
  int dtype = 0;
  bool ints = false;
};

pool_case random_case(std::mt19937_64& rng, int i) {
  pool_case c;
  c.dtype = i % 3;
  c.ints = i % 7 == 3;
  auto& p = c.p;
  p.N = pick(rng, 1, 2);
  p.C = pick(rng, 1, 3);
  p.layout = (i / 3) % 2 ? ops::channel_order::last : ops::channel_order::first;
  p.count_include_pad = (i / 2) % 2 == 0;
  for (int d = 0; d < 3; ++d) {
    p.window[d] = pick(rng, 1, 3);
    p.dilation[d] = pick(rng, 1, 3);
    const i64 span = p.dilation[d] * (p.window[d] - 1) + 1;
    p.stride[d] = i % 5 == 0 ? span + pick(rng, 1, 2) : pick(rng, 1, 3);  // every 5th: stride larger than the window
    p.pad_l[d] = pick(rng, 0, span / 2);
    p.pad_r[d] = pick(rng, 0, span / 2);
    p.in[d] = std::max<i64>(1, span - p.pad_l[d] - p.pad_r[d] + pick(rng, 0, 5));
  }
  return c;
}

template <class T>
void run_case(const pool_case& c, std::mt19937_64& rng) {
  const auto& p = c.p;
  SCOPED_TRACE(describe(p) + " " + dtype_traits<T>::name + (c.ints ? " ints" : " decimals"));
  const std::vector<i64> xl{p.N, p.C, p.in[0], p.in[1], p.in[2]}, yl{p.N, p.C, p.out(0), p.out(1), p.out(2)};
  const auto& phys = p.layout == ops::channel_order::first ? kNCDHW : kNDHWC;
  const auto dy = ex::to_dtype<T>(ex::random_tensor(ex::volume(yl), c.ints ? 1 : 2, rng));
  const vec ref_dx = ref::avgpool3d_bwd(reference_of(p), ex::to_double(dy));
  const auto dyp = ex::permute(dy, yl, phys, true);
  host_backend be;
  std::vector<T> dx(static_cast<std::size_t>(ex::volume(xl)));
  ex::poison(dx);
  ops::avgpool3d_bwd(be, p, dyp.data(), dx.data());
  // Each dx element sums dy / divisor over the few windows that hold it.
  EXPECT_TRUE(matches("dx", dx, xl, phys, ref_dx, dtype_traits<T>::rtol, dtype_traits<T>::atol, c.ints ? 5.0 : 1.0));
}

TEST(AvgPool3dBwd, RandomProblemsMatchReference) {
  const int n = num_cases(100);
  for (int i = 0; i < n; ++i) {
    const std::uint64_t seed = base_seed() + 0x200000ull + std::uint64_t(i);
    SCOPED_TRACE(testing::Message() << "TG_SEED=" << base_seed() << " case " << i << " (rng seed " << seed << ")");
    std::mt19937_64 rng(seed);
    const pool_case c = random_case(rng, i);
    with_dtype(c.dtype, [&](auto t) { run_case<decltype(t)>(c, rng); });
    if (HasFailure()) break;
  }
}

// Hand-computed: 1x1x4 input, window 1x1x2, stride 2, padding 1 left and right (span 2, so at most 1):
// windows over positions {-1, 0}, {1, 2}, {3, 4}. Divisor 2 with count_include_pad, else the valid count.
TEST(AvgPool3dBwd, HandComputedDivisors) {
  ops::avgpool3d_problem p;
  for (int d = 0; d < 3; ++d) { p.in[d] = 1; p.window[d] = 1; p.stride[d] = 1; p.dilation[d] = 1; }
  p.in[2] = 4; p.window[2] = 2; p.stride[2] = 2; p.pad_l[2] = 1; p.pad_r[2] = 1;
  ASSERT_EQ(p.out(2), 3);
  const std::vector<float> dy{2, 4, 8};
  for (bool include : {true, false}) {
    p.count_include_pad = include;
    host_backend be;
    std::vector<float> dx(4);
    ex::poison(dx);
    ops::avgpool3d_bwd(be, p, dy.data(), dx.data());
    const std::vector<float> want = include ? std::vector<float>{1, 2, 2, 4} : std::vector<float>{2, 2, 2, 8};
    EXPECT_EQ(dx, want) << (include ? "count_include_pad" : "exclude_pad");
  }
}

// With dilation a window may hold only padding (in 2, window 2, dilation 3, padding 2 -> window 1 reads
// positions -1 and 2). Without count_include_pad its divisor would be 0: it contributes nothing.
TEST(AvgPool3dBwd, WindowOfPaddingOnlyContributesNothing) {
  for (bool include : {true, false}) {
    ops::avgpool3d_problem p;
    for (int d = 0; d < 3; ++d) { p.in[d] = 1; p.window[d] = 1; p.stride[d] = 1; p.dilation[d] = 1; }
    p.in[0] = 2; p.window[0] = 2; p.dilation[0] = 3; p.pad_l[0] = p.pad_r[0] = 2;
    p.count_include_pad = include;
    ASSERT_EQ(p.out(0), 3);
    const std::vector<float> dy{1, 100, 10};
    host_backend be;
    std::vector<float> dx(2);
    ex::poison(dx);
    ops::avgpool3d_bwd(be, p, dy.data(), dx.data());
    const vec want = ref::avgpool3d_bwd(reference_of(p), {1, 100, 10});
    EXPECT_EQ(ex::to_double(dx), want) << (include ? "count_include_pad" : "exclude_pad");
  }
}
}  // namespace
