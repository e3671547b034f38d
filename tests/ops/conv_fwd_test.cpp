// conv_fwd on the host backend against the naive reference (ops/reference/conv.hpp), on random problems:
// 1D/2D/3D, odd sizes, G = 1, grouped and depthwise (G = C = K, and channel multipliers), layouts GNHWC,
// NHWGC and NCHW, fp32/fp16/bf16, strides and dilations 1-3 (and strides past the dilated filter, which
// skip inputs), asymmetric padding, split-K 1-3; outputs poisoned first.
//
// Seeds: TG_SEED=<n> sets the base seed (default in support.hpp); TG_OPS_CASES=<n> the number of random cases.
#include "../../examples/common/harness.hpp"
#include "lowering/host.hpp"
#include "ops/conv_fwd.hpp"
#include "ops/reference/conv.hpp"

#include <gtest/gtest.h>

#include "conv_support.hpp"

#include <cstring>

namespace {
using namespace tg;
using namespace tg::test;

// y sums C/G x taps products: |y - ref| <= atol * sqrt(summands) * magnitude + rtol * |ref|, as the example scales it.
double fwd_scale(const ops::conv_problem& p, bool ints) {
  double sums = double(p.C / p.G);
  for (int d = 0; d < p.ndim; ++d) sums *= double(p.filter[d]);
  return std::sqrt(sums) * (ints ? 25.0 : 1.0);
}

template <class T>
void run_fwd(const ops::conv_problem& p, bool ints, int k_splits, std::mt19937_64& rng) {
  SCOPED_TRACE(describe(p) + " " + dtype_traits<T>::name + (ints ? " ints" : " decimals") + " k_splits " + std::to_string(k_splits));
  ASSERT_NO_THROW(p.validate("test"));
  const auto xl = x_len(p), wl = w_len(p), yl = y_len(p);
  const auto x = ex::to_dtype<T>(ex::random_tensor(ex::volume(xl), ints ? 1 : 2, rng));
  const auto w = ex::to_dtype<T>(ex::random_tensor(ex::volume(wl), ints ? 1 : 2, rng));
  const vec ref_y = ref::conv_fwd(reference_of(p), ex::to_double(x), ex::to_double(w));
  const auto xp = ex::permute(x, xl, act_order(p), true), wp = ex::permute(w, wl, w_order(p), true);
  host_backend be;
  std::vector<T> y(static_cast<std::size_t>(ex::volume(yl)));
  ex::poison(y);
  ops::conv_fwd(be, p, xp.data(), wp.data(), y.data(), gemm_policy{k_splits, split_k_mode::deterministic});
  EXPECT_TRUE(matches("y", y, yl, act_order(p), ref_y, dtype_traits<T>::rtol, dtype_traits<T>::atol, fwd_scale(p, ints)));
}

TEST(ConvFwd, RandomProblemsMatchReference) {
  const int n = num_cases(100);
  for (int i = 0; i < n; ++i) {
    const std::uint64_t seed = base_seed() + 0x500000ull + std::uint64_t(i);
    SCOPED_TRACE(testing::Message() << "TG_SEED=" << base_seed() << " case " << i << " (rng seed " << seed << ")");
    std::mt19937_64 rng(seed);
    const auto p = random_conv(rng, i);
    const bool ints = i % 4 == 3;
    const int k_splits = 1 + (i / 5) % 3;  // the (taps..., C) reduction in 1..3 deterministic chunks
    with_dtype((i / 27 + i) % 3, [&](auto t) { run_fwd<decltype(t)>(p, ints, k_splits, rng); });
    if (HasFailure()) break;
  }
}

// The template form must agree with the run-time dispatch, and bits must not change run to run.
TEST(ConvFwd, TemplateFormAndRepeatAreBitIdentical) {
  std::mt19937_64 rng(base_seed() + 0x510000ull);
  for (int i = 0; i < 6; ++i) {
    const auto p = random_conv(rng, i);
    SCOPED_TRACE(describe(p));
    const auto x = ex::to_dtype<float>(ex::random_tensor(ex::volume(x_len(p)), 2, rng));
    const auto w = ex::to_dtype<float>(ex::random_tensor(ex::volume(w_len(p)), 2, rng));
    host_backend be;
    std::vector<float> a(static_cast<std::size_t>(ex::volume(y_len(p)))), b(a.size()), c(a.size());
    ex::poison(a); ex::poison(b); ex::poison(c);
    ops::conv_fwd(be, p, x.data(), w.data(), a.data());
    ops::conv_fwd(be, p, x.data(), w.data(), b.data());
    switch (p.ndim) {
      case 1: ops::conv_fwd<1>(be, p, x.data(), w.data(), c.data()); break;
      case 2: ops::conv_fwd<2>(be, p, x.data(), w.data(), c.data()); break;
      default: ops::conv_fwd<3>(be, p, x.data(), w.data(), c.data()); break;
    }
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(a.data(), c.data(), a.size() * sizeof(float)));
  }
}

// 1D, x = [1 2 3], w = [1 10], padding 1 on each side: the windows are [0 1], [1 2], [2 3], [3 0]; with
// stride 2 every other one; with dilation 2 and no right padding the taps are (o - 1, o + 1).
// Two groups (the second's x and w scaled by 2 and 3) check that a group reads only its own channels.
TEST(ConvFwd, HandComputed1D) {
  struct { i64 stride, dilation, pad_r; std::vector<float> y; } cases[] = {
      {1, 1, 1, {10, 21, 32, 3}}, {2, 1, 1, {10, 32}}, {1, 2, 0, {20, 31}}};
  for (auto layout : {ops::conv_layout::gnhwc, ops::conv_layout::nhwgc, ops::conv_layout::nchw})
    for (const auto& c : cases) {
      ops::conv_problem p;
      p.ndim = 1; p.G = 2; p.N = 1; p.K = 2; p.C = 2; p.layout = layout;
      p.filter[0] = 2; p.in[0] = 3; p.stride[0] = c.stride; p.dilation[0] = c.dilation; p.pad_l[0] = 1; p.pad_r[0] = c.pad_r;
      SCOPED_TRACE(describe(p));
      const i64 out = p.out(0);
      ASSERT_EQ(out, i64(c.y.size()));
      // x [G][N][C/G][in] = canonical; in memory: gnhwc [G][N][W][1], nhwgc [N][W][G][1], nchw [N][G*1][W].
      const std::vector<float> x0{1, 2, 3}, x1{2, 4, 6};
      std::vector<float> x(6), w{1, 10, 3, 30}, y(static_cast<std::size_t>(2 * out));  // w: [G][1][1][2], the same in every layout
      for (int i = 0; i < 3; ++i) {
        const bool interleaved = layout == ops::conv_layout::nhwgc;
        x[interleaved ? 2 * i : i] = x0[i];
        x[interleaved ? 2 * i + 1 : 3 + i] = x1[i];
      }
      ex::poison(y);
      host_backend be;
      ops::conv_fwd(be, p, x.data(), w.data(), y.data());
      std::vector<float> want(y.size());
      for (i64 o = 0; o < out; ++o) {
        const bool interleaved = layout == ops::conv_layout::nhwgc;
        want[interleaved ? 2 * o : o] = c.y[o];
        want[interleaved ? 2 * o + 1 : out + o] = 6 * c.y[o];  // x times 2, w times 3
      }
      EXPECT_EQ(y, want);
    }
}
}  // namespace
