// Which GEMM batches take the depthwise pipeline (lowering/gpu/depthwise_choice.hpp): the numbers'
// rules, then the batches the convolution op programs build, per kind of problem (depthwise in each
// layout and stride, a channel multiplier, resnext-like groups, dense), as the GPU lowering sees them.
#include <gtest/gtest.h>
#include <string>
#include <vector>
#include "lowering/gpu/depthwise_choice.hpp"
#include "ops/conv_fwd.hpp"
#include "ops/convnd_bwd_data.hpp"

namespace {
using tg::index_t;
using L = tg::ops::conv_layout;

TEST(DepthwiseChoice, Lanes) {
  EXPECT_EQ(tg::depthwise_lanes(3), 3);    // fewer words than a row of lanes
  EXPECT_EQ(tg::depthwise_lanes(8), 8);
  EXPECT_EQ(tg::depthwise_lanes(18), 6);   // MobileNet's 144 fp16 channels: 3 blocks, none idle
  EXPECT_EQ(tg::depthwise_lanes(36), 6);   // the same in fp32
  EXPECT_EQ(tg::depthwise_lanes(48), 8);   // ConvNeXt's 384 fp16 channels
  EXPECT_EQ(tg::depthwise_lanes(120), 8);  // MobileNet's 960
  for (index_t w = 1; w < 300; ++w) {      // never more idle lanes than 8 lanes would leave
    const int l = tg::depthwise_lanes(w);
    ASSERT_GE(l, w < 4 ? static_cast<int>(w) : 4);
    ASSERT_LE((w + l - 1) / l * l - w, (w + 7) / 8 * 8 - w);
  }
}

TEST(DepthwiseChoice, Numbers) {
  tg::depthwise_facts f{384, 64 * 28 * 28, 1, 49, 8, 24, true};
  auto p = tg::choose_depthwise(f);
  ASSERT_TRUE(p.ok) << p.why;
  EXPECT_EQ(p.lanes, 8);
  EXPECT_EQ(p.smem, 49 * 24 / 16 * 16 + 16 + 49 * 64 * sizeof(float));  // entries rounded to 16 bytes, then the taps
  f.max_n = 2;
  EXPECT_STREQ(tg::choose_depthwise(f).why, "more than one column per group");
  f.max_n = 1, f.groups = 4;
  EXPECT_STREQ(tg::choose_depthwise(f).why, "fewer groups than a 16-byte word holds");
  f.groups = 384, f.unit_groups = false;
  EXPECT_STREQ(tg::choose_depthwise(f).why, "groups not one element apart");
  f.unit_groups = true, f.max_k = 7 * 7 * 7;  // a 7^3 filter's taps for 64 groups pass 48 KiB
  EXPECT_STREQ(tg::choose_depthwise(f).why, "filter too large for shared memory");
  f.max_k = 5 * 5 * 5;
  EXPECT_TRUE(tg::choose_depthwise(f).ok);
}

// A backend that records the choice for the batch an op program hands it (found by argument-dependent
// lookup) instead of running it.
struct choice_backend {
  tg::depthwise_plan plan;
};
template <class Batch>
void gemm(choice_backend& be, const Batch& batch, tg::gemm_epilogue, tg::gemm_policy) {
  if constexpr (tg::depthwise_views_ok<Batch>()) be.plan = tg::choose_depthwise(tg::depthwise_facts_of(batch));
  else be.plan.why = "views not affine-split";
}

struct problem {
  int ndim;
  index_t G, K, C, filter, in, stride;
  L layout;
};
tg::ops::conv_problem make(const problem& q) {
  tg::ops::conv_problem p;
  p.ndim = q.ndim, p.G = q.G, p.N = 2, p.K = q.K, p.C = q.C, p.layout = q.layout;
  for (int d = 0; d < q.ndim; ++d) {
    p.filter[d] = q.filter, p.in[d] = q.in, p.stride[d] = q.stride;
    p.pad_l[d] = q.filter / 2, p.pad_r[d] = (q.filter - 1) / 2;  // asymmetric for even filters
  }
  return p;
}

// The plan each op program's batch gets (fp32 storage: 4 groups per word).
template <int ND>
std::pair<tg::depthwise_plan, tg::depthwise_plan> plans(const problem& q) {
  const auto p = make(q);
  std::vector<float> x(static_cast<std::size_t>(p.x_desc<ND>().element_space)), w(static_cast<std::size_t>(p.w_desc<ND>().element_space)),
      y(static_cast<std::size_t>(p.y_desc<ND>().element_space));
  choice_backend data, fwd;
  tg::ops::convnd_bwd_data<ND>(data, p, y.data(), w.data(), x.data());
  tg::ops::conv_fwd<ND>(fwd, p, x.data(), w.data(), y.data());
  return {data.plan, fwd.plan};
}

TEST(DepthwiseChoice, ConvolutionBatches) {
  struct expect {
    problem q;
    const char* data_why;  // "" where backward data (and the forward) take the pipeline
    const char* fwd_why;
  };
  const expect cases[] = {
      {{2, 24, 24, 24, 7, 9, 1, L::nhwgc}, "", ""},                  // depthwise 7x7, channels-last
      {{2, 40, 40, 40, 5, 11, 2, L::nhwgc}, "", ""},                 // stride 2: four col2im classes
      {{1, 12, 12, 12, 3, 17, 1, L::nhwgc}, "", ""},                 // 1-d
      {{3, 8, 8, 8, 3, 6, 1, L::nhwgc}, "", ""},                     // 3-d
      {{2, 16, 32, 16, 3, 9, 1, L::nhwgc}, "groups not one element apart", "more than one column per group"},  // multiplier 2
      {{2, 24, 24, 24, 3, 9, 1, L::gnhwc}, "groups not one element apart", "groups not one element apart"},    // groups outermost
      {{2, 24, 24, 24, 3, 9, 1, L::nchw}, "groups not one element apart", "groups not one element apart"},     // (the GPU copies it channels-last first)
      {{2, 8, 32, 32, 3, 9, 1, L::nhwgc}, "more than one column per group", "more than one column per group"}, // resnext-like, 4 per group
      {{2, 1, 16, 1, 3, 9, 1, L::nhwgc}, "fewer groups than a 16-byte word holds", "more than one column per group"},  // dense, one input channel
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.q.ndim << "-d G " << c.q.G << " K " << c.q.K << " C " << c.q.C << " layout " << static_cast<int>(c.q.layout));
    const auto [data, fwd] = c.q.ndim == 1 ? plans<1>(c.q) : c.q.ndim == 2 ? plans<2>(c.q) : plans<3>(c.q);
    EXPECT_EQ(data.ok, std::string(c.data_why).empty());
    EXPECT_EQ(std::string(data.why), c.data_why);
    EXPECT_EQ(fwd.ok, std::string(c.fwd_why).empty());
    EXPECT_EQ(std::string(fwd.why), c.fwd_why);
  }
}
}  // namespace
