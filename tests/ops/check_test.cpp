// ops/check.hpp's size checks: overflow-safe products, require_size, and every op rejecting, before
// any work and naming the tensor, a problem whose element count or byte size does not fit in 64 bits
// (issue 21), while the same sizes in a narrower dtype, or one element fewer, pass.
#include "ops/check.hpp"

#include "lowering/host.hpp"
#include "ops/avgpool3d_bwd.hpp"
#include "ops/conv_fwd.hpp"
#include "ops/convnd_bwd_data.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"
#include "ops/groupnorm_bwd.hpp"
#include "ops/maxpool2d_bwd.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {
using namespace tg;
using testing::HasSubstr;
using i64 = std::int64_t;
constexpr i64 kMax = std::numeric_limits<i64>::max();
constexpr i64 p2(int e) { return i64{1} << e; }

TEST(CheckedArithmetic, ProductsAndSumsUpToTheLimit) {
  EXPECT_EQ(ops::checked_mul(0, kMax), 0);
  EXPECT_EQ(ops::checked_mul(kMax, 1), kMax);
  EXPECT_EQ(ops::checked_mul(p2(31), p2(31)), p2(62));
  EXPECT_EQ(ops::checked_mul(p2(31), p2(32)), -1);  // 2^63
  EXPECT_EQ(ops::checked_mul(3, kMax / 3), kMax / 3 * 3);
  EXPECT_EQ(ops::checked_mul(3, kMax / 3 + 1), -1);
  EXPECT_EQ(ops::checked_add(kMax - 5, 5), kMax);
  EXPECT_EQ(ops::checked_add(kMax - 5, 6), -1);
  // "does not fit" propagates through further steps instead of turning back into a size.
  EXPECT_EQ(ops::checked_mul(-1, 0), -1);
  EXPECT_EQ(ops::checked_add(-1, 1), -1);
}

TEST(RequireSize, CountsElementsAndNamesTheTensor) {
  EXPECT_EQ(ops::require_size("op", "t", {2, 3, 4}, 4), 24);
  EXPECT_EQ(ops::require_size("op", "t", {kMax}, 1), kMax);  // exactly the limit
  try {
    ops::require_size("some_op", "dx", {p2(40), p2(20), 16}, 2);
    ADD_FAILURE() << "no exception";
  } catch (const ops::invalid_problem& e) {
    EXPECT_EQ(e.parameter, "dx");
    EXPECT_THAT(e.what(), HasSubstr("some_op: invalid dx: its element count 1099511627776 x 1048576 x 16 does not fit in 64 bits"));
  }
  try {
    ops::require_size("some_op", "w", {p2(31), p2(30)}, 4);  // 2^61 elements fit, 2^63 bytes do not
    ADD_FAILURE() << "no exception";
  } catch (const ops::invalid_problem& e) {
    EXPECT_EQ(e.parameter, "w");
    EXPECT_THAT(e.what(), HasSubstr("its size, 2305843009213693952 elements of 4 bytes, does not fit in 64 bits"));
  }
  EXPECT_EQ(ops::require_size("some_op", "w", {p2(31), p2(30)}, 2), p2(61));  // 2^62 bytes fit
}

// Runs f, which must throw invalid_problem from `op` naming `param` (and `words`) without writing
// the output it was handed.
void expect_rejected(const std::string& op, const std::string& param, const std::string& words, const std::function<void(float*)>& f) {
  SCOPED_TRACE(op + ": expected invalid " + param);
  std::vector<float> out(64, -7.0f);
  try {
    f(out.data());
    ADD_FAILURE() << "no exception";
  } catch (const ops::invalid_problem& e) {
    EXPECT_EQ(e.parameter, param) << e.what();
    EXPECT_THAT(e.what(), HasSubstr(op + ": invalid " + param + ": "));
    EXPECT_THAT(e.what(), HasSubstr(words));
  }
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](float v) { return v == -7.0f; })) << "output written";
}
const std::string kCount = "element count", kBytes = "elements of 4 bytes, does not fit";

// ---------------------------------------------------------------------------------------------- conv
ops::conv_problem conv(i64 N, i64 K, i64 C, i64 in, i64 filter) {
  ops::conv_problem p;
  p.ndim = 2; p.N = N; p.K = K; p.C = C;
  for (int d = 0; d < 2; ++d) p.in[d] = in, p.filter[d] = filter;
  return p;
}
// Each op names the tensor (or parameter) as it calls it: forward, backward data, backward weight.
void expect_conv_rejected(const ops::conv_problem& p, const std::string& fwd_tensor, const std::string& bwd_data_tensor,
                          const std::string& bwd_weight_tensor, const std::string& words) {
  // The problem must not get past validation: an op that ran on it would read past the buffers below.
  ASSERT_THROW(p.validate("test"), ops::invalid_problem);
  host_backend be;
  const std::vector<float> in(64, 1.0f);
  expect_rejected("conv_fwd", fwd_tensor, words, [&](float* out) { ops::conv_fwd(be, p, in.data(), in.data(), out); });
  expect_rejected("convnd_bwd_data", bwd_data_tensor, words, [&](float* out) { ops::convnd_bwd_data(be, p, in.data(), in.data(), out); });
  expect_rejected("grouped_conv_bwd_weight", bwd_weight_tensor, words,
                  [&](float* out) { ops::grouped_conv_bwd_weight(be, p, in.data(), in.data(), out); });
}

TEST(SizeCheck, ConvTensorsPast64Bits) {
  // x [G, N, C, in, in] (y the same with K and the output size: a 1x1 filter keeps in): each tensor in turn.
  expect_conv_rejected(conv(p2(40), 1, p2(20), 1 << 4, 1), "x", "dx", "x", kCount);
  expect_conv_rejected(conv(p2(20), p2(40), 1, 1 << 4, 1), "y", "dy", "dy", kCount);
  expect_conv_rejected(conv(1, p2(32), p2(32), 1, 1), "w", "w", "dw", kCount);
  // Counts that fit but whose fp32 bytes do not (2^61 elements): rejected in fp32, accepted in fp16.
  const auto p = conv(p2(30), 1, p2(27), 1 << 2, 1);
  expect_conv_rejected(p, "x", "dx", "x", kBytes);
  EXPECT_NO_THROW(p.validate("test", 2));
  EXPECT_THROW(p.validate("test", 4), ops::invalid_problem);
}

TEST(SizeCheck, ConvWindowArithmeticPast64Bits) {
  auto p = conv(1, 1, 1, 8, 3);
  p.dilation[1] = p2(62);  // dilation x (filter - 1) + 1 = 2^63 + 1
  expect_conv_rejected(p, "filter[1]", "filter[1]", "filter[1]", "dilated filter");
  p = conv(1, 1, 1, kMax, 3);
  p.pad_l[0] = 1;  // in + pad_l = 2^63
  expect_conv_rejected(p, "in[0]", "in[0]", "in[0]", "padded input");
}

// ---------------------------------------------------------------------------------------------- pools
template <class P>
P pool(i64 N, i64 C, i64 in) {
  P p;
  p.N = N; p.C = C;
  for (auto& v : p.in) v = in;
  for (auto& v : p.window) v = 1;
  for (auto& v : p.stride) v = 1;
  for (auto& v : p.dilation) v = 1;
  return p;
}
// Every entry point of the pools on the host backend, each expected to name its own tensor.
struct pool_names {
  std::string maxpool_bwd, maxpool_bwd_indices, maxpool_fwd, avgpool_bwd;
};
void expect_pools_rejected(const ops::maxpool2d_problem& mp, const ops::avgpool3d_problem& ap, const pool_names& n, const std::string& words) {
  ASSERT_THROW(mp.validate("test"), ops::invalid_problem);  // as for the convolutions
  ASSERT_THROW(ap.validate("test"), ops::invalid_problem);
  host_backend be;
  const std::vector<float> in(64, 1.0f);
  std::vector<std::int32_t> idx(64, 0);
  expect_rejected("maxpool2d_bwd", n.maxpool_bwd, words, [&](float* out) { ops::maxpool2d_bwd(be, mp, in.data(), in.data(), out); });
  expect_rejected("maxpool2d_bwd", n.maxpool_bwd_indices, words,
                  [&](float* out) { ops::maxpool2d_bwd_indices(be, mp, idx.data(), in.data(), out); });
  expect_rejected("maxpool2d_fwd", n.maxpool_fwd, words, [&](float* out) { ops::maxpool2d_fwd(be, mp, in.data(), out, idx.data()); });
  expect_rejected("avgpool3d_bwd", n.avgpool_bwd, words, [&](float* out) { ops::avgpool3d_bwd(be, ap, in.data(), out); });
}

TEST(SizeCheck, PoolTensorsPast64Bits) {
  // Input-shaped tensors: 2^68 and 2^69 elements (a 1-wide window: the output as large, checked after).
  expect_pools_rejected(pool<ops::maxpool2d_problem>(p2(40), p2(20), 16), pool<ops::avgpool3d_problem>(p2(40), p2(20), 8),
                        {"x", "dx", "x", "dx"}, kCount);
  // Output-shaped tensors: an input of one position per plane, 2^59 (2^58) planes, fits in fp32; a
  // 2-wide window with padding 1 at stride 1 gives 2 positions per dimension: 2^61 elements, 2^63 bytes.
  auto mp = pool<ops::maxpool2d_problem>(p2(30), p2(29), 1);
  auto ap = pool<ops::avgpool3d_problem>(p2(29), p2(29), 1);
  for (auto& w : mp.window) w = 2;
  for (auto& w : ap.window) w = 2;
  for (auto* v : {mp.pad_l, mp.pad_r}) v[0] = v[1] = 1;
  for (auto* v : {ap.pad_l, ap.pad_r}) v[0] = v[1] = v[2] = 1;
  ASSERT_EQ(mp.out(0), 2);
  ASSERT_EQ(ap.out(2), 2);
  expect_pools_rejected(mp, ap, {"dy", "dy", "y", "dy"}, kBytes);
  EXPECT_NO_THROW(mp.validate("test", 2));  // 2^62 bytes in fp16
  EXPECT_NO_THROW(ap.validate("test", 2));
}

TEST(SizeCheck, MaxpoolIndicesFitTheirInt32Elements) {
  host_backend be;
  const std::vector<float> in(64, 1.0f);
  std::vector<std::int32_t> idx(64, 0);
  auto p = pool<ops::maxpool2d_problem>(1, 1, 0);
  p.in[0] = p2(16), p.in[1] = p2(15);  // 2^31 positions: 0 .. 2^31 - 1 fit
  EXPECT_NO_THROW(p.validate("maxpool2d_fwd", 4, {"x", "y", "idx"}));
  p.in[1] = p2(15) + 1;
  ASSERT_THROW(p.validate("test", 4, {"x", "y", "idx"}), ops::invalid_problem);  // before an op runs on it
  expect_rejected("maxpool2d_fwd", "idx", "flat positions", [&](float* out) { ops::maxpool2d_fwd(be, p, in.data(), out, idx.data()); });
  expect_rejected("maxpool2d_bwd", "idx", "flat positions",
                  [&](float* out) { ops::maxpool2d_bwd_indices(be, p, idx.data(), in.data(), out); });
  EXPECT_NO_THROW(p.validate("maxpool2d_bwd", 4, {"x", "dy"}));  // the recomputed argmax keeps no indices
}

TEST(SizeCheck, PoolWindowArithmeticPast64Bits) {
  host_backend be;
  const std::vector<float> in(64, 1.0f);
  auto p = pool<ops::avgpool3d_problem>(1, 1, 4);
  p.window[2] = 3; p.dilation[2] = p2(62);
  ASSERT_THROW(p.validate("test"), ops::invalid_problem);  // before an op runs on it
  expect_rejected("avgpool3d_bwd", "window_w", "dilated window", [&](float* out) { ops::avgpool3d_bwd(be, p, in.data(), out); });
  p = pool<ops::avgpool3d_problem>(1, 1, 4);
  p.in[1] = kMax; p.pad_r[1] = 1;
  ASSERT_THROW(p.validate("test"), ops::invalid_problem);  // before an op runs on it
  expect_rejected("avgpool3d_bwd", "in_h", "padded input", [&](float* out) { ops::avgpool3d_bwd(be, p, in.data(), out); });
  // Padding of 2^62 against a window of 3: rejected as more than half the window (2 * pad would overflow).
  p = pool<ops::avgpool3d_problem>(1, 1, 4);
  p.window[0] = 3; p.pad_l[0] = p2(62);
  ASSERT_THROW(p.validate("test"), ops::invalid_problem);  // before an op runs on it
  expect_rejected("avgpool3d_bwd", "pad_d", "half the dilated window", [&](float* out) { ops::avgpool3d_bwd(be, p, in.data(), out); });
}

// ----------------------------------------------------------------------------------------- groupnorm
void expect_norm_rejected(const ops::groupnorm_problem& p, const std::string& tensor, const std::string& words) {
  ASSERT_THROW(p.validate("test"), ops::invalid_problem);  // as for the convolutions
  host_backend be;
  const std::vector<float> in(64, 1.0f), stats(64, 1.0f);
  expect_rejected("groupnorm_bwd", tensor, words, [&](float* out) {
    ops::groupnorm_bwd(be, p, in.data(), in.data(), in.data(), stats.data(), stats.data(), out, out, out);
  });
  std::vector<float> mean(64, -7.0f), rstd(64, -7.0f);
  expect_rejected("groupnorm_fwd", tensor, words, [&](float* out) {
    ops::groupnorm_fwd(be, p, in.data(), in.data(), in.data(), out, mean.data(), rstd.data());
  });
}
ops::groupnorm_problem norm(i64 N, i64 C, i64 G, i64 H, i64 W) {
  ops::groupnorm_problem p;
  p.N = N; p.C = C; p.G = G; p.H = H; p.W = W;
  return p;
}

TEST(SizeCheck, GroupnormTensorsPast64Bits) {
  expect_norm_rejected(norm(p2(20), 8, 1, p2(30), p2(20)), "x", kCount);
  expect_norm_rejected(norm(p2(30), 8, 1, p2(28), 1), "x", kBytes);  // 2^61 elements, 2^63 bytes
  // With H * W = 1 the fp32 scratch rows (5 x [N, C]) pass 64 bits before a 16-bit x does.
  EXPECT_NO_THROW(norm(p2(29), p2(29), 1, 1, 1).validate("test", 2));  // 5 x 2^60 bytes
  try {
    norm(p2(30), p2(30), 1, 1, 1).validate("groupnorm_bwd", 2);  // x: 2^61 bytes; scratch: 5 x 2^62
    ADD_FAILURE() << "no exception";
  } catch (const ops::invalid_problem& e) {
    EXPECT_EQ(e.parameter, "scratch") << e.what();
  }
  // The fp32 [N, G] statistics pass 64 bits before a 16-bit x does when G = C and H * W = 1.
  try {
    norm(3 * p2(30), p2(30), p2(30), 1, 1).validate("groupnorm_fwd", 2);  // x: 3 x 2^61 bytes; mean: 3 x 2^62
    ADD_FAILURE() << "no exception";
  } catch (const ops::invalid_problem& e) {
    EXPECT_EQ(e.parameter, "mean") << e.what();
  }
}

// require's parameter and message may be callables, called only when the check fails (a passing
// validation, inside every call, builds no strings); a failing one says the same as with text.
TEST(Require, BuildsItsTextOnlyWhenTheCheckFails) {
  int built = 0;
  auto param = [&] { ++built; return std::string("filter[1]"); };
  auto why = [&] { ++built; return "must be positive, got " + std::to_string(-3); };
  EXPECT_NO_THROW(ops::require(true, "conv_fwd", param, why));
  EXPECT_EQ(built, 0);
  try {
    ops::require(false, "conv_fwd", param, why);
    FAIL() << "no exception";
  } catch (const ops::invalid_problem& e) {
    EXPECT_EQ(built, 2);
    EXPECT_EQ(e.parameter, "filter[1]");
    EXPECT_STREQ(e.what(), "conv_fwd: invalid filter[1]: must be positive, got -3");
  }
  // A valid problem's validation calls none of its messages; an invalid one names the parameter.
  ops::conv_problem p;
  p.ndim = 2, p.N = 2, p.C = p.K = 8;
  EXPECT_NO_THROW(p.validate("conv_fwd"));
  p.stride[1] = 0;
  try {
    p.validate("conv_fwd");
    FAIL() << "no exception";
  } catch (const ops::invalid_problem& e) {
    EXPECT_EQ(e.parameter, "stride[1]");
    EXPECT_THAT(e.what(), HasSubstr("must be positive, got 0"));
  }
}
}  // namespace
