// Which GEMM batches take the depthwise pipeline (lowering/gpu/depthwise_choice.hpp): the numbers'
// rules, then the batches the convolution op programs build, per kind of problem (depthwise in each
// layout and stride, a channel multiplier, resnext-like groups, dense), as the GPU lowering sees them.
#include <gtest/gtest.h>
#include <string>
#include <vector>
#include "lowering/gpu/depthwise_choice.hpp"
#include "ops/conv_fwd.hpp"
#include "ops/convnd_bwd_data.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"

namespace {
using tg::index_t;
using L = tg::ops::conv_layout;

// fp16 facts of a 2-d depthwise backward data: G groups, K taps.
tg::depthwise_facts facts(index_t G, index_t K, int word = 8) {
  return {.groups = G, .max_m = 1 << 20, .max_n = 1, .max_k = K, .group_word = word, .rows_per_thread = 4, .entry_bytes = 24,
          .row_entry_bytes = 48, .b_entry_bytes = 16, .unit_groups = true};
}

TEST(DepthwiseChoice, Lanes) {
  EXPECT_EQ(tg::depthwise_lanes(facts(144, 9)), 18);   // MobileNet 3x3: all 144 channels in one block
  EXPECT_EQ(tg::depthwise_lanes(facts(960, 9)), 30);   // 120 words: 4 blocks of 30, none idle
  EXPECT_EQ(tg::depthwise_lanes(facts(384, 49)), 24);  // ConvNeXt 7x7: 27 words of taps fit, 24 leave none idle
  EXPECT_EQ(tg::depthwise_lanes(facts(384, 49, 4)), 32);  // fp32: 96 words, 32 fit
  EXPECT_EQ(tg::depthwise_lanes(facts(20, 49)), 3);    // fewer words than lanes
  EXPECT_EQ(tg::depthwise_slots(3), 64);               // (85 would not fit their row entries)
  // Over whole domains: the choice fits, leaves no more idle lanes than the most that fit would, and
  // takes at least half of them.
  for (index_t G = 8; G < 1200; G += 7)
    for (index_t K : {1, 9, 25, 49, 125}) {
      const auto f = facts(G, K);
      const int l = tg::depthwise_lanes(f);
      ASSERT_GT(l, 0) << G << " " << K;
      ASSERT_LE(tg::depthwise_smem(f, l), tg::depthwise_smem_limit);
      int most = 0;
      const index_t words = (G + 7) / 8;
      for (int m = 1; m <= 32 && m <= words; ++m)
        if (tg::depthwise_smem(f, m) <= tg::depthwise_smem_limit) most = m;
      ASSERT_GE(2 * l, most);
      ASSERT_LE((words + l - 1) / l * l - words, (words + most - 1) / most * most - words);
    }
}

TEST(DepthwiseChoice, Numbers) {
  tg::depthwise_facts f = facts(384, 49);
  auto p = tg::choose_depthwise(f);
  ASSERT_TRUE(p.ok) << p.why;
  EXPECT_EQ(p.lanes, 24);
  EXPECT_EQ(p.tile_rows, 256 / 24 * 4);  // 10 rows side by side
  // k entries rounded to 16 bytes, the taps of 192 groups, their B row entries, two tiles' row entries
  EXPECT_EQ(p.smem, 49 * 24 / 16 * 16 + 16 + 49 * 192 * sizeof(float) + 192 * 16 + 2 * 40 * 48);
  f.max_n = 2;
  EXPECT_STREQ(tg::choose_depthwise(f).why, "more than one column per group");
  f.max_n = 1, f.groups = 4;
  EXPECT_STREQ(tg::choose_depthwise(f).why, "fewer groups than a 16-byte word holds");
  f.groups = 384, f.unit_groups = false;
  EXPECT_STREQ(tg::choose_depthwise(f).why, "groups not one element apart");
  f.unit_groups = true, f.max_k = 32 * 32;  // a 32x32 filter: one word of groups' taps passes 48 KiB with the row entries
  EXPECT_STREQ(tg::choose_depthwise(f).why, "filter too large for shared memory");
  f.max_k = 7 * 7 * 7, f.rows_per_thread = 2;  // a 7^3 filter (3-d): a few lanes
  EXPECT_TRUE(tg::choose_depthwise(f).ok);
}

// A backend that records the choice for the batch an op program hands it (found by argument-dependent
// lookup) instead of running it.
struct choice_backend {
  tg::depthwise_plan plan;
  bool views_ok = false;
};
template <class Batch>
void gemm(choice_backend& be, const Batch& batch, tg::gemm_epilogue, tg::gemm_policy) {
  be.views_ok = tg::depthwise_views_ok<Batch>();
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
  choice_backend data, fwd, weight;
  tg::ops::convnd_bwd_data<ND>(data, p, y.data(), w.data(), x.data());
  tg::ops::conv_fwd<ND>(fwd, p, x.data(), w.data(), y.data());
  // Backward weight's B is x's im2col (padding guards): the kernel is not even instantiated for it.
  tg::ops::grouped_conv_bwd_weight<ND>(weight, p, x.data(), y.data(), w.data());
  EXPECT_TRUE(data.views_ok);
  EXPECT_TRUE(fwd.views_ok);
  EXPECT_FALSE(weight.views_ok);
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
