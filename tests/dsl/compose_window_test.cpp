// window: the sliding-window view [dims with spatial ones as outputs..., taps...] against the naive nested
// loop hi = ho * stride + k * dilation - pad_l, in 1D, 2D and 3D, strides and dilations 1-3, asymmetric
// padding, spatial dimensions placed NCHW-like and NHWC-like in packed and channels-last memory.
#include "dsl/compose/group_dims.hpp"
#include "dsl/compose/window.hpp"
#include "dsl/coordinate.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

using namespace tg::test;

namespace {
// Brute force: every (output position, tap) of the view against hi = ho * stride + k * dilation - pad_l
// in each spatial dimension, valid iff 0 <= hi < in; the offset is x's strides applied to that index.
// x has logical lengths xlen and strides xstride; `spatial` lists its spatial ids, in the order of g.
template <int NDim, int R, int... S>
void check_window(const tg::window_geometry<NDim>& g, const multi_index<R>& xlen, const multi_index<R>& xstride, tg::seq<S...> sp) {
  static_assert(sizeof...(S) == NDim);
  SCOPED_TRACE(::testing::Message() << "x lengths " << str(xlen) << " strides " << str(xstride) << " spatial "
                                    << ::testing::PrintToString(std::vector<int>{S...}) << " geometry " << describe(g));
  const int spatial[NDim] = {S...};
  const auto x = tg::make_naive_descriptor(tup(xlen), tup(xstride));
  const auto v = tg::window(x, sp, g);
  static_assert(decltype(v)::rank == R + NDim);
  multi_index<R + NDim> len{};
  for (int r = 0; r < R; ++r) len[r] = xlen[r];
  for (int j = 0; j < NDim; ++j) len[spatial[j]] = g[j].out(), len[R + j] = g[j].win;
  ASSERT_EQ(vec(v.lengths()), vec(len));
  index_t valid_count = 0;
  for_each_index(len, [&](const multi_index<R + NDim>& top) {
    multi_index<R> xi{};
    for (int r = 0; r < R; ++r) xi[r] = top[r];
    bool valid = true;
    for (int j = 0; j < NDim; ++j) {
      const index_t hi = top[spatial[j]] * g[j].stride + top[R + j] * g[j].dilation - g[j].pad_l;
      valid = valid && hi >= 0 && hi < g[j].in;
      xi[spatial[j]] = hi;
    }
    ASSERT_EQ(v.is_valid(top), valid) << str(top);
    if (valid) {
      ++valid_count;
      ASSERT_EQ(v.offset(top), dot(xi, xstride)) << str(top);
    }
  });
  if (!::testing::Test::HasFatalFailure()) {
    SCOPED_TRACE("coordinate walk");
    std::mt19937 rng{std::uint32_t(valid_count)};
    random_walk(v, rng, 100);
  }
}

// One random geometry, checked with the spatial dimensions placed NC<spatial>-like and N<spatial>C-like,
// each stored in a random physical order (so both placements meet packed and channels-last strides).
template <int NDim>
void random_windows(std::mt19937& rng, index_t max_in, int reps) {
  constexpr int R = NDim + 2;
  for (int rep = 0; rep < reps; ++rep) {
    tg::window_geometry<NDim> g{};
    for (int d = 0; d < NDim; ++d) g[d] = random_dim(rng, max_in);
    const index_t N = uniform(rng, 1, 2), C = uniform(rng, 1, 3);
    multi_index<R> nchw{}, nhwc{};
    nchw[0] = nhwc[0] = N;
    nchw[1] = nhwc[R - 1] = C;
    for (int d = 0; d < NDim; ++d) nchw[2 + d] = nhwc[1 + d] = g[d].in;
    const auto pn = rep % 3 == 0 ? random_perm(R, rng) : [] { std::vector<int> p(R); for (int i = 0; i < R; ++i) p[i] = i; return p; }();
    const auto ph = random_perm(R, rng);
    check_window(g, nchw, strides_for(nchw, pn), tg::seq_range<2, 2 + NDim>{});
    check_window(g, nhwc, strides_for(nhwc, ph), tg::seq_range<1, 1 + NDim>{});
    if (::testing::Test::HasFatalFailure()) return;
  }
}
}  // namespace

// A worked example (the one in docs/transforms.md): in 5, window 3, stride 2, dilation 1, padding 1/1.
TEST(ComposeWindow, WorkedExample1D) {
  tg::window_geometry<1> g{};
  g[0] = tg::window_dim{5, 3, 2, 1, 1, 1};
  ASSERT_EQ(g[0].out(), 3);
  const auto x = tg::make_packed_descriptor(tg::make_tuple(tg::n_<5>));
  const auto v = tg::window(x, tg::seq<0>{}, g);  // [ho, k]
  const index_t want[3][3] = {{-1, 0, 1}, {1, 2, 3}, {3, 4, -1}};
  for (index_t ho = 0; ho < 3; ++ho)
    for (index_t k = 0; k < 3; ++k) {
      EXPECT_EQ(v.is_valid({{ho, k}}), want[ho][k] >= 0) << ho << "," << k;
      if (want[ho][k] >= 0) {
        EXPECT_EQ(v.offset({{ho, k}}), want[ho][k]) << ho << "," << k;
      }
    }
}

TEST(ComposeWindow, Random1D) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_windows<1>(rng, 14, 200);
    if (HasFatalFailure()) return;
  }
}

TEST(ComposeWindow, Random2D) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_windows<2>(rng, 8, 80);
    if (HasFatalFailure()) return;
  }
}

TEST(ComposeWindow, Random3D) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_windows<3>(rng, 6, 20);
    if (HasFatalFailure()) return;
  }
}

// The spatial ids in any order: the taps are appended in the order of the list (and of g).
TEST(ComposeWindow, SpatialIdsOutOfOrder) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 10; ++rep) {
      tg::window_geometry<2> g{};
      g[0] = random_dim(rng, 7), g[1] = random_dim(rng, 7);
      const multi_index<4> nchw{{2, 2, g[1].in, g[0].in}};  // g[0] is W (id 3), g[1] is H (id 2)
      check_window(g, nchw, strides_for(nchw, {0, 1, 2, 3}), tg::seq<3, 2>{});
      const multi_index<4> hnwc{{g[0].in, 2, g[1].in, 3}};  // spatial ids 0 and 2
      check_window(g, hnwc, strides_for(hnwc, random_perm(4, rng)), tg::seq<0, 2>{});
      if (HasFatalFailure()) return;
    }
  }
}

// Explicit corner cases: stride larger than the window, dilation larger than the input, a single
// output, padding larger than the window.
TEST(ComposeWindow, CornerCases) {
  const tg::window_dim cases[] = {
      {7, 2, 3, 1, 0, 0},  // stride > window: inputs 2 and 5 are skipped
      {4, 2, 1, 3, 0, 0},  // dilation 3: taps 0 and 3
      {3, 3, 1, 1, 0, 0},  // one output
      {2, 1, 1, 1, 3, 3},  // padding wider than the window: outputs entirely in the padding
      {1, 4, 2, 1, 3, 0},  // input of 1
  };
  for (const auto& c : cases) {
    tg::window_geometry<1> g{};
    g[0] = c;
    check_window(g, multi_index<3>{{2, 3, c.in}}, strides_for(multi_index<3>{{2, 3, c.in}}, {0, 2, 1}), tg::seq<2>{});
  }
}

// taps_inside and taps_inside_undilated (pooling's mean divisor, host and GPU) against counting the
// taps one by one, over every small geometry and every output position around the valid range.
TEST(ComposeWindow, TapsInsideMatchesCountingTaps) {
  for (index_t in = 1; in <= 9; ++in)
    for (index_t win = 1; win <= 5; ++win)
      for (index_t stride = 1; stride <= 3; ++stride)
        for (index_t dilation = 1; dilation <= 3; ++dilation)
          for (index_t pad_l = 0; pad_l <= 4; ++pad_l)
            for (index_t o = -2; o <= in + 2; ++o) {
              index_t count = 0;
              for (index_t k = 0; k < win; ++k) {
                const index_t hi = o * stride + k * dilation - pad_l;
                count += hi >= 0 && hi < in ? 1 : 0;
              }
              ASSERT_EQ(tg::taps_inside(in, win, stride, dilation, pad_l, o), count)
                  << "in " << in << " win " << win << " s " << stride << " d " << dilation << " pad " << pad_l << " o " << o;
              ASSERT_EQ(tg::taps_inside<int>(int(in), int(win), int(stride), int(dilation), int(pad_l), int(o)), int(count));
              if (dilation == 1) ASSERT_EQ(tg::taps_inside_undilated(in, win, stride, pad_l, o), count);
            }
}
