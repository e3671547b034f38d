// The staged sliding pipeline's plan (lowering/gpu/staged_sliding_plan.hpp) against a brute-force index
// map over whole random depthwise problems: the TMA boxes of every tile are emulated element by element
// (zero outside the tensor), and every element the kernel would read (a warp's taps at every output
// position of its rows, a lane's pair of channels) must be the view's element of A or B at that (group,
// tap, k), with every (tap, k) read exactly once; and the slide the kernel's ring relies on (tap i + 1
// at w is tap i at w + slide_w) holds in shared memory.
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>
#include "lowering/gpu/sliding_choice.hpp"
#include "tma_box_emulation.hpp"
#include "lowering/gpu/staged_sliding_plan.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"

namespace {
using tg::index_t;
using L = tg::ops::conv_layout;

using tg::test::emulate_box;

struct checker {
  std::string why;  // the plan's refusal, if any
  bool planned = false;
  int units = 0, taps = 0, group = 0, segments = 0;
  index_t reads = 0;
};

template <class View>
void check_plan(const View& v, checker& out, tg::staged_limits lim) {
  const tg::staged_plan p = tg::staged_plan_of(v, 2, lim);  // as for 16-bit elements (the host runs floats)
  out.planned = p.ok, out.why = p.why;
  if (!p.ok) return;
  const tg::staged_geometry& g = p.geo;
  out.units = g.units, out.taps = g.taps, out.group = g.group, out.segments = g.segments;
  const index_t G = v.groups(), N = v.n(), K = v.k();
  ASSERT_LE(g.warps(), lim.warps());
  ASSERT_EQ(g.units % g.group, 0);
  ASSERT_EQ(g.seg_w % g.slide_w, 0) << "a segment keeps the w residues";
  ASSERT_GE(g.segments * g.seg_w, g.ext[g.k_digits - 1]) << "the segments cover a tile's row";
  ASSERT_LE(static_cast<std::size_t>(g.stage_bytes) * tg::staged_stages, lim.smem());
  ASSERT_EQ(g.x_elems, p.x.elements());
  ASSERT_EQ(g.y_elems, p.y.elements());
  for (int a = 0; a < p.x.rank; ++a) ASSERT_LE(p.x.box[a], tg::staged_max_box);
  for (int a = 0; a < p.y.rank; ++a) ASSERT_LE(p.y.box[a], tg::staged_max_box);
  if (g.x_tap != 0 && g.len[g.k_digits - 1] > 1) ASSERT_EQ(g.slide_w * g.x_pitch_w, g.spacing * g.x_tap) << "the ring's slide";
  const int w = g.k_digits - 1, h = g.k_digits - 2;
  std::vector<int> seen(static_cast<std::size_t>(N * K), 0);
  for (index_t c0 = 0; c0 < G; c0 += tg::staged_channels) {
    for (index_t t = 0; t < g.tiles; ++t) {
      index_t start[tg::boxes::max_digits];
      tg::staged_tile_start(g, t, start);
      int cx[tg::arch::tma_box::max_rank], cy[tg::arch::tma_box::max_rank];
      tg::staged_corner(g, true, start, c0, cx);
      tg::staged_corner(g, false, start, c0, cy);
      const auto xs = emulate_box(p.x, v.b.data, cx), ys = emulate_box(p.y, v.a.data, cy);
      const int tw = static_cast<int>(std::min<index_t>(g.ext[w], g.len[w] - start[w]));
      const int th = h < 0 ? 1 : static_cast<int>(std::min<index_t>(g.ext[h], g.len[h] - start[h]));
      int ktw, kth;  // the kernel's
      tg::staged_tile_extents(g, t, ktw, kth);
      ASSERT_EQ(ktw, tw);
      ASSERT_EQ(kth, th);
      for (int ui = 0; ui < g.units; ++ui) {
        const tg::staged_unit& u = g.unit[ui];
        ASSERT_GE(u.count, 1);
        ASSERT_LE(u.count, g.taps);
        if (ui % g.group != 0) {  // a walker's units: the same taps of other filter rows
          ASSERT_EQ(u.first, g.unit[ui - ui % g.group].first);
          ASSERT_EQ(u.count, g.unit[ui - ui % g.group].count);
        }
        for (int seg = 0; seg < g.segments; ++seg)
          for (int wr = 0; wr < g.slices_w; ++wr)
            for (int hr = 0; hr < g.slices_h; ++hr)
              for (int hh = hr; hh < th; hh += g.slices_h) {
                const int w0 = seg * g.seg_w + wr, w1 = std::min(tw, (seg + 1) * g.seg_w);
                if (w0 >= w1) continue;  // the kernel skips an empty segment
                // The ring's warm-up (every tap but the last at the segment's first w) reads inside the box.
                for (int i = 0; i + 1 < u.count; ++i) {
                  const index_t xo = u.x_off + hh * g.x_pitch_h + w0 * g.x_pitch_w + (u.first + i * g.spacing) * g.x_tap;
                  ASSERT_GE(xo, 0);
                  ASSERT_LE(xo + tg::staged_channels, g.x_elems) << "warm-up read past the box";
                }
                for (int ww = w0; ww < w1; ww += g.slide_w) {
                index_t k = 0;
                for (int d = 0; d < g.k_digits; ++d) k = k * g.len[d] + start[d] + (d == w ? ww : d == h ? hh : 0);
                for (int i = 0; i < u.count; ++i) {
                  const index_t n = u.n0 + i * g.spacing;
                  ASSERT_LT(n, N);
                  const index_t xo = u.x_off + hh * g.x_pitch_h + ww * g.x_pitch_w + (u.first + i * g.spacing) * g.x_tap;
                  const index_t yo = hh * g.y_pitch_h + ww * g.y_pitch_w;
                  // The lanes: the first, the last, and the last real channel's.
                  for (index_t c : {c0, c0 + tg::staged_channels - 1, G - 1}) {
                    if (c < c0 || c >= c0 + tg::staged_channels) continue;
                    const index_t l = c - c0;
                    ASSERT_GE(xo, 0);
                    ASSERT_LT(xo + l, g.x_elems);
                    ASSERT_LT(yo + l, g.y_elems);
                    const float want_x = c < G ? tg::to_float(v.b.load({{c, n, k}})) : 0.0f;
                    const float want_y = c < G ? tg::to_float(v.a.load({{c, 0, k}})) : 0.0f;
                    ASSERT_EQ(xs[xo + l], want_x) << "x: group " << c << " tap " << n << " k " << k << " tile " << t;
                    ASSERT_EQ(ys[yo + l], want_y) << "dy: group " << c << " k " << k << " tile " << t;
                  }
                  if (c0 == 0) ++seen[n * K + k], ++out.reads;
                }
              }
            }
      }
    }
  }
  for (index_t n = 0; n < N; ++n)
    for (index_t k = 0; k < K; ++k) ASSERT_EQ(seen[n * K + k], 1) << "tap " << n << " k " << k << " read " << seen[n * K + k] << " times";
}

struct plan_backend {
  checker c;
  tg::staged_limits lim;
};
template <class Batch>
void gemm(plan_backend& be, const Batch& batch, tg::gemm_epilogue, tg::gemm_policy) {
  if constexpr (tg::sliding_views_ok<Batch>()) check_plan(batch.views(0), be.c, be.lim);
  else be.c.why = "not one GEMM";
}

template <int ND>
checker run(const tg::ops::conv_problem& p, tg::staged_limits lim) {
  std::vector<float> x(static_cast<std::size_t>(p.x_desc<ND>().element_space)), w(static_cast<std::size_t>(p.w_desc<ND>().element_space)),
      y(static_cast<std::size_t>(p.y_desc<ND>().element_space));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i + 1);  // distinct: equal reads are the same element
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = -static_cast<float>(i + 1);
  plan_backend be;
  be.lim = lim;
  tg::ops::grouped_conv_bwd_weight<ND>(be, p, x.data(), y.data(), w.data());
  return be.c;
}
checker run(const tg::ops::conv_problem& p, tg::staged_limits lim = {}) {
  return p.ndim == 1 ? run<1>(p, lim) : p.ndim == 2 ? run<2>(p, lim) : run<3>(p, lim);
}

tg::ops::conv_problem problem(int ndim, index_t G, index_t K, int filter, index_t in, int stride, int dilation, L layout = L::nhwgc) {
  tg::ops::conv_problem p;
  p.ndim = ndim, p.G = G, p.N = 2, p.K = K, p.C = G, p.layout = layout;
  for (int d = 0; d < ndim; ++d) {
    p.filter[d] = filter, p.in[d] = in, p.stride[d] = stride, p.dilation[d] = dilation;
    p.pad_l[d] = filter / 2, p.pad_r[d] = (filter - 1) / 2;
  }
  return p;
}

TEST(StagedSlidingPlan, ConvolutionBatches) {
  struct expect {
    tg::ops::conv_problem p;
    const char* why;  // "" where it plans
    int units, taps, group, segments;
  };
  const expect cases[] = {
      {problem(2, 24, 24, 3, 9, 1, 1), "", 3, 3, 3, 1},      // 3x3: a unit per filter row, a warp walks all three
      {problem(2, 64, 64, 3, 56, 1, 1), "", 3, 3, 3, 2},     // MobileNet-like rows: two segments of 28
      {problem(2, 24, 24, 7, 11, 1, 1), "", 7, 7, 1, 1},     // 7x7: a unit of 7 taps per filter row
      {problem(2, 24, 24, 5, 11, 1, 1), "", 5, 7, 1, 1},     // 5x5: 5 taps in a ring of 7
      {problem(1, 16, 16, 8, 40, 1, 1), "", 1, 8, 1, 5},     // 8 taps; a row of 40 in 5 segments
      {problem(2, 40, 40, 5, 11, 2, 1), "", 10, 3, 1, 1},    // stride 2: taps 0, 2, 4 and 1, 3 of each row
      {problem(2, 40, 40, 7, 21, 2, 1), "", 14, 4, 1, 1},    // stride 2: taps 0, 2, 4, 6 and 1, 3, 5
      {problem(2, 16, 16, 3, 12, 1, 2), "", 3, 3, 3, 1},     // dilation 2: two residues of w per walker
      {problem(1, 16, 16, 3, 17, 1, 1), "", 1, 3, 1, 2},     // 1-d: two segments of 9 and 8
      {problem(1, 16, 16, 4, 17, 1, 1), "", 1, 4, 1, 2},     // 1-d, 4 taps
      {problem(3, 16, 16, 3, 6, 1, 1), "", 9, 3, 3, 1},      // 3-d: a unit per (depth, row) of the filter
      {problem(2, 24, 24, 1, 9, 1, 1), "", 1, 3, 1, 1},      // 1x1
      {problem(1, 16, 16, 3, 600, 2, 3), "", 2, 3, 1, 1},    // rows of 298 in 3 tiles along w; dilation 3 over stride 2: 3 residues of w
      {problem(1, 16, 16, 3, 300, 1, 2), "", 1, 3, 1, 4},    // rows of 298 in 2 tiles; dilation 2: 2 residues of w
      {problem(1, 16, 16, 3, 600, 100, 200), "filter row wider than a TMA box", 0, 0, 0, 0},  // taps 200 apart
      {problem(2, 16, 32, 3, 9, 1, 1), "more than one row per group", 0, 0, 0, 0},  // channel multiplier 2
      {problem(2, 12, 12, 3, 9, 1, 1), "x's strides are not multiples of 16 bytes", 0, 0, 0, 0},
      {problem(2, 16, 16, 3, 9, 1, 1, L::nchw), "groups not the contiguous axis of dy and x", 0, 0, 0, 0},
      {problem(3, 16, 16, 5, 9, 1, 1), "filter too large: 25 warps of taps (at most 16)", 0, 0, 0, 0},
  };
  for (const auto& c : cases) {
    const auto r = run(c.p);
    const std::string name = std::to_string(c.p.ndim) + "-d filter " + std::to_string(c.p.filter[0]) + " stride " + std::to_string(c.p.stride[0]) +
                             " in " + std::to_string(c.p.in[0]);
    EXPECT_EQ(r.planned, *c.why == 0) << name << ": " << r.why;
    if (*c.why != 0) {
      EXPECT_EQ(r.why, c.why) << name;
      continue;
    }
    EXPECT_EQ(r.units, c.units) << name;
    EXPECT_EQ(r.taps, c.taps) << name;
    EXPECT_EQ(r.group, c.group) << name;
    EXPECT_EQ(r.segments, c.segments) << name;
    EXPECT_GT(r.reads, 0) << name;
  }
}

// Blocks per multiprocessor: one where two would leave the tiles staging-bound (short tiles, more
// halo than rows, a small filter), two elsewhere (performance.md section 30).
struct blocks_backend {
  bool planned = false, one = false;
};
template <class Batch>
void gemm(blocks_backend& be, const Batch& batch, tg::gemm_epilogue, tg::gemm_policy) {
  if constexpr (tg::sliding_views_ok<Batch>()) {
    const auto two = tg::staged_plan_of(batch.views(0), 2, tg::staged_limits{2}), one = tg::staged_plan_of(batch.views(0), 2, tg::staged_limits{1});
    be.planned = two.ok || one.ok, be.one = tg::staged_one_block_better(two, one);
  }
}
// Stages are a plan value only the gather's kernel takes: the sliding plan refuses any but its ring's.
TEST(StagedSlidingPlan, StagesOnlyTheKernelsRing) {
  const tg::ops::conv_problem p = problem(2, 64, 64, 3, 20, 1, 1);
  EXPECT_TRUE(run(p).planned) << run(p).why;
  tg::staged_limits three;
  three.stages = 3;
  const checker r = run(p, three);
  EXPECT_FALSE(r.planned);
  EXPECT_NE(r.why.find("stages"), std::string::npos) << r.why;
}

TEST(StagedSlidingPlan, BlocksPerMultiprocessor) {
  struct expect {
    index_t G;
    int filter, in, stride;
    bool one;
  };
  const expect cases[] = {
      {144, 3, 56, 1, true},   // MobileNetV2 3x3 C144 56x56: 2 rows a tile with two blocks, 6 with one
      {960, 3, 7, 1, false},   // MobileNetV2 3x3 C960 7x7: the whole image either way
      {384, 7, 28, 1, false},  // ConvNeXt 7x7 C384 28x28: 49 taps a position
      {144, 5, 56, 2, true},   // EfficientNet 5x5 stride 2: two blocks do not plan (10 warps of taps)
  };
  for (const auto& c : cases) {
    tg::ops::conv_problem p = problem(2, c.G, c.G, c.filter, c.in, c.stride, 1);
    p.N = 1;
    std::vector<float> x(static_cast<std::size_t>(p.x_desc<2>().element_space)), w(static_cast<std::size_t>(p.w_desc<2>().element_space)),
        y(static_cast<std::size_t>(p.y_desc<2>().element_space));
    blocks_backend be;
    tg::ops::grouped_conv_bwd_weight<2>(be, p, x.data(), y.data(), w.data());
    EXPECT_TRUE(be.planned) << "C" << c.G;
    EXPECT_EQ(be.one, c.one) << "C" << c.G << " " << c.filter << "x" << c.filter;
  }
}

// Random depthwise problems (1-d to 3-d, strides, dilations, asymmetric padding, channel counts that
// leave a block part empty): every read checked against the views.
TEST(StagedSlidingPlan, RandomDepthwiseAgainstTheIndexMap) {
  std::mt19937 rng(20261127);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int planned = 0;
  for (int trial = 0; trial < 40; ++trial) {
    tg::ops::conv_problem p;
    p.ndim = pick(1, 3), p.N = pick(1, 2);
    p.G = p.K = p.C = 8 * pick(1, 10), p.layout = L::nhwgc;
    for (int d = 0; d < p.ndim; ++d) {
      p.filter[d] = pick(1, p.ndim == 3 ? 2 : 7), p.stride[d] = pick(1, 3), p.dilation[d] = pick(1, 2);
      p.in[d] = pick(p.dilation[d] * (p.filter[d] - 1) + 1, p.ndim == 3 ? 6 : 13);
      p.pad_l[d] = pick(0, p.filter[d] - 1), p.pad_r[d] = pick(0, p.filter[d] - 1);
    }
    // A whole multiprocessor's budget or half of it, under every setting of the schedule's fields.
    for (int blocks : {1, 2})
      for (bool tight : {true, false})
        for (bool segments : {true, false}) {
          const auto r = run(p, tg::staged_limits{blocks, tight, segments});
          if (r.planned) ++planned;
          else EXPECT_NE(r.why.find("filter too large"), std::string::npos) << r.why;  // the only refusal these problems may get
        }
  }
  EXPECT_GE(planned, 240);
}
}  // namespace
