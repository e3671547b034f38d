// im2col: x [G, N, C, in...] as the GEMM view [G, M = (N, out...), K = (taps..., C)], against the naive
// loop over (g, n, out..., taps..., c), 1D/2D/3D with groups, in packed, GNHWC, NHWGC and random layouts.
#include "dsl/compose/im2col.hpp"
#include "dsl/coordinate.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

using namespace tg::test;

namespace {
// Brute force: for every (g, n, out..., taps..., c), the GEMM element (g, m = (n, out...), k = (taps..., c))
// is x[g, n, c, hi...] with hi = ho * stride + tap * dilation - pad_l, or invalid when some hi is
// outside [0, in). x is canonical [G, N, C, in...] stored in the physical order perm.
template <int NDim>
void check_im2col(const tg::window_geometry<NDim>& g, index_t G, index_t N, index_t C, const std::vector<int>& perm, std::mt19937& rng) {
  constexpr int R = 3 + NDim;
  SCOPED_TRACE(::testing::Message() << "G " << G << " N " << N << " C " << C << " layout " << ::testing::PrintToString(perm) << " geometry "
                                    << describe(g));
  multi_index<R> xlen{};
  xlen[0] = G, xlen[1] = N, xlen[2] = C;
  for (int d = 0; d < NDim; ++d) xlen[3 + d] = g[d].in;
  const auto xstride = strides_for(xlen, perm);
  const auto x = tg::make_naive_descriptor(tup(xlen), tup(xstride));
  const auto a = tg::im2col(x, g);
  static_assert(decltype(a)::rank == 3);
  index_t outs = 1, taps = 1;
  for (int d = 0; d < NDim; ++d) outs *= g[d].out(), taps *= g[d].win;
  ASSERT_EQ(vec(a.lengths()), (std::vector<index_t>{G, N * outs, taps * C}));

  // Loop order (g, n, out..., taps..., c) is exactly (g, m, k) in row-major order.
  multi_index<3 + 2 * NDim> loop{};
  loop[0] = G, loop[1] = N;
  for (int d = 0; d < NDim; ++d) loop[2 + d] = g[d].out(), loop[2 + NDim + d] = g[d].win;
  loop[2 + 2 * NDim] = C;
  index_t counter = 0;
  const index_t M = N * outs, K = taps * C;
  for_each_index(loop, [&](const multi_index<3 + 2 * NDim>& i) {
    const index_t gg = counter / (M * K), m = counter / K % M, k = counter % K;
    ++counter;
    multi_index<R> xi{};
    xi[0] = i[0], xi[1] = i[1], xi[2] = i[2 + 2 * NDim];
    bool valid = true;
    for (int d = 0; d < NDim; ++d) {
      const index_t hi = i[2 + d] * g[d].stride + i[2 + NDim + d] * g[d].dilation - g[d].pad_l;
      valid = valid && hi >= 0 && hi < g[d].in;
      xi[3 + d] = hi;
    }
    ASSERT_EQ(a.is_valid({{gg, m, k}}), valid) << "g " << gg << " m " << m << " k " << k << " loop " << str(i);
    if (valid) {
      ASSERT_EQ(a.offset({{gg, m, k}}), dot(xi, xstride)) << "g " << gg << " m " << m << " k " << k << " loop " << str(i);
    }
  });
  if (!::testing::Test::HasFatalFailure()) {
    SCOPED_TRACE("coordinate walk");
    random_walk(a, rng, 150);
  }
}

// Layouts of x [G, N, C, spatial...] by physical order: GNC<spatial> (packed canonical),
// GN<spatial>C (CK's GNHWC), N<spatial>GC (NHWGC), and one random order.
template <int NDim>
std::vector<std::vector<int>> layouts(std::mt19937& rng) {
  std::vector<int> gnc{0, 1, 2}, gnsc{0, 1}, nsgc{1};
  for (int d = 0; d < NDim; ++d) gnc.push_back(3 + d), gnsc.push_back(3 + d), nsgc.push_back(3 + d);
  gnsc.push_back(2);
  nsgc.push_back(0), nsgc.push_back(2);
  return {gnc, gnsc, nsgc, random_perm(3 + NDim, rng)};
}

template <int NDim>
void random_im2cols(std::mt19937& rng, index_t max_in, int reps) {
  for (int rep = 0; rep < reps; ++rep) {
    tg::window_geometry<NDim> g{};
    for (int d = 0; d < NDim; ++d) g[d] = random_dim(rng, max_in);
    const index_t G = uniform(rng, 1, 3), N = uniform(rng, 1, 2), C = uniform(rng, 1, 3);
    for (const auto& perm : layouts<NDim>(rng)) {
      check_im2col(g, G, N, C, perm, rng);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}
}  // namespace

TEST(ComposeIm2col, Random1DGrouped) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_im2cols<1>(rng, 14, 100);
    if (HasFatalFailure()) return;
  }
}

TEST(ComposeIm2col, Random2DGrouped) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_im2cols<2>(rng, 8, 40);
    if (HasFatalFailure()) return;
  }
}

TEST(ComposeIm2col, Random3DGrouped) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_im2cols<3>(rng, 5, 12);
    if (HasFatalFailure()) return;
  }
}

// The seed problem's shape, scaled down: 3x3, stride 2, padding 1, odd input (71 -> 9 here), NHWGC.
TEST(ComposeIm2col, SeedLikeStride2Pad1) {
  tg::window_geometry<2> g{};
  g[0] = tg::window_dim{9, 3, 2, 1, 1, 1};
  g[1] = tg::window_dim{9, 3, 2, 1, 1, 1};
  std::mt19937 rng(12);
  check_im2col(g, 2, 2, 4, {1, 3, 4, 0, 2}, rng);
}

// The worked example of docs/transforms.md: x [G 1, N 1, C 2, H 4, W 4], 3x3, stride 1, padding 1:
// A = [1, 16, 18]; (g 0, m 5, k 13) is (n 0, ho 1, wo 1) x (y 2, x 0, c 1): x[0, 0, 1, 2, 0].
TEST(ComposeIm2col, WorkedExample) {
  tg::window_geometry<2> g{};
  g[0] = g[1] = tg::window_dim{4, 3, 1, 1, 1, 1};
  const auto x = tg::make_packed_descriptor(tg::make_tuple(index_t{1}, index_t{1}, index_t{2}, index_t{4}, index_t{4}));
  const auto a = tg::im2col(x, g);
  EXPECT_EQ(vec(a.lengths()), (std::vector<index_t>{1, 16, 18}));
  EXPECT_TRUE(a.is_valid({{0, 5, 13}}));
  EXPECT_EQ(a.offset({{0, 5, 13}}), x.offset({{0, 0, 1, 2, 0}}));
  // (m 0, k 0) is (ho 0, wo 0) x (y 0, x 0): hi = wi = -1, in the padding.
  EXPECT_FALSE(a.is_valid({{0, 0, 0}}));
}
