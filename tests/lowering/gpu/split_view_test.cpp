// lowering/gpu/split_view.hpp, host part: the k-tile summaries (affine_split::k_tile) the GPU GEMM's
// uniform fill and drain rely on. Over the whole [G, M, K] domain of every convolution GEMM view, for
// every k-tile the summary calls uniform: each element's validity is the guards of its row entry plus
// the tile's, and its offset the row's plus the tile's plus j steps, as the descriptor says. And the
// channels-last views whose k runs over whole tiles of channels do have uniform tiles (the fast path
// is reachable). The tile's guards as boxes (affine_tile_guards, the hoisted GPU fill's 32-bit test)
// agree with affine_valid on every row of every uniform tile, and so do a row's boxes (the small-M
// GEMM's test) at every k entry. unit_groups (the small-M GEMM's group words) holds exactly where every
// group's element is the first group's moved by g, padding where it is: checked over the whole domain.
#include "lowering/gpu/split_view.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "k_tiles_check.hpp"
#include "dsl/compose/col2im.hpp"
#include "dsl/compose/im2col.hpp"

using namespace tg::test;

namespace {
template <int NDim>
void check_conv_views(const tg::window_geometry<NDim>& geo, index_t N, index_t K, index_t C, const std::vector<int>& perm, bool expect_uniform) {
  SCOPED_TRACE(::testing::Message() << "N " << N << " K " << K << " C " << C << " layout " << ::testing::PrintToString(perm));
  multi_index<3 + NDim> xl{}, yl{}, wl{};
  xl[0] = 1, xl[1] = N, xl[2] = C, yl[0] = 1, yl[1] = N, yl[2] = K, wl[0] = 1, wl[1] = K, wl[2] = C;
  for (int d = 0; d < NDim; ++d) xl[3 + d] = geo[d].in, yl[3 + d] = geo[d].out(), wl[3 + d] = geo[d].win;
  const auto x = tg::make_naive_descriptor(tup(xl), tup(strides_for(xl, perm)));
  const auto y = tg::make_naive_descriptor(tup(yl), tup(strides_for(yl, perm)));
  const auto w = tg::make_naive_descriptor(tup(wl), tup(strides_for(wl, perm)));
  check_k_tiles(tg::im2col_t(x, geo));  // backward weight's B: k = output positions
  const tg::col2im<NDim> c2i(geo);
  index_t dy_uniform = 0;
  for (index_t t = 0; t < c2i.classes(); ++t) {
    SCOPED_TRACE(::testing::Message() << "col2im class " << t);
    dy_uniform += check_k_tiles(c2i.dy_view(y, t));  // backward data's A: k = (taps, K)
    check_k_tiles(c2i.w_view(w, t));
  }
  if (expect_uniform) EXPECT_GT(dy_uniform, 0) << "channels-last dy with K a multiple of BK has uniform k-tiles";
}

TEST(SplitView, KTilesOfConvViews2D) {
  tg::window_geometry<2> seed_like{};
  seed_like[0] = {7, 3, 2, 1, 1, 1};
  seed_like[1] = {6, 3, 2, 1, 1, 1};
  const std::vector<int> nchw{0, 1, 2, 3, 4}, nhwc{1, 3, 4, 0, 2};
  check_conv_views<2>(seed_like, 2, 2 * BK, 3, nhwc, true);
  check_conv_views<2>(seed_like, 2, 2 * BK, 3, nchw, false);
  // Regression: strides past the window leave col2im classes without taps (K = 0, rows > 0), and
  // strides past the input classes without rows (M = 0, K > 0); the checks made entries of those
  // views, dividing by the empty merge's zero length (SIGFPE, depending on the seed and the build).
  tg::window_geometry<2> sparse{};
  sparse[0] = {7, 1, 2, 1, 0, 0};
  sparse[1] = {2, 3, 3, 1, 1, 0};
  check_conv_views<2>(sparse, 2, BK, 3, nhwc, false);
  check_conv_views<2>(sparse, 2, BK, 3, nchw, false);
  for (const auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    tg::window_geometry<2> g{};
    for (int d = 0; d < 2; ++d) g[d] = random_dim(rng, 8);
    check_conv_views<2>(g, uniform(rng, 1, 2), BK * uniform(rng, 1, 2), uniform(rng, 1, 5), nhwc, false);
    check_conv_views<2>(g, uniform(rng, 1, 2), uniform(rng, 1, 9), uniform(rng, 1, 5), nchw, false);
  }
}

// unit_groups(view) against the descriptor over the whole [G, rows, K] domain: where it says yes, each
// group's element is the first group's g elements on, and padding exactly where that one is; `expect`
// pins down the answer for the layout (so a unit_groups that always said no, or yes, would fail).
template <class Desc>
void check_unit_groups(const Desc& d, bool expect) {
  const auto v = tg::make_view(static_cast<const float*>(nullptr), d);
  const bool unit = tg::unit_groups(v);
  EXPECT_EQ(unit, expect);
  bool holds = true;
  for (index_t g = 0; g < d.length(0); ++g)
    for (index_t r = 0; r < d.length(1); ++r)
      for (index_t k = 0; k < d.length(2); ++k) {
        const multi_index<3> c{{g, r, k}}, c0{{0, r, k}};
        const bool valid = d.is_valid(c);
        holds = holds && valid == d.is_valid(c0) && (!valid || d.offset(c) == d.offset(c0) + g);
      }
  if (unit) EXPECT_TRUE(holds) << "unit_groups said yes, but some group is not the first moved by g";
}

// Backward weight's operands (dy as [G, K/G, (N, out)], im2col(x) as [G, (taps, C/G), (N, out)]) in
// channels-last (G then the group's channels fastest) and channels-first layouts, for G groups of
// `per` channels: unit groups only for one channel per group in channels-last (depthwise).
void check_groups_of_conv(const tg::window_geometry<2>& geo, index_t G, index_t N, index_t per, const std::vector<int>& perm, bool expect_x,
                          bool expect_y) {
  SCOPED_TRACE(::testing::Message() << "G " << G << " per " << per << " layout " << ::testing::PrintToString(perm));
  multi_index<5> xl{}, yl{};
  xl[0] = G, xl[1] = N, xl[2] = per, yl[0] = G, yl[1] = N, yl[2] = per;
  for (int d = 0; d < 2; ++d) xl[3 + d] = geo[d].in, yl[3 + d] = geo[d].out();
  const auto x = tg::make_naive_descriptor(tup(xl), tup(strides_for(xl, perm)));
  const auto y = tg::make_naive_descriptor(tup(yl), tup(strides_for(yl, perm)));
  check_unit_groups(tg::im2col_t(x, geo), expect_x);
  check_unit_groups(tg::group_dims(y, tg::seq<0>{}, tg::seq<2>{}, tg::seq<1, 3, 4>{}), expect_y);
}

TEST(SplitView, UnitGroupsOfConvViews) {
  const std::vector<int> nchw{1, 0, 2, 3, 4}, nhwgc{1, 3, 4, 0, 2};
  for (const auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    tg::window_geometry<2> g{};
    for (int d = 0; d < 2; ++d) g[d] = random_dim(rng, 6);
    const index_t G = uniform(rng, 2, 5), N = uniform(rng, 1, 2);
    check_groups_of_conv(g, G, N, 1, nhwgc, true, true);
    check_groups_of_conv(g, G, N, 2, nhwgc, false, false);
    // channels-first: a group steps over a whole plane, one element only for 1x1 planes
    check_groups_of_conv(g, G, N, 1, nchw, g[0].in * g[1].in == 1, g[0].out() * g[1].out() == 1);
  }
}
}  // namespace
