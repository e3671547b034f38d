// lowering/gpu/k_order.hpp: the reduction order of a GEMM walk. k_order is a bijection of [0, K) (so
// the GEMM's sum is unchanged); outer_k_length finds the images (the outermost merged coordinate) of a
// convolution GEMM view's k; and in that order every k-tile of BK images of backward weight's operands
// (dy and im2col(x)) is uniform, with each element's validity and offset those of the descriptor at
// the reordered k, over the whole [G, rows, K] domain (check_k_tiles, shared with split_view_test).
#include "lowering/gpu/k_order.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "k_tiles_check.hpp"
#include "dsl/compose/group_dims.hpp"
#include "dsl/compose/im2col.hpp"

using namespace tg::test;

namespace {
TEST(KOrder, IsABijection) {
  for (index_t outer = 0; outer <= 6; ++outer)
    for (index_t inner = 0; inner <= 7; ++inner) {
      const tg::k_order order{outer, inner};
      const index_t K = outer > 1 ? outer * inner : 5 * inner;
      std::vector<int> hits(K, 0);
      for (index_t kp = 0; kp < K; ++kp) {
        const index_t k = order(kp);
        ASSERT_TRUE(k >= 0 && k < K) << "outer " << outer << " inner " << inner << " kp " << kp;
        ++hits[k];
        if (outer <= 1) EXPECT_EQ(k, kp) << "outer <= 1 is the identity";
      }
      for (index_t k = 0; k < K; ++k) ASSERT_EQ(hits[k], 1) << "outer " << outer << " inner " << inner << " k " << k;
    }
}

template <int NDim>
void check_backward_weight(const tg::window_geometry<NDim>& geo, index_t N, index_t K, index_t C, const std::vector<int>& perm) {
  SCOPED_TRACE(::testing::Message() << "N " << N << " K " << K << " C " << C << " layout " << ::testing::PrintToString(perm));
  multi_index<3 + NDim> xl{}, yl{};
  xl[0] = 1, xl[1] = N, xl[2] = C, yl[0] = 1, yl[1] = N, yl[2] = K;
  for (int d = 0; d < NDim; ++d) xl[3 + d] = geo[d].in, yl[3 + d] = geo[d].out();
  const auto x = tg::make_naive_descriptor(tup(xl), tup(strides_for(xl, perm)));
  const auto y = tg::make_naive_descriptor(tup(yl), tup(strides_for(yl, perm)));
  using spatial = tg::seq_range<3, 3 + NDim>;
  const auto a = tg::group_dims(y, tg::seq<0>{}, tg::seq<2>{}, tg::seq_cat<tg::seq<1>, spatial>{});  // dy [G, K, (N, out...)]
  const auto b = tg::im2col_t(x, geo);                                                                // x [G, (taps..., C), (N, out...)]
  const auto va = tg::make_view(static_cast<const float*>(nullptr), a);
  const auto vb = tg::make_view(static_cast<const float*>(nullptr), b);
  // The images, the merge's first digit, unless there is one image or nothing else (then there is
  // nothing to reorder).
  index_t K_all = N;
  for (int d = 0; d < NDim; ++d) K_all *= geo[d].out();
  const index_t expect = N > 1 && N < K_all ? N : 0;
  ASSERT_EQ(tg::outer_k_length(va), expect);
  ASSERT_EQ(tg::outer_k_length(vb), expect);
  const auto order = tg::reduction_order<BK>(va, vb);
  if (expect == 0 || expect % BK != 0) {
    EXPECT_TRUE(order.identity()) << "no whole k-tiles of the outer coordinate: the walk keeps its order";
    return;
  }
  ASSERT_EQ(order.outer, expect);
  const index_t tiles = (a.length(2) + BK - 1) / BK;
  EXPECT_EQ(check_k_tiles(a, order), tiles) << "every k-tile of dy is uniform in the reordered walk";
  EXPECT_EQ(check_k_tiles(b, order), tiles) << "every k-tile of im2col(x) is uniform in the reordered walk";
}

TEST(KOrder, BackwardWeightTilesAreUniform) {
  tg::window_geometry<2> seed_like{};
  seed_like[0] = {7, 3, 2, 1, 1, 1};
  seed_like[1] = {6, 3, 2, 1, 1, 1};
  // Layouts of [G, N, C, spatial...] tensors: one permutation per rank (strides_for checks it).
  const std::vector<int> nchw{0, 1, 2, 3, 4}, nhwc{1, 3, 4, 0, 2}, nwgc{1, 3, 0, 2}, ncw{0, 1, 2, 3};
  check_backward_weight<2>(seed_like, 2 * BK, 3, 2, nhwc);
  check_backward_weight<2>(seed_like, BK, 2, 3, nchw);
  check_backward_weight<2>(seed_like, 3, 2, 3, nhwc);  // N not a multiple of BK: the identity
  for (const auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    tg::window_geometry<2> g{};
    for (int d = 0; d < 2; ++d) g[d] = random_dim(rng, 8);
    check_backward_weight<2>(g, BK * uniform(rng, 1, 2), uniform(rng, 1, 3), uniform(rng, 1, 3), nhwc);
    check_backward_weight<2>(g, uniform(rng, 1, 9), uniform(rng, 1, 3), uniform(rng, 1, 3), nchw);
    tg::window_geometry<1> g1{};
    g1[0] = random_dim(rng, 9);
    check_backward_weight<1>(g1, BK * uniform(rng, 1, 2), uniform(rng, 1, 3), uniform(rng, 1, 3), nwgc);
    check_backward_weight<1>(g1, BK * uniform(rng, 1, 2), uniform(rng, 1, 3), uniform(rng, 1, 3), ncw);
  }
}
}  // namespace
