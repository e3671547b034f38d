// convnd_bwd_data and grouped_conv_bwd_weight on the host backend against the naive references
// (ops/reference/conv.hpp), on random problems: 1D/2D/3D, G = 1, grouped and depthwise (G = C = K, and
// channel multipliers), layouts GNHWC, NHWGC and NCHW, fp32/fp16/bf16, dilation 1-3, asymmetric padding,
// gcd(stride, dilation) > 1 (col2im classes without taps), stride larger than the filter, split-K 1-4.
//
// Seeds: TG_SEED=<n> sets the base seed (default in support.hpp); TG_OPS_CASES=<n> the number of random cases.
#include "../../examples/common/harness.hpp"
#include "lowering/host.hpp"
#include "ops/convnd_bwd_data.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"
#include "ops/reference/conv.hpp"

#include <gtest/gtest.h>

#include "conv_support.hpp"

#include <cstdlib>
#include <numeric>

namespace {
using namespace tg;
using namespace tg::test;

// |dx - ref| <= atol * sqrt(summands) * magnitude + rtol * |ref|, as the example scales it.
double bwd_data_scale(const ops::conv_problem& p, bool ints) {
  double taps = double(p.K / p.G);
  for (int d = 0; d < p.ndim; ++d) taps *= double(p.filter[d]);
  return std::sqrt(taps) * (ints ? 25.0 : 1.0);
}

template <class T>
void run_bwd_data(const ops::conv_problem& p, bool ints, int k_splits, std::mt19937_64& rng) {
  SCOPED_TRACE(describe(p) + " " + dtype_traits<T>::name + (ints ? " ints" : " decimals") + " k_splits " + std::to_string(k_splits));
  ASSERT_NO_THROW(p.validate("test"));
  const auto xl = x_len(p), wl = w_len(p), yl = y_len(p);
  const auto dy = ex::to_dtype<T>(ex::random_tensor(ex::volume(yl), ints ? 1 : 2, rng));
  const auto w = ex::to_dtype<T>(ex::random_tensor(ex::volume(wl), ints ? 1 : 2, rng));
  const vec ref_dx = ref::conv_bwd_data(reference_of(p), ex::to_double(dy), ex::to_double(w));
  const auto dyp = ex::permute(dy, yl, act_order(p), true), wp = ex::permute(w, wl, w_order(p), true);
  host_backend be;
  std::vector<T> dx(static_cast<std::size_t>(ex::volume(xl)));
  ex::poison(dx);
  ops::convnd_bwd_data(be, p, dyp.data(), wp.data(), dx.data(), gemm_policy{k_splits, split_k_mode::deterministic});
  EXPECT_TRUE(matches("dx", dx, xl, act_order(p), ref_dx, dtype_traits<T>::rtol, dtype_traits<T>::atol, bwd_data_scale(p, ints)));
}

TEST(ConvNdBwdData, RandomProblemsMatchReference) {
  const int n = num_cases(100);
  for (int i = 0; i < n; ++i) {
    const std::uint64_t seed = base_seed() + 0x300000ull + std::uint64_t(i);
    SCOPED_TRACE(testing::Message() << "TG_SEED=" << base_seed() << " case " << i << " (rng seed " << seed << ")");
    std::mt19937_64 rng(seed);
    const auto p = random_conv(rng, i);
    const bool ints = i % 4 == 3;
    const int k_splits = i % 7 == 6 ? 2 : 1;  // split-K also applies to bwd data's reduction over (K, taps)
    with_dtype((i / 27 + i) % 3, [&](auto t) { run_bwd_data<decltype(t)>(p, ints, k_splits, rng); });
    if (HasFailure()) break;
  }
}

// The template form must agree with the run-time dispatch, and bits must not change run to run.
TEST(ConvNdBwdData, TemplateFormAndRepeatAreBitIdentical) {
  std::mt19937_64 rng(base_seed() + 0x310000ull);
  for (int i = 0; i < 6; ++i) {
    const auto p = random_conv(rng, i);
    SCOPED_TRACE(describe(p));
    const auto dy = ex::to_dtype<float>(ex::random_tensor(ex::volume(y_len(p)), 2, rng));
    const auto w = ex::to_dtype<float>(ex::random_tensor(ex::volume(w_len(p)), 2, rng));
    host_backend be;
    std::vector<float> a(static_cast<std::size_t>(ex::volume(x_len(p)))), b(a.size()), c(a.size());
    ex::poison(a); ex::poison(b); ex::poison(c);
    ops::convnd_bwd_data(be, p, dy.data(), w.data(), a.data());
    ops::convnd_bwd_data(be, p, dy.data(), w.data(), b.data());
    switch (p.ndim) {
      case 1: ops::convnd_bwd_data<1>(be, p, dy.data(), w.data(), c.data()); break;
      case 2: ops::convnd_bwd_data<2>(be, p, dy.data(), w.data(), c.data()); break;
      default: ops::convnd_bwd_data<3>(be, p, dy.data(), w.data(), c.data()); break;
    }
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(a.data(), c.data(), a.size() * sizeof(float)));
  }
}

// 1D, stride 2, dilation 2, filter 2, no padding, in 5: outputs read x[2o] and x[2o + 2]; the odd inputs
// belong to no window (their col2im class has no taps) and must be written as zeros, not left alone.
TEST(ConvNdBwdData, ClassesWithoutTapsAreZero) {
  for (auto layout : {ops::conv_layout::gnhwc, ops::conv_layout::nhwgc, ops::conv_layout::nchw}) {
    ops::conv_problem p;
    p.ndim = 1; p.G = p.N = p.K = p.C = 1; p.layout = layout;
    p.filter[0] = 2; p.in[0] = 5; p.stride[0] = 2; p.dilation[0] = 2;
    ASSERT_EQ(p.out(0), 2);
    const std::vector<float> dy{1, 10}, w{2, 3};
    std::vector<float> dx(5);
    ex::poison(dx);
    host_backend be;
    ops::convnd_bwd_data(be, p, dy.data(), w.data(), dx.data());
    EXPECT_EQ(dx, (std::vector<float>{2, 0, 3 + 20, 0, 30})) << layout_name(layout);
  }
}
// ------------------------------------------------------------------------------- grouped_conv_bwd_weight

// dw sums over N * out... products.
double bwd_weight_scale(const ops::conv_problem& p, bool ints) {
  double sums = double(p.N);
  for (int d = 0; d < p.ndim; ++d) sums *= double(p.out(d));
  return std::sqrt(sums) * (ints ? 25.0 : 1.0);
}

template <class T>
void run_bwd_weight(const ops::conv_problem& p, bool ints, int k_splits, std::mt19937_64& rng) {
  SCOPED_TRACE(describe(p) + " " + dtype_traits<T>::name + (ints ? " ints" : " decimals") + " k_splits " + std::to_string(k_splits));
  ASSERT_NO_THROW(p.validate("test"));
  const auto xl = x_len(p), wl = w_len(p), yl = y_len(p);
  const auto x = ex::to_dtype<T>(ex::random_tensor(ex::volume(xl), ints ? 1 : 2, rng));
  const auto dy = ex::to_dtype<T>(ex::random_tensor(ex::volume(yl), ints ? 1 : 2, rng));
  const vec ref_dw = ref::conv_bwd_weight(reference_of(p), ex::to_double(x), ex::to_double(dy));
  const auto xp = ex::permute(x, xl, act_order(p), true), dyp = ex::permute(dy, yl, act_order(p), true);
  host_backend be;
  std::vector<T> dw(static_cast<std::size_t>(ex::volume(wl))), again(dw.size());
  ex::poison(dw); ex::poison(again);
  const gemm_policy policy{k_splits, split_k_mode::deterministic};
  ops::grouped_conv_bwd_weight(be, p, xp.data(), dyp.data(), dw.data(), policy);
  EXPECT_TRUE(matches("dw", dw, wl, w_order(p), ref_dw, dtype_traits<T>::rtol, dtype_traits<T>::atol, bwd_weight_scale(p, ints)));
  // Deterministic split-K: bit-identical run to run.
  ops::grouped_conv_bwd_weight(be, p, xp.data(), dyp.data(), again.data(), policy);
  EXPECT_EQ(0, std::memcmp(dw.data(), again.data(), dw.size() * sizeof(T))) << "two runs differ";
}

TEST(GroupedConvBwdWeight, RandomProblemsMatchReference) {
  const int n = num_cases(100);
  for (int i = 0; i < n; ++i) {
    const std::uint64_t seed = base_seed() + 0x400000ull + std::uint64_t(i);
    SCOPED_TRACE(testing::Message() << "TG_SEED=" << base_seed() << " case " << i << " (rng seed " << seed << ")");
    std::mt19937_64 rng(seed);
    const auto p = random_conv(rng, i);
    const bool ints = i % 4 == 3;
    const int k_splits = 1 + (i / 3 + i / 12) % 4;  // 1..4, spread over ndim and layouts
    with_dtype((i / 27 + i) % 3, [&](auto t) { run_bwd_weight<decltype(t)>(p, ints, k_splits, rng); });
    if (HasFailure()) break;
  }
}

// Split-K must not change the result beyond rounding: every k_splits 1..4 (and more chunks than the
// reduction has elements) against the reference, on one problem per dimensionality, all three layouts.
TEST(GroupedConvBwdWeight, SplitKOneToFourAndBeyond) {
  std::mt19937_64 rng(base_seed() + 0x410000ull);
  for (int i = 0; i < 9; ++i) {
    const auto p = random_conv(rng, i);
    i64 reduction = p.N;
    for (int d = 0; d < p.ndim; ++d) reduction *= p.out(d);
    for (int k : {1, 2, 3, 4, int(reduction) + 3}) run_bwd_weight<float>(p, false, k, rng);
  }
}

// Depthwise 2D (G = C = K = 3), 3x3 filter, padding 1, stride 1, in 4x4, N = 1, x = 1 everywhere and
// dy = 1: dw[g, tap] counts the outputs whose tap lands inside the input: (4 - |ty - 1|) * (4 - |tx - 1|)
// over the rows and columns of the padded 4x4 picture, i.e. 3*3, 3*4, 3*3 / 4*3, 4*4, 4*3 / ...
TEST(GroupedConvBwdWeight, DepthwiseHandComputed) {
  for (auto layout : {ops::conv_layout::gnhwc, ops::conv_layout::nhwgc, ops::conv_layout::nchw}) {
    ops::conv_problem p;
    p.ndim = 2; p.G = p.C = p.K = 3; p.N = 1; p.layout = layout;
    for (int d = 0; d < 2; ++d) { p.filter[d] = 3; p.in[d] = 4; p.pad_l[d] = p.pad_r[d] = 1; }
    ASSERT_EQ(p.out(0), 4);
    const std::vector<float> x(3 * 16, 1.0f), dy(3 * 16, 1.0f);
    std::vector<float> dw(3 * 9);
    ex::poison(dw);
    host_backend be;
    ops::grouped_conv_bwd_weight(be, p, x.data(), dy.data(), dw.data());
    const float rows[3] = {3, 4, 3};
    std::vector<float> want;
    for (int g = 0; g < 3; ++g)
      for (int ty = 0; ty < 3; ++ty)
        for (int tx = 0; tx < 3; ++tx) want.push_back(rows[ty] * rows[tx]);
    EXPECT_EQ(dw, want) << layout_name(layout);  // [G][1][1][3][3]: the same in GKYXC and KCYX
  }
}
}  // namespace
