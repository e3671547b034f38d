// lowering/gpu/split_view.hpp, host part: the k-tile summaries (affine_split::k_tile) the GPU GEMM's
// uniform fill and drain rely on. Over the whole [G, M, K] domain of every convolution GEMM view, for
// every k-tile the summary calls uniform: each element's validity is the guards of its row entry plus
// the tile's, and its offset the row's plus the tile's plus j steps, as the descriptor says. And the
// channels-last views whose k runs over whole tiles of channels do have uniform tiles (the fast path
// is reachable). The tile's guards as boxes (affine_tile_guards, the hoisted GPU fill's 32-bit test)
// agree with affine_valid on every row of every uniform tile, and so do a row's boxes (the small-M
// GEMM's test) at every k entry.
#include "lowering/gpu/split_view.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "../../dsl/support.hpp"
#include "dsl/compose/col2im.hpp"
#include "dsl/compose/im2col.hpp"

using namespace tg::test;

namespace {
constexpr int BK = 4;

// Checks every uniform k-tile of `d`; returns how many tiles were uniform.
template <class Desc>
index_t check_k_tiles(const Desc& d) {
  const auto v = tg::make_view(static_cast<const float*>(nullptr), d);  // only offsets are computed
  using View = std::remove_cv_t<decltype(v)>;
  using A = tg::affine_split<View>;
  static_assert(A::on, "conv GEMM views are affine splits");
  const index_t G = d.length(0), M = d.length(1), K = d.length(2);
  std::vector<typename A::entry> ks(K);
  for (index_t k = 0; k < K; ++k) ks[k] = tg::affine_entry<4>(v, 0, 2, k);
  index_t uniform = 0;
  for (index_t k0 = 0; k0 < K; k0 += BK) {
    const auto t = tg::affine_k_tile<BK, View>(ks.data(), k0, K);
    if (k0 + BK > K) EXPECT_FALSE(t.uniform) << "a partial tile at k0 " << k0;
    if (!t.uniform) continue;
    ++uniform;
    for (index_t g = 0; g < G; ++g)
      for (index_t m = 0; m < M; ++m) {
        const auto r = tg::affine_entry<4>(v, g, 1, m);
        if (tg::affine_tile_guards<View>(v, t).holds(r) != tg::affine_valid(v, r, t)) {
          ADD_FAILURE() << "the tile's guard boxes differ from affine_valid at row " << m << " (tile k0 " << k0 << ")";
          return uniform;
        }
        for (int j = 0; j < BK; ++j) {
          const multi_index<3> i{{g, m, k0 + j}};
          if (tg::affine_valid(v, r, t) != d.is_valid(i)) {
            ADD_FAILURE() << "validity differs at " << str(i) << " (tile k0 " << k0 << ")";
            return uniform;
          }
          if (d.is_valid(i) && r.off + t.off + j * t.step != d.offset(i)) {
            ADD_FAILURE() << "offset " << r.off + t.off + j * t.step << " != " << d.offset(i) << " at " << str(i);
            return uniform;
          }
        }
      }
  }
  // The boxes with a row entry fixed instead (the small-M GEMM's per-row test), over every k entry.
  for (index_t g = 0; g < G; ++g)
    for (index_t m = 0; m < M; ++m) {
      const auto r = tg::affine_entry<4>(v, g, 1, m);
      const tg::affine_tile_guards<View> box(v, r);
      for (index_t k = 0; k < K; ++k)
        if (box.holds(ks[k]) != tg::affine_valid(v, r, ks[k])) {
          ADD_FAILURE() << "the row's guard boxes differ from affine_valid at row " << m << ", k " << k;
          return uniform;
        }
    }
  return uniform;
}

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
  for (const auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    tg::window_geometry<2> g{};
    for (int d = 0; d < 2; ++d) g[d] = random_dim(rng, 8);
    check_conv_views<2>(g, uniform(rng, 1, 2), BK * uniform(rng, 1, 2), uniform(rng, 1, 5), nhwc, false);
    check_conv_views<2>(g, uniform(rng, 1, 2), uniform(rng, 1, 9), uniform(rng, 1, 5), nchw, false);
  }
}
}  // namespace
