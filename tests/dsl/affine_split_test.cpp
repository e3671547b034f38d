// Affine split views, as the GPU GEMM uses them (lowering/gpu/split_view.hpp): for the GEMM views of
// the convolutions (im2col, im2col_t, col2im's dy / w / dx class views), over the whole [G, M, K]
// domain: (a) the stages below the separable top one are affine (compile time); (b) validity from the
// guards' coordinates alone equals the descriptor's, and so does each coordinate against its guard's
// box (guard_boxes: one unsigned comparison, as the GEMM's uniform fill tests it); (c) the bottom offset and the guard coordinates
// of an element are the row part (with the group) plus the k part minus the origin's.
#include "dsl/compose/col2im.hpp"
#include "dsl/compose/im2col.hpp"
#include "dsl/index_space.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "support.hpp"

using namespace tg::test;

namespace {
template <class Desc>
void check_affine_split(const Desc& d) {
  using chain_t = std::remove_cv_t<decltype(d.chain)>;
  using top_t = typename chain_t::template stage_t<0>;
  static_assert(top_t::separable && chain_t::template affine_from<1>(), "conv GEMM views are affine splits");
  constexpr int N1 = top_t::n_lower, NG = chain_t::template guards_from<1>();
  constexpr auto src = top_t::lower_source();
  const auto& top = tg::get<0>(d.chain.stages);
  auto only = [&](const multi_index<N1>& l, int a, int b) {
    multi_index<N1> r{};
    for (int j = 0; j < N1; ++j) r[j] = src[j] == a || src[j] == b ? l[j] : 0;
    return r;
  };
  auto guards = [&](const multi_index<N1>& l) {
    std::vector<index_t> g(NG > 0 ? NG : 1, 0);
    d.chain.template guard_coords<1>(l, g.data());
    return g;
  };
  const multi_index<N1> zero{};
  const index_t o0 = d.chain.template bottom_from<1>(zero)[0];
  const auto g0 = guards(zero);
  std::vector<index_t> first(NG > 0 ? NG : 1, 0), count(NG > 0 ? NG : 1, 0);
  d.chain.template guard_boxes<1>(first.data(), count.data());
  index_t checked = 0;
  for_each_index(d.lengths(), [&](const multi_index<3>& i) {
    if (::testing::Test::HasFatalFailure()) return;
    const auto l = top.lower(i);
    const auto g = guards(l);
    ASSERT_EQ(d.chain.template guards_valid<1>(g.data()), d.is_valid(i)) << "at " << str(i);
    bool in_boxes = true;
    for (int n = 0; n < NG; ++n) in_boxes = in_boxes && static_cast<std::uint32_t>(g[n] - first[n]) < static_cast<std::uint32_t>(count[n]);
    ASSERT_EQ(in_boxes, d.is_valid(i)) << "boxes at " << str(i);
    const auto lr = only(l, 0, 1), lk = only(l, 2, 2);
    const auto gr = guards(lr), gk = guards(lk);
    for (int n = 0; n < NG; ++n) ASSERT_EQ(g[n], gr[n] + gk[n] - g0[n]) << "guard " << n << " at " << str(i);
    ASSERT_EQ(d.chain.template bottom_from<1>(l)[0], d.chain.template bottom_from<1>(lr)[0] + d.chain.template bottom_from<1>(lk)[0] - o0)
        << "at " << str(i);
    if (d.is_valid(i)) ASSERT_EQ(d.chain.template bottom_from<1>(l)[0], d.offset(i)) << "at " << str(i);
    ++checked;
  });
  EXPECT_EQ(checked, tg::volume(d.lengths()));
}

template <int NDim>
tg::window_geometry<NDim> random_geometry(std::mt19937& rng, index_t max_in) {
  tg::window_geometry<NDim> g{};
  for (int d = 0; d < NDim; ++d) g[d] = random_dim(rng, max_in);
  return g;
}

template <int NDim>
void check_conv_views(const tg::window_geometry<NDim>& geo, index_t G, index_t N, index_t K, index_t C, const std::vector<int>& perm) {
  SCOPED_TRACE(::testing::Message() << "G " << G << " N " << N << " K " << K << " C " << C << " layout " << ::testing::PrintToString(perm)
                                    << " geometry " << describe(geo));
  multi_index<3 + NDim> xl{}, yl{}, wl{};
  xl[0] = G, xl[1] = N, xl[2] = C, yl[0] = G, yl[1] = N, yl[2] = K, wl[0] = G, wl[1] = K, wl[2] = C;
  for (int d = 0; d < NDim; ++d) xl[3 + d] = geo[d].in, yl[3 + d] = geo[d].out(), wl[3 + d] = geo[d].win;
  const auto x = tg::make_naive_descriptor(tup(xl), tup(strides_for(xl, perm)));
  const auto y = tg::make_naive_descriptor(tup(yl), tup(strides_for(yl, perm)));
  const auto w = tg::make_naive_descriptor(tup(wl), tup(strides_for(wl, perm)));
  {
    SCOPED_TRACE("im2col");
    check_affine_split(tg::im2col(x, geo));
  }
  {
    SCOPED_TRACE("im2col_t");
    check_affine_split(tg::im2col_t(x, geo));
  }
  const tg::col2im<NDim> c2i(geo);
  for (index_t t = 0; t < c2i.classes(); ++t) {
    SCOPED_TRACE(::testing::Message() << "col2im class " << t);
    check_affine_split(c2i.dy_view(y, t));
    check_affine_split(c2i.w_view(w, t));
    check_affine_split(c2i.dx_view(x, t));
  }
}

TEST(AffineSplit, ConvViews2D) {
  for (const auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    // NCHW-like and NHWC-like physical orders of [G, N, C, H, W], and the seed's 3x3 s2 p1.
    for (const auto& perm : {std::vector<int>{0, 1, 2, 3, 4}, std::vector<int>{1, 3, 4, 0, 2}}) {
      tg::window_geometry<2> seed_like{};
      seed_like[0] = {7, 3, 2, 1, 1, 1};
      seed_like[1] = {6, 3, 2, 1, 1, 1};
      check_conv_views<2>(seed_like, 2, 2, 3, 4, perm);
      check_conv_views<2>(random_geometry<2>(rng, 9), 1, 2, uniform(rng, 1, 4), uniform(rng, 1, 4), perm);
    }
  }
}

TEST(AffineSplit, ConvViews3D) {
  for (const auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    check_conv_views<3>(random_geometry<3>(rng, 6), 1, 1, 2, uniform(rng, 1, 3), {1, 3, 4, 5, 0, 2});
  }
}
}  // namespace
