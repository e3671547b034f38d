// Invalid problems are rejected before any work, with tg::ops::invalid_problem naming the bad parameter,
// and nothing is written to the outputs (poisoned before the call, still poisoned after).
// One test per parameter family; each mutates one parameter of a small valid problem.
#include "../../examples/common/harness.hpp"
#include "lowering/host.hpp"
#include "ops/avgpool3d_bwd.hpp"
#include "ops/conv_fwd.hpp"
#include "ops/convnd_bwd_data.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"
#include "ops/groupnorm_bwd.hpp"
#include "ops/maxpool2d_bwd.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>

namespace {
using namespace tg;
using i64 = std::int64_t;

// Buffers far larger than any problem below, so that a missing check shows as a write, not a crash.
constexpr std::size_t kElems = 1 << 14;

struct buffers {
  std::vector<float> in1 = std::vector<float>(kElems, 0.5f), in2 = std::vector<float>(kElems, 0.25f);
  std::vector<float> out1 = std::vector<float>(kElems), out2 = std::vector<float>(kElems), out3 = std::vector<float>(kElems);
  std::vector<float> stat1 = std::vector<float>(kElems), stat2 = std::vector<float>(kElems);
  std::vector<std::int32_t> idx = std::vector<std::int32_t>(kElems, 0);
  buffers() { ex::poison(out1); ex::poison(out2); ex::poison(out3); ex::poison(stat1); ex::poison(stat2); }
};
bool all_poisoned(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float f) { return __builtin_bit_cast(std::uint32_t, f) == 0xffffffffu; });
}

// Runs f (which calls an op on b), expects invalid_problem naming `param`, and untouched outputs.
void expect_rejected(const std::string& op, const std::string& param, const std::function<void(buffers&)>& f) {
  SCOPED_TRACE(op + ": expected invalid " + param);
  buffers b;
  try {
    f(b);
    ADD_FAILURE() << "no exception";
  } catch (const ops::invalid_problem& e) {
    EXPECT_EQ(e.parameter, param) << e.what();
    EXPECT_THAT(e.what(), testing::HasSubstr(op));
    EXPECT_THAT(e.what(), testing::HasSubstr(param));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception: " << e.what();
  }
  EXPECT_TRUE(all_poisoned(b.out1)) << "output 1 written";
  EXPECT_TRUE(all_poisoned(b.out2)) << "output 2 written";
  EXPECT_TRUE(all_poisoned(b.out3)) << "output 3 written";
  EXPECT_TRUE(all_poisoned(b.stat1)) << "statistics 1 written";
  EXPECT_TRUE(all_poisoned(b.stat2)) << "statistics 2 written";
  EXPECT_TRUE(std::all_of(b.idx.begin(), b.idx.end(), [](std::int32_t v) { return v == 0; })) << "indices written";
}

// ---------------------------------------------------------------------------------------------- conv
ops::conv_problem valid_conv(int ndim) {
  ops::conv_problem p;
  p.ndim = ndim; p.G = 2; p.N = 2; p.K = 4; p.C = 6;
  for (int d = 0; d < ndim; ++d) { p.filter[d] = 3; p.in[d] = 5; p.stride[d] = 1; p.dilation[d] = 1; p.pad_l[d] = 1; p.pad_r[d] = 1; }
  return p;
}
// The three conv ops, through the run-time dispatch and the template of the problem's own ndim (or 2).
void expect_conv_rejected(const ops::conv_problem& p, const std::string& param) {
  host_backend be;
  expect_rejected("conv_fwd", param, [&](buffers& b) { ops::conv_fwd(be, p, b.in1.data(), b.in2.data(), b.out1.data(), gemm_policy{2}); });
  expect_rejected("convnd_bwd_data", param, [&](buffers& b) { ops::convnd_bwd_data(be, p, b.in1.data(), b.in2.data(), b.out1.data()); });
  expect_rejected("grouped_conv_bwd_weight", param,
                  [&](buffers& b) { ops::grouped_conv_bwd_weight(be, p, b.in1.data(), b.in2.data(), b.out1.data(), gemm_policy{3}); });
  const int nd = p.ndim >= 1 && p.ndim <= 3 ? p.ndim : 2;
  expect_rejected("conv_fwd", param, [&](buffers& b) {
    if (nd == 1) ops::conv_fwd<1>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
    else if (nd == 2) ops::conv_fwd<2>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
    else ops::conv_fwd<3>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
  });
  expect_rejected("convnd_bwd_data", param, [&](buffers& b) {
    if (nd == 1) ops::convnd_bwd_data<1>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
    else if (nd == 2) ops::convnd_bwd_data<2>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
    else ops::convnd_bwd_data<3>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
  });
  expect_rejected("grouped_conv_bwd_weight", param, [&](buffers& b) {
    if (nd == 1) ops::grouped_conv_bwd_weight<1>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
    else if (nd == 2) ops::grouped_conv_bwd_weight<2>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
    else ops::grouped_conv_bwd_weight<3>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
  });
}
std::string at(const char* name, int d) { return std::string(name) + "[" + std::to_string(d) + "]"; }

TEST(ConvInvalidProblem, ValidBaseProblemsAreAccepted) {
  for (int nd = 1; nd <= 3; ++nd) {
    const auto p = valid_conv(nd);
    buffers b;
    host_backend be;
    EXPECT_NO_THROW(ops::conv_fwd(be, p, b.in1.data(), b.in2.data(), b.out3.data()));
    EXPECT_NO_THROW(ops::convnd_bwd_data(be, p, b.in1.data(), b.in2.data(), b.out1.data()));
    EXPECT_NO_THROW(ops::grouped_conv_bwd_weight(be, p, b.in1.data(), b.in2.data(), b.out2.data()));
  }
}

TEST(ConvInvalidProblem, Ndim) {
  for (int nd : {0, -1, 4}) {
    auto p = valid_conv(2);
    p.ndim = nd;
    expect_conv_rejected(p, "ndim");
  }
}

TEST(ConvInvalidProblem, NdimMismatchingTheTemplate) {
  host_backend be;
  for (int nd = 1; nd <= 3; ++nd) {
    const auto p = valid_conv(nd);
    const int other = nd % 3 + 1;
    SCOPED_TRACE(testing::Message() << "problem " << nd << "-d, template " << other << "-d");
    expect_rejected("conv_fwd", "ndim", [&](buffers& b) {
      if (other == 1) ops::conv_fwd<1>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
      else if (other == 2) ops::conv_fwd<2>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
      else ops::conv_fwd<3>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
    });
    expect_rejected("convnd_bwd_data", "ndim", [&](buffers& b) {
      if (other == 1) ops::convnd_bwd_data<1>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
      else if (other == 2) ops::convnd_bwd_data<2>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
      else ops::convnd_bwd_data<3>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
    });
    expect_rejected("grouped_conv_bwd_weight", "ndim", [&](buffers& b) {
      if (other == 1) ops::grouped_conv_bwd_weight<1>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
      else if (other == 2) ops::grouped_conv_bwd_weight<2>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
      else ops::grouped_conv_bwd_weight<3>(be, p, b.in1.data(), b.in2.data(), b.out1.data());
    });
  }
}

TEST(ConvInvalidProblem, NonPositiveGNKC) {
  for (i64 v : {0, -2}) {
    { auto p = valid_conv(2); p.G = v; expect_conv_rejected(p, "G"); }
    { auto p = valid_conv(2); p.N = v; expect_conv_rejected(p, "N"); }
    { auto p = valid_conv(2); p.K = v; expect_conv_rejected(p, "K"); }
    { auto p = valid_conv(2); p.C = v; expect_conv_rejected(p, "C"); }
  }
}

TEST(ConvInvalidProblem, ChannelsNotDivisibleByGroups) {
  { auto p = valid_conv(2); p.C = 5; expect_conv_rejected(p, "C"); }         // G = 2
  { auto p = valid_conv(2); p.K = 3; expect_conv_rejected(p, "K"); }
  { auto p = valid_conv(2); p.G = 4; p.K = 8; expect_conv_rejected(p, "C"); }  // C = 6
  { auto p = valid_conv(2); p.G = 3; p.C = 6; expect_conv_rejected(p, "K"); }  // K = 4
  { auto p = valid_conv(1); p.G = 12; p.C = 6; p.K = 12; expect_conv_rejected(p, "C"); }  // G > C
}

TEST(ConvInvalidProblem, NonPositiveFilterAndInput) {
  for (int nd = 1; nd <= 3; ++nd)
    for (int d = 0; d < nd; ++d)
      for (i64 v : {0, -1}) {
        { auto p = valid_conv(nd); p.filter[d] = v; expect_conv_rejected(p, at("filter", d)); }
        { auto p = valid_conv(nd); p.in[d] = v; expect_conv_rejected(p, at("in", d)); }
      }
}

TEST(ConvInvalidProblem, ZeroOrNegativeStrideOrDilation) {
  for (int nd = 1; nd <= 3; ++nd)
    for (int d = 0; d < nd; ++d)
      for (i64 v : {0, -1}) {
        { auto p = valid_conv(nd); p.stride[d] = v; expect_conv_rejected(p, at("stride", d)); }
        { auto p = valid_conv(nd); p.dilation[d] = v; expect_conv_rejected(p, at("dilation", d)); }
      }
}

TEST(ConvInvalidProblem, NegativePadding) {
  for (int nd = 1; nd <= 3; ++nd)
    for (int d = 0; d < nd; ++d) {
      { auto p = valid_conv(nd); p.pad_l[d] = -1; expect_conv_rejected(p, at("pad_l", d)); }
      { auto p = valid_conv(nd); p.pad_r[d] = -1; expect_conv_rejected(p, at("pad_r", d)); }
    }
}

TEST(ConvInvalidProblem, FilterLargerThanPaddedInput) {
  for (int nd = 1; nd <= 3; ++nd)
    for (int d = 0; d < nd; ++d) {
      { auto p = valid_conv(nd); p.filter[d] = 8; expect_conv_rejected(p, at("filter", d)); }     // 8 > 5 + 2
      { auto p = valid_conv(nd); p.dilation[d] = 4; expect_conv_rejected(p, at("filter", d)); }   // span 9 > 7
      { auto p = valid_conv(nd); p.pad_l[d] = p.pad_r[d] = 0; p.in[d] = 2; expect_conv_rejected(p, at("filter", d)); }
      { auto p = valid_conv(nd); p.filter[d] = 7; EXPECT_NO_THROW(p.validate("test")); }          // exactly fits
    }
}

// ---------------------------------------------------------------------------------------------- pools
ops::maxpool2d_problem valid_maxpool() {
  ops::maxpool2d_problem p;
  p.N = 2; p.C = 3;
  for (int d = 0; d < 2; ++d) { p.in[d] = 6; p.window[d] = 3; p.stride[d] = 2; p.dilation[d] = 1; p.pad_l[d] = 1; p.pad_r[d] = 1; }
  return p;
}
ops::avgpool3d_problem valid_avgpool() {
  ops::avgpool3d_problem p;
  p.N = 2; p.C = 3;
  for (int d = 0; d < 3; ++d) { p.in[d] = 5; p.window[d] = 3; p.stride[d] = 2; p.dilation[d] = 1; p.pad_l[d] = 1; p.pad_r[d] = 1; }
  return p;
}
// The three maxpool entry points share the 2-d problem.
void expect_maxpool_rejected(const ops::maxpool2d_problem& p, const std::string& param) {
  host_backend be;
  expect_rejected("maxpool2d_fwd", param, [&](buffers& b) { ops::maxpool2d_fwd(be, p, b.in1.data(), b.out1.data(), b.idx.data()); });
  expect_rejected("maxpool2d_bwd", param, [&](buffers& b) { ops::maxpool2d_bwd(be, p, b.in1.data(), b.in2.data(), b.out1.data()); });
  expect_rejected("maxpool2d_bwd", param, [&](buffers& b) { ops::maxpool2d_bwd_indices(be, p, b.idx.data(), b.in2.data(), b.out1.data()); });
}
void expect_avgpool_rejected(ops::avgpool3d_problem p, const std::string& param) {
  host_backend be;
  for (bool include : {true, false}) {
    p.count_include_pad = include;
    expect_rejected("avgpool3d_bwd", param, [&](buffers& b) { ops::avgpool3d_bwd(be, p, b.in2.data(), b.out1.data()); });
  }
}
std::string axis(const char* name, int nd, int d) { return std::string(name) + "_" + (nd == 2 ? "hw" : "dhw")[d]; }

// The fields of a pool problem in one spatial dimension d.
struct pool_fields {
  i64 &N, &C, &in, &win, &stride, &dil, &pl, &pr;
};
template <class P>
pool_fields fields(P& p, int d) { return {p.N, p.C, p.in[d], p.window[d], p.stride[d], p.dilation[d], p.pad_l[d], p.pad_r[d]}; }

// Mutates the fields of both pool problems (in each spatial dimension in turn when per_dim).
template <class Mutate>
void for_each_pool(Mutate&& m, const char* param, bool per_dim) {
  for (int d = 0; d < (per_dim ? 2 : 1); ++d) {
    auto p = valid_maxpool();
    m(fields(p, d));
    expect_maxpool_rejected(p, per_dim ? axis(param, 2, d) : param);
  }
  for (int d = 0; d < (per_dim ? 3 : 1); ++d) {
    auto p = valid_avgpool();
    m(fields(p, d));
    expect_avgpool_rejected(p, per_dim ? axis(param, 3, d) : param);
  }
}

TEST(PoolInvalidProblem, ValidBaseProblemsAreAccepted) {
  buffers b;
  host_backend be;
  EXPECT_NO_THROW(ops::maxpool2d_fwd(be, valid_maxpool(), b.in1.data(), b.out1.data(), b.idx.data()));
  EXPECT_NO_THROW(ops::maxpool2d_bwd(be, valid_maxpool(), b.in1.data(), b.in2.data(), b.out2.data()));
  EXPECT_NO_THROW(ops::avgpool3d_bwd(be, valid_avgpool(), b.in2.data(), b.out3.data()));
}

TEST(PoolInvalidProblem, NonPositiveNC) {
  for (i64 v : {0, -3}) {
    for_each_pool([&](pool_fields f) { f.N = v; }, "N", false);
    for_each_pool([&](pool_fields f) { f.C = v; }, "C", false);
  }
}

TEST(PoolInvalidProblem, NonPositiveInputOrWindow) {
  for (i64 v : {0, -1}) {
    for_each_pool([&](pool_fields f) { f.in = v; }, "in", true);
    for_each_pool([&](pool_fields f) { f.win = v; }, "window", true);
  }
}

TEST(PoolInvalidProblem, ZeroOrNegativeStrideOrDilation) {
  for (i64 v : {0, -2}) {
    for_each_pool([&](pool_fields f) { f.stride = v; }, "stride", true);
    for_each_pool([&](pool_fields f) { f.dil = v; }, "dilation", true);
  }
}

TEST(PoolInvalidProblem, NegativePadding) {
  for_each_pool([&](pool_fields f) { f.pl = -1; }, "pad_l", true);
  for_each_pool([&](pool_fields f) { f.pr = -1; }, "pad_r", true);
}

TEST(PoolInvalidProblem, WindowLargerThanPaddedInput) {
  for_each_pool([&](pool_fields f) { f.in = 1; f.pl = f.pr = 0; }, "window", true);  // 3 > 1
  for_each_pool([&](pool_fields f) { f.in = 2; f.win = 5; f.pl = f.pr = 1; }, "window", true);  // 5 > 4
  for_each_pool([&](pool_fields f) { f.in = 2; f.dil = 2; f.pl = f.pr = 1; }, "window", true);  // span 5 > 4
}

TEST(PoolInvalidProblem, PaddingMoreThanHalfTheWindow) {
  for_each_pool([&](pool_fields f) { f.pl = 2; }, "pad", true);  // window 3: at most 1
  for_each_pool([&](pool_fields f) { f.pr = 2; }, "pad", true);
  for_each_pool([&](pool_fields f) { f.win = 1; f.pl = f.pr = 1; }, "pad", true);  // window 1: no padding at all
  for_each_pool([&](pool_fields f) { f.win = 2; f.dil = 1; f.pl = 2; }, "pad", true);  // span 2: at most 1
  // The dilated window counts: window 2, dilation 3 -> span 4 allows padding 2.
  auto p = valid_maxpool();
  p.window[0] = 2; p.dilation[0] = 3; p.pad_l[0] = p.pad_r[0] = 2;
  EXPECT_NO_THROW(p.validate("test"));
  p.pad_l[0] = 3;
  EXPECT_THROW(p.validate("test"), ops::invalid_problem);
}

// ----------------------------------------------------------------------------------------- groupnorm
ops::groupnorm_problem valid_norm() {
  ops::groupnorm_problem p;
  p.N = 2; p.C = 6; p.G = 3; p.H = 4; p.W = 5;
  return p;
}
void expect_norm_rejected(ops::groupnorm_problem p, const std::string& param) {
  host_backend be;
  for (auto layout : {ops::channel_order::first, ops::channel_order::last}) {
    p.layout = layout;
    expect_rejected("groupnorm_fwd", param, [&](buffers& b) {
      ops::groupnorm_fwd(be, p, b.in1.data(), b.in2.data(), b.in2.data(), b.out1.data(), b.stat1.data(), b.stat2.data());
    });
    // The backward pass reads mean/rstd; give it valid ones in separate buffers.
    std::vector<float> mean(kElems, 0.0f), rstd(kElems, 1.0f);
    expect_rejected("groupnorm_bwd", param, [&](buffers& b) {
      ops::groupnorm_bwd(be, p, b.in1.data(), b.in2.data(), b.in2.data(), mean.data(), rstd.data(), b.out1.data(), b.out2.data(), b.out3.data());
    });
  }
}

TEST(GroupNormInvalidProblem, ValidBaseProblemIsAccepted) {
  buffers b;
  host_backend be;
  const auto p = valid_norm();
  EXPECT_NO_THROW(ops::groupnorm_fwd(be, p, b.in1.data(), b.in2.data(), b.in2.data(), b.out1.data(), b.stat1.data(), b.stat2.data()));
  EXPECT_NO_THROW(ops::groupnorm_bwd(be, p, b.in1.data(), b.in2.data(), b.in2.data(), b.stat1.data(), b.stat2.data(), b.out1.data(),
                                     b.out2.data(), b.out3.data()));
}

TEST(GroupNormInvalidProblem, NonPositiveSizes) {
  for (i64 v : {0, -4}) {
    { auto p = valid_norm(); p.N = v; expect_norm_rejected(p, "N"); }
    { auto p = valid_norm(); p.C = v; expect_norm_rejected(p, "C"); }
    { auto p = valid_norm(); p.G = v; expect_norm_rejected(p, "G"); }
    { auto p = valid_norm(); p.H = v; expect_norm_rejected(p, "H"); }
    { auto p = valid_norm(); p.W = v; expect_norm_rejected(p, "W"); }
  }
}

TEST(GroupNormInvalidProblem, ChannelsNotDivisibleByGroups) {
  { auto p = valid_norm(); p.G = 4; expect_norm_rejected(p, "C"); }   // 6 % 4
  { auto p = valid_norm(); p.G = 12; expect_norm_rejected(p, "C"); }  // more groups than channels
  { auto p = valid_norm(); p.C = 7; expect_norm_rejected(p, "C"); }
}

TEST(GroupNormInvalidProblem, NonPositiveEps) {
  for (float eps : {0.0f, -0.0f, -1e-5f, std::numeric_limits<float>::quiet_NaN()}) {
    auto p = valid_norm();
    p.eps = eps;
    SCOPED_TRACE(testing::Message() << "eps " << eps);
    expect_norm_rejected(p, "eps");
  }
}
}  // namespace
