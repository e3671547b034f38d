// lowering/gpu/k_order.hpp: the reduction order of a GEMM walk. k_order is a bijection of [0, K) (so
// the GEMM's sum is unchanged); outer_k_length finds the outermost merged coordinate of a convolution
// GEMM view's k; and in that order every k-tile of BK images of backward weight's operands (dy and
// im2col(x)) is uniform, with each element's validity and offset those of the descriptor at the
// reordered k, over the whole [G, rows, K] domain.
#include "lowering/gpu/k_order.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "../../dsl/support.hpp"
#include "dsl/compose/group_dims.hpp"
#include "dsl/compose/im2col.hpp"

using namespace tg::test;

namespace {
constexpr int BK = 4;

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

// Entries of view `v` in the walk `order`; checks every uniform k-tile against the descriptor at the
// reordered k and returns how many of the tiles were uniform.
template <class Desc>
index_t check_ordered_tiles(const Desc& d, const tg::k_order& order) {
  const auto v = tg::make_view(static_cast<const float*>(nullptr), d);  // only offsets are computed
  using View = std::remove_cv_t<decltype(v)>;
  using A = tg::affine_split<View>;
  static_assert(A::on, "conv GEMM views are affine splits");
  const index_t G = d.length(0), M = d.length(1), K = d.length(2);
  std::vector<typename A::entry> ks(K);
  for (index_t kp = 0; kp < K; ++kp) ks[kp] = tg::affine_entry<4>(v, 0, 2, order(kp));
  index_t uniform = 0;
  for (index_t k0 = 0; k0 < K; k0 += BK) {
    const auto t = tg::affine_k_tile<BK, View>(ks.data(), k0, K);
    if (!t.uniform) continue;
    ++uniform;
    for (index_t g = 0; g < G; ++g)
      for (index_t m = 0; m < M; ++m) {
        const auto r = tg::affine_entry<4>(v, g, 1, m);
        for (int j = 0; j < BK; ++j) {
          const multi_index<3> i{{g, m, order(k0 + j)}};
          if (tg::affine_valid(v, r, t) != d.is_valid(i)) {
            ADD_FAILURE() << "validity differs at " << str(i) << " (walk position " << k0 + j << ")";
            return uniform;
          }
          if (d.is_valid(i) && r.off + t.off + j * t.step != d.offset(i)) {
            ADD_FAILURE() << "offset " << r.off + t.off + j * t.step << " != " << d.offset(i) << " at " << str(i);
            return uniform;
          }
        }
      }
  }
  return uniform;
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
  // The outermost coordinate of length > 1 of (N, out...), unless it is the only one (then k is
  // already that coordinate and there is nothing to reorder).
  std::vector<index_t> lens{N};
  for (int d = 0; d < NDim; ++d) lens.push_back(geo[d].out());
  index_t expect = 0, longer = 0;
  for (const index_t l : lens)
    if (l > 1) expect = longer++ == 0 ? l : expect;
  if (longer < 2) expect = 0;
  ASSERT_EQ(tg::outer_k_length(va), expect);
  ASSERT_EQ(tg::outer_k_length(vb), expect);
  const auto order = tg::reduction_order<BK>(va, vb);
  if (expect == 0 || expect % BK != 0) {
    EXPECT_TRUE(order.identity()) << "no whole k-tiles of the outer coordinate: the walk keeps its order";
    return;
  }
  ASSERT_EQ(order.outer, expect);
  const index_t tiles = (a.length(2) + BK - 1) / BK;
  EXPECT_EQ(check_ordered_tiles(a, order), tiles) << "every k-tile of dy is uniform in the reordered walk";
  EXPECT_EQ(check_ordered_tiles(b, order), tiles) << "every k-tile of im2col(x) is uniform in the reordered walk";
}

TEST(KOrder, BackwardWeightTilesAreUniform) {
  tg::window_geometry<2> seed_like{};
  seed_like[0] = {7, 3, 2, 1, 1, 1};
  seed_like[1] = {6, 3, 2, 1, 1, 1};
  const std::vector<int> nchw{0, 1, 2, 3, 4}, nhwc{1, 3, 4, 0, 2};
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
    check_backward_weight<1>(g1, BK * uniform(rng, 1, 2), uniform(rng, 1, 3), uniform(rng, 1, 3), {1, 2, 0});
  }
}
}  // namespace
