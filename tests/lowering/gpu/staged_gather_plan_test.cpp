// The staged gather's plan (lowering/gpu/staged_gather_plan.hpp) against a brute-force index map over
// whole random depthwise forward and backward-data problems: the TMA box of A for every tile is
// emulated element by element (zero outside the tensor), and at every output a warp computes (its
// rows, segment and w residue) each unit's tap i must read A's element of that (group, row, k) at the
// kernel's offset (the unit's first tap, then i slides), take B's element of the same k, and store at
// C's element of that row; every (row, k) of every GEMM of the batch is read exactly once, every row
// stored once.
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>
#include "lowering/gpu/staged_gather_plan.hpp"
#include "ops/conv_fwd.hpp"
#include "ops/convnd_bwd_data.hpp"
#include "tma_box_emulation.hpp"

namespace {
using tg::index_t;
using L = tg::ops::conv_layout;

using tg::test::emulate_box;

struct checker {
  std::string why;  // the first refusal, if any
  int gemms = 0, planned = 0, units = 0, taps = 0, zero = 0, sets = 0;
  index_t reads = 0;
};

template <class View>
void check_plan(const View& v, checker& out, tg::staged_limits lim) {
  const tg::staged_gather_plan p = tg::staged_gather_plan_of(v, 2, lim);  // as for 16-bit elements (the host runs floats)
  ++out.gemms;
  if (!p.ok) {
    if (out.why.empty()) out.why = p.why;
    return;
  }
  ++out.planned;
  if (p.empty) {
    ASSERT_EQ(v.m() * v.groups(), 0);
    return;
  }
  const tg::staged_geometry& g = p.tiles.geo;
  out.units = g.units, out.taps = g.taps, out.sets = p.tap_sets;
  const index_t G = v.groups(), M = v.m(), K = v.k();
  ASSERT_EQ(g.gather, 1);
  ASSERT_LE(g.warps(), lim.warps());
  ASSERT_LE(g.taps, tg::gather_max_taps);
  ASSERT_EQ(g.stages, lim.stages);
  ASSERT_LE(static_cast<std::size_t>(g.stage_bytes) * g.stages + tg::staged_gather_taps_bytes(g) * static_cast<std::size_t>(p.tap_sets), lim.smem())
      << "stages and taps";
  // Blocks walk (tile, channel block) pairs only where the last block is narrow and every block's taps
  // fit; every (tile, channel block) is then some block's piece exactly once, for any count of blocks.
  const index_t channel_blocks = (G + tg::staged_channels - 1) / tg::staged_channels;
  if (p.tap_sets != 1) {
    ASSERT_EQ(p.tap_sets, channel_blocks);
    ASSERT_NE(G % tg::staged_channels, 0);
    ASSERT_LE(tg::staged_gather_taps_bytes(g) * static_cast<std::size_t>(p.tap_sets), tg::staged_gather_pair_taps_most);
  }
  for (index_t runs : {index_t{1}, index_t{5}, index_t{132}}) {
    const index_t columns = p.tap_sets > 1 ? 1 : channel_blocks, work = g.tiles * p.tap_sets, used = runs < work ? runs : work;
    std::vector<int> pieces(static_cast<std::size_t>(g.tiles * channel_blocks), 0);
    for (index_t column = 0; column < columns; ++column)
      for (index_t r = 0; r < used; ++r) {
        const tg::staged_gather_run run = tg::staged_gather_run_of(work, used, r);
        ASSERT_LE(run.end - run.first, (work + used - 1) / used);
        for (index_t piece = run.first; piece < run.end; ++piece) {
          index_t t, cb;
          tg::staged_gather_piece(piece, p.tap_sets, column, t, cb);
          ASSERT_LT(t, g.tiles);
          ASSERT_LT(cb, channel_blocks);
          ++pieces[static_cast<std::size_t>(t * channel_blocks + cb)];
        }
      }
    for (int n : pieces) ASSERT_EQ(n, 1) << "a (tile, channel block) walked " << n << " times over " << used << " blocks";
  }
  ASSERT_GE(g.stage_bytes, g.x_elems * 2);
  ASSERT_EQ(g.x_elems, p.tiles.x.elements());
  for (int a = 0; a < p.tiles.x.rank; ++a) ASSERT_LE(p.tiles.x.box[a], tg::staged_max_box);
  const int w = g.k_digits - 1, h = g.k_digits - 2;
  const tg::arch::tma_box& ct = p.tiles.y;
  const index_t step = static_cast<index_t>(g.slide_w) * g.x_pitch_w;  // the kernel's slide: tap i + 1 of output j is tap i of output j + 1
  std::vector<int> seen(static_cast<std::size_t>(M * K), 0), stored(static_cast<std::size_t>(M), 0);
  for (index_t c0 = 0; c0 < G; c0 += tg::staged_channels) {
    for (index_t t = 0; t < g.tiles; ++t) {
      index_t start[tg::boxes::max_digits];
      tg::staged_tile_start(g, t, start);
      int cx[tg::arch::tma_box::max_rank], cy[tg::arch::tma_box::max_rank];
      tg::staged_corner(g, true, start, c0, cx);
      tg::staged_corner(g, false, start, c0, cy);
      const auto xs = p.zero ? std::vector<float>() : emulate_box(p.tiles.x, v.a.data, cx);  // (a product-free plan reads nothing)
      index_t c_tile = ct.base;
      for (int a = 0; a < ct.rank; ++a) c_tile += static_cast<index_t>(cy[a]) * ct.stride[a];
      int tw, th;
      tg::staged_tile_extents(g, t, tw, th);
      for (int it = 0; it < tg::staged_gather_items(g, tw, th); ++it) {  // the kernel's items, any warp's
        int hh, w0;
        const int outputs = tg::staged_gather_item(g, tw, it, hh, w0);
        ASSERT_LE(outputs, tg::staged_gather_outputs);
        ASSERT_LT(hh, th);
        for (int ww = w0; ww < w0 + outputs * g.slide_w; ww += g.slide_w) {
          ASSERT_LT(ww, tw);
          index_t m = 0;
          for (int d = 0; d < g.k_digits; ++d) m = m * g.len[d] + start[d] + (d == w ? ww : d == h ? hh : 0);
          ASSERT_LT(m, M);
          for (index_t c : {c0, c0 + tg::staged_channels - 2, G - 2}) {  // lanes' first channels: the first, the last, the last real
            if (c < c0 || c >= c0 + tg::staged_channels || c >= G) continue;
            const index_t at = c_tile + hh * p.c_pitch_h + ww * p.c_pitch_w + (c - c0);
            ASSERT_EQ(at % 2, 0) << "a channel pair's store is not a 4-byte word";
            ASSERT_EQ(tg::to_float(v.c.data[at]), tg::to_float(v.c.load({{c, m, 0}}))) << "C: group " << c << " row " << m;
            ASSERT_EQ(tg::to_float(v.c.data[at + 1]), tg::to_float(v.c.load({{c + 1, m, 0}}))) << "C: group " << c + 1 << " row " << m;
          }
          if (c0 == 0) ++stored[m];
          for (int ui = 0; ui < g.units; ++ui) {
            const tg::staged_unit& u = g.unit[ui];
            ASSERT_GE(u.count, 1);
            ASSERT_LE(u.count, g.taps);
            const index_t base = hh * g.x_pitch_h + u.x_off + u.first * g.x_tap + ww * g.x_pitch_w;
            for (int i = 0; i < u.count; ++i) {
              const index_t xo = base + i * step;
              const index_t b_off = p.tap_b[ui * tg::gather_max_taps + i];
              // Which k: the one whose B element this is (B's values are distinct).
              index_t k = -1;
              for (index_t kk = 0; kk < K && k < 0; ++kk)
                if (tg::to_float(v.b.data[p.b0 + b_off]) == tg::to_float(v.b.load({{0, 0, kk}}))) k = kk;
              ASSERT_GE(k, 0) << "B's offset is no element of group 0";
              for (index_t c : {c0, c0 + tg::staged_channels - 1, G - 1}) {
                if (c < c0 || c >= c0 + tg::staged_channels) continue;
                const index_t l = c - c0;
                ASSERT_GE(xo, 0);
                ASSERT_LT(xo + l, g.x_elems) << "read past the box";
                const float want = c < G ? tg::to_float(v.a.load({{c, m, k}})) : 0.0f;  // past G: the box's zeros
                ASSERT_EQ(xs[xo + l], want) << "A: group " << c << " row " << m << " k " << k << " tile " << t;
                if (c < G) ASSERT_EQ(tg::to_float(v.b.data[p.b0 + c * p.b_group + b_off]), tg::to_float(v.b.load({{c, 0, k}}))) << "B: group " << c;
              }
              if (c0 == 0) ++seen[m * K + k], ++out.reads;
            }
          }
        }
      }
    }
  }
  for (index_t m = 0; m < M; ++m) {
    ASSERT_EQ(stored[m], 1) << "row " << m << " stored " << stored[m] << " times";
    // A plan without products: every element of A is padding.
    for (index_t k = 0; k < K; ++k)
      if (p.zero) ASSERT_EQ(tg::to_float(v.a.load({{0, m, k}})), 0.0f) << "a product-free plan of A with a real element";
      else ASSERT_EQ(seen[m * K + k], 1) << "row " << m << " k " << k << " read " << seen[m * K + k] << " times";
  }
  out.zero += p.zero;
}

struct plan_backend {
  checker c;
  tg::staged_limits lim;
};
template <class Batch>
void gemm(plan_backend& be, const Batch& batch, tg::gemm_epilogue, tg::gemm_policy) {
  using V = decltype(batch.views(0));
  if constexpr (tg::affine_split<decltype(V::a)>::on && tg::affine_split<decltype(V::c)>::on && tg::affine_split<decltype(V::b)>::on)
    for (index_t t = 0; t < batch.count(); ++t) check_plan(batch.views(t), be.c, be.lim);
  else be.c.why = "views not affine-split";
}

template <int ND>
checker run(const tg::ops::conv_problem& p, bool forward, tg::staged_limits lim) {
  std::vector<float> x(static_cast<std::size_t>(p.x_desc<ND>().element_space)), w(static_cast<std::size_t>(p.w_desc<ND>().element_space)),
      y(static_cast<std::size_t>(p.y_desc<ND>().element_space));
  // Distinct values: equal reads are the same element.
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i + 1);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = -static_cast<float>(i + 1);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.5f + static_cast<float>(i);
  plan_backend be;
  be.lim = lim;
  if (forward) tg::ops::conv_fwd<ND>(be, p, x.data(), w.data(), y.data());
  else tg::ops::convnd_bwd_data<ND>(be, p, y.data(), w.data(), x.data());
  return be.c;
}
checker run(const tg::ops::conv_problem& p, bool forward, tg::staged_limits lim = {}) {
  return p.ndim == 1 ? run<1>(p, forward, lim) : p.ndim == 2 ? run<2>(p, forward, lim) : run<3>(p, forward, lim);
}

tg::ops::conv_problem problem(int ndim, index_t G, int filter, index_t in, int stride, int dilation, L layout = L::nhwgc) {
  tg::ops::conv_problem p;
  p.ndim = ndim, p.G = G, p.N = 2, p.K = G, p.C = G, p.layout = layout;
  for (int d = 0; d < ndim; ++d) {
    p.filter[d] = filter, p.in[d] = in, p.stride[d] = stride, p.dilation[d] = dilation;
    p.pad_l[d] = filter / 2, p.pad_r[d] = (filter - 1) / 2;
  }
  return p;
}

TEST(StagedGatherPlan, ConvolutionBatches) {
  struct expect {
    tg::ops::conv_problem p;
    bool forward;
    const char* why;  // "" where every GEMM of the batch plans
    int gemms, units, taps;
  };
  const expect cases[] = {
      {problem(2, 64, 3, 20, 1, 1), true, "", 1, 3, 3},      // 3x3: a unit per filter row
      {problem(2, 64, 3, 20, 1, 1), false, "", 1, 3, 3},     // ... backward data: the taps flipped
      {problem(2, 40, 7, 11, 1, 1), false, "", 1, 7, 7},     // 7x7: 7 taps a unit
      {problem(2, 40, 5, 13, 2, 1), true, "", 1, 10, 3},     // stride 2 forward: taps 0, 2, 4 and 1, 3 of each row
      {problem(2, 40, 5, 13, 2, 1), false, "", 4, 0, 0},     // stride 2 backward data: four classes of dx
      {problem(1, 16, 8, 40, 1, 1), false, "", 1, 1, 8},     // 1-d, 8 taps
      {problem(3, 16, 3, 6, 1, 1), true, "", 1, 9, 3},       // 3-d: a unit per (depth, row) of the filter
      {problem(2, 24, 1, 9, 1, 1), true, "", 1, 1, 3},       // 1x1: one tap in a unit
      {problem(1, 16, 3, 300, 1, 2), true, "", 1, 1, 3},     // rows longer than a box; dilation 2
      {problem(2, 12, 3, 9, 1, 1), true, "x's strides are not multiples of 16 bytes", 1, 0, 0},
      {problem(2, 16, 3, 9, 1, 1, L::nchw), true, "groups not the contiguous axis of dy and x", 1, 0, 0},
  };
  for (const auto& c : cases) {
    const auto r = run(c.p, c.forward);
    const std::string name = std::string(c.forward ? "forward " : "backward data ") + std::to_string(c.p.ndim) + "-d filter " +
                             std::to_string(c.p.filter[0]) + " stride " + std::to_string(c.p.stride[0]) + " in " + std::to_string(c.p.in[0]);
    EXPECT_EQ(r.gemms, c.gemms) << name;
    if (*c.why != 0) {
      EXPECT_EQ(r.planned, 0) << name;
      EXPECT_EQ(r.why, c.why) << name;
      continue;
    }
    EXPECT_EQ(r.planned, r.gemms) << name << ": " << r.why;
    if (c.units > 0) EXPECT_EQ(r.units, c.units) << name;
    if (c.taps > 0) EXPECT_EQ(r.taps, c.taps) << name;
    EXPECT_GT(r.reads, 0) << name;
  }
}

// A narrow last block's lanes per item: a power of two that holds every channel (a pair a lane), the
// fewest that do; 32 (the whole warp on one item) for 33 channels and more.
TEST(StagedGatherPlan, LanesOfANarrowBlock) {
  for (index_t channels = 1; channels <= tg::staged_channels; ++channels) {
    const int lanes = tg::staged_gather_lanes(channels);
    EXPECT_EQ(lanes & (lanes - 1), 0) << channels;
    EXPECT_GE(2 * lanes, channels) << channels;
    EXPECT_LE(lanes, 32) << channels;
    if (lanes > 1) EXPECT_LT(2 * (lanes / 2), channels) << channels << ": fewer lanes would do";
  }
  EXPECT_EQ(tg::staged_gather_lanes(16), 8);  // MobileNetV2's C144: 4 items per warp in its last block
  EXPECT_EQ(tg::staged_gather_lanes(32), 16);
  EXPECT_EQ(tg::staged_gather_lanes(33), 32);
}

// Pairs of (tile, channel block) where the last block is narrow and every block's taps fit in 24 KB
// (MobileNetV2's C144: 3 sets of 2.3 KB; EfficientNet's 5x5 stride 2: 3 of 7.6 KB), one channel block
// per grid column otherwise.
TEST(StagedGatherPlan, PairsWhereTheLastBlockIsNarrow) {
  struct expect {
    index_t G;
    int filter, in, stride, sets;
  };
  const expect cases[] = {
      {144, 3, 20, 1, 3},  // MobileNetV2 C144: a last block of 16
      {144, 5, 20, 2, 3},  // EfficientNet 5x5 stride 2 (forward)
      {128, 3, 20, 1, 1},  // whole blocks: the grid's columns
      {672, 5, 14, 1, 1},  // 11 blocks of 5-tap units: 5 x 5 x 64 x 4 x 11 = 70 KB of taps, over the 24
      {40, 3, 20, 1, 1},   // one block: nothing to walk
  };
  for (const auto& c : cases) {
    tg::staged_limits lim{1};
    const auto r = run(problem(2, c.G, c.filter, c.in, c.stride, 1), true, lim);
    ASSERT_EQ(r.planned, r.gemms) << r.why;
    EXPECT_EQ(r.sets, c.sets) << "C" << c.G << " " << c.filter << "x" << c.filter;
    lim.pairs = false;
    EXPECT_EQ(run(problem(2, c.G, c.filter, c.in, c.stride, 1), true, lim).sets, 1) << "C" << c.G << ": pairs off";
  }
}

// Blocks per multiprocessor: one where one block's share of shared memory gives tiles of more outputs,
// two where the tiles are the same (the layers, performance.md section 31).
struct blocks_backend {
  int gemms = 0, one = 0;
};
template <class Batch>
void gemm(blocks_backend& be, const Batch& batch, tg::gemm_epilogue, tg::gemm_policy) {
  using V = decltype(batch.views(0));
  if constexpr (tg::affine_split<decltype(V::a)>::on && tg::affine_split<decltype(V::c)>::on && tg::affine_split<decltype(V::b)>::on)
    for (index_t t = 0; t < batch.count(); ++t) {
      const auto p = tg::staged_gather_plan_chosen(batch.views(t), 2, tg::staged_limits{0});
      ++be.gemms, be.one += p.ok && p.blocks == 1;
    }
}
TEST(StagedGatherPlan, BlocksPerMultiprocessor) {
  struct expect {
    index_t G;
    int filter, in, stride;
    bool one;
  };
  const expect cases[] = {
      {144, 3, 56, 1, true},   // MobileNetV2 3x3 C144 56x56: 56x10 tiles with one block, 28x10 with two
      {960, 3, 7, 1, false},   // MobileNetV2 3x3 C960 7x7: the whole image either way
      {144, 5, 56, 2, true},   // EfficientNet 5x5 stride 2 C144: taller tiles with one
      {672, 5, 14, 2, false},  // EfficientNet C672 14x14: whole 7x7 outputs either way
      {384, 7, 28, 1, true},   // ConvNeXt 7x7 C384 28x28
      {768, 7, 14, 1, true},   // ConvNeXt 7x7 C768 14x14: the whole image with one block, half with two
  };
  for (const auto& c : cases)
    for (bool forward : {true, false}) {
      tg::ops::conv_problem p = problem(2, c.G, c.filter, c.in, c.stride, 1);
      p.N = 1;
      for (int d = 0; d < 2; ++d) p.pad_l[d] = p.pad_r[d] = c.filter / 2;
      blocks_backend be;
      const float* in = reinterpret_cast<const float*>(alignof(float) * 16);  // never read: only the views' shapes are planned
      float* out = reinterpret_cast<float*>(alignof(float) * 16);
      if (forward) tg::ops::conv_fwd<2>(be, p, in, in, out);
      else tg::ops::convnd_bwd_data<2>(be, p, in, in, out);
      EXPECT_GT(be.gemms, 0);
      EXPECT_EQ(be.one, c.one ? be.gemms : 0) << "C" << c.G << " " << c.filter << "x" << c.filter << (forward ? " forward" : " backward data");
    }
}

// Random depthwise problems (1-d to 3-d, strides, dilations, asymmetric padding, channel counts that
// leave a block part empty), forward and backward data: every read and store checked against the views.
TEST(StagedGatherPlan, RandomDepthwiseAgainstTheIndexMap) {
  std::mt19937 rng(20261128);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int planned = 0, gemms = 0, zero = 0;
  for (int trial = 0; trial < 40; ++trial) {
    tg::ops::conv_problem p;
    p.ndim = pick(1, 3), p.N = pick(1, 2);
    p.G = p.K = p.C = 8 * pick(1, 10), p.layout = L::nhwgc;
    for (int d = 0; d < p.ndim; ++d) {
      p.filter[d] = pick(1, p.ndim == 3 ? 3 : 7), p.stride[d] = pick(1, 3), p.dilation[d] = pick(1, 2);
      p.in[d] = pick(p.dilation[d] * (p.filter[d] - 1) + 1, p.ndim == 3 ? 6 : 13);
      p.pad_l[d] = pick(0, p.filter[d] - 1), p.pad_r[d] = pick(0, p.filter[d] - 1);
    }
    for (bool forward : {true, false})
      for (int blocks : {1, 2}) {
        tg::staged_limits lim{blocks};
        lim.stages = pick(2, tg::staged_most_stages);  // the tiles shrink to fit more stages
        const auto r = run(p, forward, lim);
        planned += r.planned, gemms += r.gemms, zero += r.zero;
        // The one refusal these problems may get: more units than a block holds.
        if (r.planned < r.gemms) EXPECT_NE(r.why.find("filter too large"), std::string::npos) << r.why;
      }
  }
  EXPECT_GE(planned, gemms * 9 / 10);
  EXPECT_GE(zero, 10) << "classes of dx without products";
}
}  // namespace
