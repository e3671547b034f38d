// The sliding-window pipeline's choices (lowering/gpu/sliding_choice.hpp): its block and grid over
// whole domains of sizes; its column tiles against a brute-force index map (every k step the kernel
// slides on reads, at column j, the element column j + 1 read at the step before); and the plan each
// kind of convolution problem's backward-weight GEMM gets.
#include <gtest/gtest.h>
#include <random>
#include <set>
#include <string>
#include <vector>
#include "lowering/gpu/sliding_choice.hpp"
#include "ops/conv_fwd.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"

namespace {
using tg::index_t;
using L = tg::ops::conv_layout;

tg::sliding_facts facts(index_t G, index_t N, index_t tiles, int word = 8) {
  return {.groups = G, .m = 1, .n = N, .k = 1 << 20, .group_word = word, .unit_groups = true, .tiles = tiles};
}

TEST(SlidingChoice, Numbers) {
  auto p = tg::choose_sliding(facts(144, 9, 3));  // MobileNetV2 3x3: 18 words x 3 tiles
  ASSERT_TRUE(p.ok) << p.why;
  EXPECT_EQ(p.words, 18);
  EXPECT_EQ(p.pairs, 54);
  EXPECT_EQ(p.pairs_per_block, 54);
  EXPECT_EQ(p.subs, 2);
  EXPECT_EQ(p.threads, 128);
  EXPECT_EQ(p.blocks, 1);
  p = tg::choose_sliding(facts(384, 49, 14));  // ConvNeXt 7x7: 48 words x 14 tiles, 6 blocks of 112
  EXPECT_EQ(p.pairs_per_block, 112);
  EXPECT_EQ(p.subs, 1);
  EXPECT_EQ(p.threads, 128);
  EXPECT_EQ(p.blocks, 6);
  auto f = facts(144, 9, 3);
  f.m = 2;
  EXPECT_STREQ(tg::choose_sliding(f).why, "more than one row per group");
  f.m = 1, f.groups = 4;
  EXPECT_STREQ(tg::choose_sliding(f).why, "fewer groups than a 16-byte word holds");
  f.groups = 144, f.unit_groups = false;
  EXPECT_STREQ(tg::choose_sliding(f).why, "groups not one element apart");
  f.unit_groups = true, f.tiles = tg::sliding_max_tiles + 1;
  EXPECT_STREQ(tg::choose_sliding(f).why, "filter too large");
  f.tiles = 3, f.k = tg::sliding_max_chunk * 65535 + 1;  // the grid could not keep chunks short enough
  EXPECT_STREQ(tg::choose_sliding(f).why, "reduction too long");
  f.k -= 1;
  EXPECT_TRUE(tg::choose_sliding(f).ok);
}

// Over whole domains: a block holds its pairs in whole warps, the blocks cover every pair once and
// are as even as their count allows; the grid fills at most one wave unless forced, covers every k,
// and leaves each thread sliding_min_k or more where K allows it.
TEST(SlidingChoice, BlockAndGridOverDomains) {
  for (index_t pairs = 1; pairs < 3000; ++pairs) {
    tg::sliding_plan p;
    p.pairs = pairs;
    p = tg::sliding_block(p);
    ASSERT_LE(p.threads, tg::sliding_max_threads);
    ASSERT_EQ(p.threads % 32, 0);
    ASSERT_GE(p.threads, p.pairs_per_block * p.subs);
    ASSERT_LT(p.threads - p.pairs_per_block * p.subs, 32);
    ASSERT_GE(p.blocks * p.pairs_per_block, pairs);
    ASSERT_LT((p.blocks - 1) * p.pairs_per_block, pairs);
    ASSERT_EQ(p.blocks, (pairs + tg::sliding_max_threads - 1) / tg::sliding_max_threads);
    for (index_t K : {0, 1, 63, 64, 1000, 50176, 401408}) {
      for (index_t slots : {1, 132, 396}) {
        const auto g = tg::sliding_grid(p, K, slots, 0);
        ASSERT_GE(g.splits, 1);
        ASSERT_GE(g.splits * g.chunk, K);
        ASSERT_LT((g.splits - 1) * g.chunk, K > 0 ? K : 1);
        ASSERT_LE(g.chunk, tg::sliding_max_chunk);
        if (g.splits > 1 && g.splits > (K + tg::sliding_max_chunk - 1) / tg::sliding_max_chunk) {
          ASSERT_LE(g.splits * p.blocks, slots) << pairs << " " << K;
          ASSERT_GE(g.chunk, tg::sliding_min_k * p.subs) << pairs << " " << K;
        }
      }
      const auto forced = tg::sliding_grid(p, K, 132, 7);  // 7 chunks, or as many as keep each short enough
      const index_t fewest = (K + tg::sliding_max_chunk - 1) / tg::sliding_max_chunk;
      ASSERT_EQ(forced.splits, K >= 7 ? (fewest > 7 ? fewest : 7) : (K > 0 ? K : 1));
    }
  }
}

// A backend that records the choice for the batch the op program hands it (argument-dependent lookup)
// and checks the tiles of B against its elements.
struct choice_backend {
  tg::sliding_choice choice;
  bool views_ok = false;
  index_t slid_steps = 0;  // k steps the kernel would slide on, over every sliding tile
};

// Every column in exactly one tile, right-aligned; a sliding tile's columns each one k step after the
// one before; and wherever k + 1's entry is k's moved by that step (the kernel's test), element
// (k + 1, column j) is element (k, column j + 1), group by group: B's elements are distinct numbers
// (x holds its index + 1), padding reads zero, so equal loads mean the same element or both padding.
template <class View>
void check_tiles(const View& b, const std::vector<tg::sliding_tile>& tiles, index_t& slid) {
  const index_t G = b.desc.length(0), N = b.desc.length(1), K = b.desc.length(2);
  std::set<int> seen;
  using E = typename tg::affine_split<View>::entry;
  constexpr int NG = tg::affine_split<View>::n_guards;
  std::vector<E> ks(static_cast<std::size_t>(K));
  for (index_t k = 0; k < K; ++k) ks[k] = tg::affine_entry<1>(b, 0, 2, k);
  for (const auto& t : tiles) {
    ASSERT_GE(t.count, 1);
    ASSERT_LE(t.count, tg::sliding_columns);
    const int first = tg::sliding_columns - t.count;
    for (int j = first; j < tg::sliding_columns; ++j) {
      ASSERT_TRUE(seen.insert(t.n[j]).second) << "column " << t.n[j] << " in two tiles";
      ASSERT_LT(t.n[j], N);
    }
    if (!t.slides) continue;
    ASSERT_GE(t.count, 2);
    auto col = [&](int j) { return tg::affine_entry<1>(b, 0, 1, t.n[j]); };
    E step = col(tg::sliding_columns - 1);
    const E before = col(tg::sliding_columns - 2);
    step.off -= before.off;
    for (int i = 0; i < NG; ++i) step.guard[i] -= before.guard[i];
    for (int j = first; j + 1 < tg::sliding_columns; ++j) ASSERT_TRUE((tg::moved_by<E, NG>(col(j), col(j + 1), step)));
    for (index_t k = 0; k + 1 < K; ++k) {
      if (!tg::moved_by<E, NG>(ks[k], ks[k + 1], step)) continue;
      ++slid;
      for (index_t g = 0; g < G; g += G > 3 ? G / 3 : 1)
        for (int j = first; j + 1 < tg::sliding_columns; ++j)
          ASSERT_EQ(tg::to_float(b.load({{g, t.n[j], k + 1}})), tg::to_float(b.load({{g, t.n[j + 1], k}})))
              << "group " << g << " column " << t.n[j] << " k " << k;
    }
  }
  ASSERT_EQ(static_cast<index_t>(seen.size()), N);
}

template <class Batch>
void gemm(choice_backend& be, const Batch& batch, tg::gemm_epilogue, tg::gemm_policy) {
  be.views_ok = tg::sliding_views_ok<Batch>();
  if constexpr (tg::sliding_views_ok<Batch>()) {
    be.choice = tg::choose_sliding_for(batch.views(0));
    if (be.choice.plan.ok) check_tiles(batch.views(0).b, be.choice.tiles, be.slid_steps);
  } else {
    be.choice.plan.why = "not one GEMM";
  }
}

struct problem {
  int ndim;
  index_t G, K, C, filter, in, stride, dilation;
  L layout;
};
tg::ops::conv_problem make(const problem& q) {
  tg::ops::conv_problem p;
  p.ndim = q.ndim, p.G = q.G, p.N = 2, p.K = q.K, p.C = q.C, p.layout = q.layout;
  for (int d = 0; d < q.ndim; ++d) {
    p.filter[d] = q.filter, p.in[d] = q.in, p.stride[d] = q.stride, p.dilation[d] = q.dilation;
    p.pad_l[d] = q.filter / 2, p.pad_r[d] = (q.filter - 1) / 2;  // asymmetric for even filters
  }
  return p;
}

template <int ND>
choice_backend run(const tg::ops::conv_problem& p) {
  std::vector<float> x(static_cast<std::size_t>(p.x_desc<ND>().element_space)), w(static_cast<std::size_t>(p.w_desc<ND>().element_space)),
      y(static_cast<std::size_t>(p.y_desc<ND>().element_space));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i + 1);
  choice_backend be, fwd;
  tg::ops::grouped_conv_bwd_weight<ND>(be, p, x.data(), y.data(), w.data());
  EXPECT_TRUE(be.views_ok);
  // The forward's single GEMM reads x's im2col as A (padding guards): the kernel is not even
  // instantiated for it.
  tg::ops::conv_fwd<ND>(fwd, p, x.data(), w.data(), y.data());
  EXPECT_FALSE(fwd.views_ok);
  return be;
}
choice_backend run(const tg::ops::conv_problem& p) { return p.ndim == 1 ? run<1>(p) : p.ndim == 2 ? run<2>(p) : run<3>(p); }

TEST(SlidingChoice, ConvolutionBatches) {
  struct expect {
    problem q;
    const char* why;  // "" where backward weight takes the pipeline
    int tiles, sliding;
  };
  const expect cases[] = {
      {{2, 24, 24, 24, 7, 9, 1, 1, L::nhwgc}, "", 14, 14},   // depthwise 7x7: per filter row 4 + 3 taps
      {{2, 16, 16, 16, 3, 9, 1, 1, L::nhwgc}, "", 3, 3},     // 3x3
      {{2, 40, 40, 40, 5, 11, 2, 1, L::nhwgc}, "", 10, 10},  // stride 2: taps 0, 2, 4 and 1, 3 of each row
      {{2, 16, 16, 16, 3, 12, 1, 2, L::nhwgc}, "", 3, 0},    // dilation 2, stride 1: nothing slides, 9 taps packed 4 to a tile
      {{2, 16, 16, 16, 3, 12, 2, 2, L::nhwgc}, "", 3, 3},    // dilation 2, stride 2: each tap one k step on
      {{1, 12, 12, 12, 3, 17, 1, 1, L::nhwgc}, "", 1, 1},    // 1-d
      {{3, 16, 16, 16, 3, 6, 1, 1, L::nhwgc}, "", 9, 9},     // 3-d
      {{2, 24, 24, 24, 1, 9, 1, 1, L::nhwgc}, "", 1, 0},     // 1x1: one column
      {{2, 16, 32, 16, 3, 9, 1, 1, L::nhwgc}, "more than one row per group", 0, 0},   // channel multiplier 2
      {{2, 32, 256, 256, 3, 9, 1, 1, L::nhwgc}, "more than one row per group", 0, 0},  // resnext-like
      {{2, 1, 64, 64, 3, 9, 1, 1, L::nhwgc}, "more than one row per group", 0, 0},     // dense
      {{2, 3, 3, 3, 3, 9, 1, 1, L::nhwgc}, "fewer groups than a 16-byte word holds", 0, 0},  // (fp32: 4 to a word)
      {{2, 16, 16, 16, 3, 9, 1, 1, L::nchw}, "groups not one element apart", 0, 0},  // (the GPU copies it channels-last first)
      {{2, 16, 16, 16, 3, 9, 1, 1, L::gnhwc}, "groups not one element apart", 0, 0},  // groups-first: N x H x W apart
  };
  for (const auto& c : cases) {
    const auto be = run(make(c.q));
    const std::string name = std::to_string(c.q.ndim) + "-d G" + std::to_string(c.q.G) + " filter " + std::to_string(c.q.filter);
    EXPECT_EQ(be.choice.plan.ok, *c.why == 0) << name << ": " << be.choice.plan.why;
    if (*c.why != 0) {
      EXPECT_STREQ(be.choice.plan.why, c.why) << name;
      continue;
    }
    int sliding = 0;
    for (const auto& t : be.choice.tiles) sliding += t.slides;
    EXPECT_EQ(static_cast<int>(be.choice.tiles.size()), c.tiles) << name;
    EXPECT_EQ(sliding, c.sliding) << name;
    if (c.sliding > 0) EXPECT_GT(be.slid_steps, 0) << name;  // the brute-force check saw sliding steps
  }
}

// Random depthwise problems (1-d to 3-d, strides, dilations, asymmetric padding): every tile checked
// against the brute-force map.
TEST(SlidingChoice, RandomDepthwiseTilesAgainstTheIndexMap) {
  std::mt19937 rng(20261126);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    tg::ops::conv_problem p;
    p.ndim = pick(1, 3), p.N = pick(1, 2);
    p.G = p.K = p.C = pick(4, 20), p.layout = L::nhwgc;
    for (int d = 0; d < p.ndim; ++d) {
      p.filter[d] = pick(1, p.ndim == 3 ? 3 : 7), p.stride[d] = pick(1, 3), p.dilation[d] = pick(1, 2);
      p.in[d] = pick(p.dilation[d] * (p.filter[d] - 1) + 1, p.ndim == 3 ? 6 : 13);
      p.pad_l[d] = pick(0, p.filter[d] - 1), p.pad_r[d] = pick(0, p.filter[d] - 1);
    }
    const auto be = run(p);
    ASSERT_TRUE(be.choice.plan.ok) << be.choice.plan.why;
    ++checked;
  }
  EXPECT_EQ(checked, 60);
}
}  // namespace
