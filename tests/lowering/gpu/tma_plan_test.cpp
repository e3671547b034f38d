// The TMA plans over random problems of every layout (the checks: tma_plan_check.hpp).
#include "tma_plan_check.hpp"

using namespace tma_plan_check;
using L = tg::ops::conv_layout;

TEST(TmaPlan, ChannelsLast1D) { check_random<1>(L::nhwgc, 64, true); }

TEST(TmaPlan, ChannelsLast2D) {
  const int before = stepped_plans, halos_before = halo_plans, stores_before = c_store_plans, stacked_before = stacked_plans;
  const long long clipped_before = c_store_clipped;
  check_random<2>(L::nhwgc, 64, true);
  EXPECT_GT(c_store_plans, stores_before) << "no plan stored C as TMA boxes: the random problems no longer test them";
  EXPECT_GT(c_store_clipped, clipped_before) << "no store box reached past C's edge: the clipping is not tested";
  EXPECT_GT(stepped_plans, before) << "no plan had boxes stepping along a filter tap: the random problems no longer test them";
  EXPECT_GT(halo_plans, halos_before) << "no plan had halos: the random problems no longer test them";
  EXPECT_GT(stacked_plans, stacked_before) << "no plan stacked an operand's boxes: the random problems no longer test them";
}

TEST(TmaPlan, ChannelsLast3D) {
  const int before = halo_plans;
  check_random<3>(L::nhwgc, 64, true);
  EXPECT_GT(halo_plans, before) << "no 3-d plan had halos: the random problems no longer test them";
}

TEST(TmaPlan, GroupsFirst2D) { check_random<2>(L::gnhwc, 64, true); }

// Odd channel counts and channels-first: whatever plans exist must be right (most are refused).
TEST(TmaPlan, OddChannels2D) { check_random<2>(L::nhwgc, 24, false); }

TEST(TmaPlan, ChannelsFirst2D) { check_random<2>(L::nchw, 64, false); }

// One channel per group, channels-last: w is the contiguous axis, which both a filter column (a row
// digit of im2col) and an output column (a k digit) step along: 16-bit rows take the row digit, 32-bit
// ones the k digit (boxes::contiguous_digit), and whatever plans either gets must be right.
TEST(TmaPlan, OneChannelPerGroup) {
  check_random<1>(L::nhwgc, 1, false);
  check_random<2>(L::nhwgc, 1, false);
  const int before = tf32_plans;
  check_random<1>(L::nhwgc, 1, false, true);
  check_random<2>(L::nhwgc, 1, false, true);
  EXPECT_GT(tf32_plans, before) << "no tf32 plan with one channel per group: the k-digit rule is not tested here";
}

// The tf32 plans (32 fp32 channels per 128-byte row): the channels-last forward's (both operands K-major)
// exist and bring the views' elements, halos included; so do backward data's and weight's with their
// MN-major operands (the launch takes backward weight's, both MN-major, on the MN-major tf32 tile and
// refuses the others), and backward data on a copy of w with its output channels innermost
// (rows_last_of) gets plans of every col2im class.
TEST(TmaPlan, Tf32ChannelsLast) {
  const int plans = tf32_plans, halos = tf32_halo_plans, mn = tf32_mn_plans, copies = tf32_weight_copy_plans, stacked = stacked_plans,
            several = several_a_step_plans;
  check_random<1>(L::nhwgc, 64, true, true);
  check_random<2>(L::nhwgc, 64, true, true);
  check_random<3>(L::nhwgc, 64, true, true);
  EXPECT_GT(tf32_plans, plans) << "no tf32 plan: the test checks nothing";
  EXPECT_GT(tf32_halo_plans, halos) << "no tf32 halo plan: the random problems no longer test them";
  EXPECT_GT(tf32_mn_plans, mn) << "no tf32 plan with an MN-major operand: the transposers' boxes are not tested here";
  EXPECT_GT(tf32_weight_copy_plans, copies) << "backward data on w with K innermost got no tf32 plan";
  EXPECT_GT(stacked_plans, stacked) << "no tf32 plan stacked its boxes: the backward weight's one load per operand is not tested";
  EXPECT_GT(several_a_step_plans, several) << "no tf32 plan with several boxes a tap: the 2-box taps of 64 fp32 channels are not tested";
}

// Channels-first backward weight: dy's and x's output positions are contiguous, so both operands are
// K-major for the tf32 tiles (a k-tile 32 output columns): plans that bring every element of every box.
// A filter column that shifts x's w by one element a tap puts B's corners off the 16-byte boundaries
// the TMA needs (regression: a padded 3x3 layer faulted on an H200, session 36), so only filters one
// wide along w, or with padding and dilation in whole 16 bytes, plan.
TEST(TmaPlan, Tf32ChannelsFirstBackwardWeight) {
  const int before = tf32_bwd_weight_plans;
  check_random<1>(L::nchw, 64, false, true);
  check_random<2>(L::nchw, 64, false, true);
  tg::ops::conv_problem p;
  p.ndim = 2, p.layout = L::nchw, p.N = 2, p.K = 64, p.C = 72, p.in[0] = 20, p.in[1] = 24;
  std::mt19937 rng(13);
  check_problem<2>(p, rng, false, true);  // 1x1
  EXPECT_GT(tf32_bwd_weight_plans, before) << "channels-first backward weight got no tf32 plan";
  auto plans = [&](const tg::ops::conv_problem& q) {
    std::vector<float> y(1), x(1), w(1);
    return tg::tma_gemm::plan_class<128, 128, false, tg::tma_gemm::halo_kind::none, BK32>(bwd_weight_views<2>(q, y.data(), x.data(), w.data())).ok;
  };
  EXPECT_TRUE(plans(p));
  p.filter[0] = p.filter[1] = 3, p.pad_l[0] = p.pad_l[1] = p.pad_r[0] = p.pad_r[1] = 1;
  EXPECT_FALSE(plans(p)) << "a 3x3 filter padded by 1: x's boxes start one element off";
  check_problem<2>(p, rng, false, true);  // whatever other tile plans it has keep their corners aligned
  p.dilation[1] = 4, p.pad_l[1] = p.pad_r[1] = 4;  // w moves 4 fp32 elements a tap: whole 16 bytes
  EXPECT_TRUE(plans(p));
  const int dilated = tf32_bwd_weight_plans;
  check_problem<2>(p, rng, false, true);
  EXPECT_GT(tf32_bwd_weight_plans, dilated) << "the dilated 3x3 plan was not checked";
}

// Odd channel counts (a k-tile of 32 past a group's channels reads zero) and groups first.
TEST(TmaPlan, Tf32OddChannelsAndGroupsFirst) {
  check_random<2>(L::nhwgc, 24, false, true);
  check_random<2>(L::gnhwc, 64, true, true);
}
