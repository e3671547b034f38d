// Makes the naive references trustworthy on their own: the conv forward against an independent
// formulation (explicit padding, dilated filter, dense correlation, subsampling), the conv backward
// passes and avgpool backward as exact adjoints of their forwards, groupnorm backward against central
// finite differences, maxpool against a brute-force argmax and hand-made tie/NaN/padding cases.
#include "ops/reference/avgpool3d.hpp"
#include "ops/reference/conv.hpp"
#include "ops/reference/groupnorm.hpp"
#include "ops/reference/maxpool2d.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {
using namespace tg::ref;
using vec = std::vector<double>;
using i64 = std::int64_t;

vec random_vec(std::mt19937& rng, i64 n, double lo = -1, double hi = 1) {
  std::uniform_real_distribution<double> u(lo, hi);
  vec v(n);
  for (auto& e : v) e = u(rng);
  return v;
}
double dot(const vec& a, const vec& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}
vec abs_of(vec v) {
  for (auto& e : v) e = std::fabs(e);
  return v;
}
i64 pick(std::mt19937& rng, i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(rng); }

// ---------------------------------------------------------------------------------------------- conv

// Random small conv problem; `in` is chosen so that at least one output exists.
conv_params random_conv(std::mt19937& rng, int ndim) {
  conv_params p{ndim, pick(rng, 1, 3), pick(rng, 1, 2), 0, 0};
  p.K = p.G * pick(rng, 1, 3);
  p.C = p.G * pick(rng, 1, 3);
  for (int d = 0; d < ndim; ++d) {
    p.filter[d] = pick(rng, 1, ndim == 3 ? 2 : 3);
    p.stride[d] = pick(rng, 1, 3);
    p.dilation[d] = pick(rng, 1, 3);
    p.pad_l[d] = pick(rng, 0, 2);
    p.pad_r[d] = pick(rng, 0, 2);
    const i64 span = p.dilation[d] * (p.filter[d] - 1) + 1;
    p.in[d] = std::max<i64>(1, span - p.pad_l[d] - p.pad_r[d] + pick(rng, 0, ndim == 3 ? 3 : 5));
    if (p.out(d) < 1) p.in[d] = span;  // the padded extent must hold one window
  }
  return p;
}

// Forward convolution by a different route: materialise the zero-padded input and the dilated filter
// (zeros between taps), correlate densely with stride 1, keep every stride-th output. 3D throughout,
// unused dims of size 1; its own index arithmetic, sharing nothing with conv.hpp.
vec conv_fwd_explicit(const conv_params& p, const vec& x, const vec& w) {
  i64 in[3] = {1, 1, 1}, P[3] = {1, 1, 1}, F[3] = {1, 1, 1}, f[3] = {1, 1, 1}, out[3] = {1, 1, 1}, st[3] = {1, 1, 1};
  for (int d = 0; d < p.ndim; ++d) {
    in[d] = p.in[d];
    f[d] = p.filter[d];
    P[d] = p.in[d] + p.pad_l[d] + p.pad_r[d];
    F[d] = p.dilation[d] * (p.filter[d] - 1) + 1;
    out[d] = (P[d] - F[d]) / p.stride[d] + 1;
    st[d] = p.stride[d];
  }
  const i64 Cg = p.C / p.G, Kg = p.K / p.G;
  vec y;
  for (i64 g = 0; g < p.G; ++g)
    for (i64 n = 0; n < p.N; ++n)
      for (i64 k = 0; k < Kg; ++k) {
        vec acc(out[0] * out[1] * out[2], 0.0);
        for (i64 c = 0; c < Cg; ++c) {
          vec xp(P[0] * P[1] * P[2], 0.0), wd(F[0] * F[1] * F[2], 0.0);
          const i64 xbase = ((g * p.N + n) * Cg + c) * in[0] * in[1] * in[2];
          for (i64 a = 0; a < in[0]; ++a)
            for (i64 b = 0; b < in[1]; ++b)
              for (i64 e = 0; e < in[2]; ++e)
                xp[((a + (p.ndim > 0 ? p.pad_l[0] : 0)) * P[1] + b + (p.ndim > 1 ? p.pad_l[1] : 0)) * P[2] + e +
                   (p.ndim > 2 ? p.pad_l[2] : 0)] = x[xbase + (a * in[1] + b) * in[2] + e];
          const i64 wbase = ((g * Kg + k) * Cg + c) * f[0] * f[1] * f[2];
          for (i64 a = 0; a < f[0]; ++a)
            for (i64 b = 0; b < f[1]; ++b)
              for (i64 e = 0; e < f[2]; ++e)
                wd[(a * (p.ndim > 0 ? p.dilation[0] : 1) * F[1] + b * (p.ndim > 1 ? p.dilation[1] : 1)) * F[2] +
                   e * (p.ndim > 2 ? p.dilation[2] : 1)] = w[wbase + (a * f[1] + b) * f[2] + e];
          for (i64 a = 0; a < out[0]; ++a)
            for (i64 b = 0; b < out[1]; ++b)
              for (i64 e = 0; e < out[2]; ++e)
                for (i64 u = 0; u < F[0]; ++u)
                  for (i64 v = 0; v < F[1]; ++v)
                    for (i64 z = 0; z < F[2]; ++z)
                      acc[(a * out[1] + b) * out[2] + e] +=
                          xp[((a * st[0] + u) * P[1] + b * st[1] + v) * P[2] + e * st[2] + z] * wd[(u * F[1] + v) * F[2] + z];
        }
        y.insert(y.end(), acc.begin(), acc.end());
      }
  return y;
}

// Regression: w_size() once counted K * C taps instead of K * C/G, so grouped dw was half zeros.
TEST(Reference, ConvGroupedSizes) {
  conv_params p{2, 4, 3, 8, 12};
  p.filter = {3, 2, 1};
  EXPECT_EQ(p.w_size(), 8 * 3 * 3 * 2);
  EXPECT_EQ(p.x_size(), 3 * 12);
}

TEST(Reference, ConvFwdHandComputed1D) {
  // x = [1 2 3], w = [1 10], pad 1 each side: windows [0 1], [1 2], [2 3], [3 0].
  conv_params p{1, 1, 1, 1, 1};
  p.filter[0] = 2; p.in[0] = 3; p.pad_l[0] = 1; p.pad_r[0] = 1;
  ASSERT_EQ(p.out(0), 4);
  EXPECT_EQ(conv_fwd(p, {1, 2, 3}, {1, 10}), (vec{10, 21, 32, 3}));
  p.stride[0] = 2;  // outputs 0 and 2 of the above
  EXPECT_EQ(conv_fwd(p, {1, 2, 3}, {1, 10}), (vec{10, 32}));
  p.stride[0] = 1; p.dilation[0] = 2; p.pad_r[0] = 0;  // taps (o-1, o+1): out = (3+1-2-1)/1+1 = 2
  EXPECT_EQ(conv_fwd(p, {1, 2, 3}, {1, 10}), (vec{20, 31}));
}

TEST(Reference, ConvFwdMatchesExplicitPadDilateSubsample) {
  for (unsigned seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    const conv_params p = random_conv(rng, 1 + seed % 3);
    const vec x = random_vec(rng, p.x_size()), w = random_vec(rng, p.w_size());
    const vec y = conv_fwd(p, x, w), ye = conv_fwd_explicit(p, x, w);
    ASSERT_EQ(y.size(), ye.size());
    for (std::size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], ye[i], 1e-12) << i;
  }
}

// <dy, fwd(x, w)> = <bwd_data(dy, w), x> = <bwd_weight(x, dy), w>, relative to the same sums of |terms|.
TEST(Reference, ConvBackwardIsAdjointOfForward) {
  for (unsigned seed = 100; seed < 250; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    const conv_params p = random_conv(rng, 1 + seed % 3);
    const vec x = random_vec(rng, p.x_size()), w = random_vec(rng, p.w_size()), dy = random_vec(rng, p.y_size());
    const double lhs = dot(dy, conv_fwd(p, x, w));
    const double scale = dot(abs_of(dy), conv_fwd(p, abs_of(x), abs_of(w))) + 1e-300;
    EXPECT_NEAR(dot(conv_bwd_data(p, dy, w), x), lhs, 1e-9 * scale);
    EXPECT_NEAR(dot(conv_bwd_weight(p, x, dy), w), lhs, 1e-9 * scale);
  }
}

// The adjoint checks only bind where they have weight: also compare bwd_data with its gather form
// (input i receives from o = (i + pl - t*d)/s when that divides exactly), on 2D problems.
TEST(Reference, ConvBwdDataMatchesGatherForm) {
  for (unsigned seed = 300; seed < 340; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    const conv_params p = random_conv(rng, 2);
    const vec w = random_vec(rng, p.w_size()), dy = random_vec(rng, p.y_size());
    const vec dx = conv_bwd_data(p, dy, w);
    const i64 Cg = p.C / p.G, Kg = p.K / p.G, Ho = p.out(0), Wo = p.out(1);
    for (i64 g = 0; g < p.G; ++g)
      for (i64 n = 0; n < p.N; ++n)
        for (i64 c = 0; c < Cg; ++c)
          for (i64 hi = 0; hi < p.in[0]; ++hi)
            for (i64 wi = 0; wi < p.in[1]; ++wi) {
              double s = 0;
              for (i64 k = 0; k < Kg; ++k)
                for (i64 y = 0; y < p.filter[0]; ++y)
                  for (i64 xx = 0; xx < p.filter[1]; ++xx) {
                    const i64 nh = hi + p.pad_l[0] - y * p.dilation[0], nw = wi + p.pad_l[1] - xx * p.dilation[1];
                    if (nh < 0 || nw < 0 || nh % p.stride[0] || nw % p.stride[1]) continue;
                    const i64 ho = nh / p.stride[0], wo = nw / p.stride[1];
                    if (ho >= Ho || wo >= Wo) continue;
                    s += dy[(((g * p.N + n) * Kg + k) * Ho + ho) * Wo + wo] *
                         w[(((g * Kg + k) * Cg + c) * p.filter[0] + y) * p.filter[1] + xx];
                  }
              ASSERT_NEAR(dx[(((g * p.N + n) * Cg + c) * p.in[0] + hi) * p.in[1] + wi], s, 1e-12);
            }
  }
}

// ----------------------------------------------------------------------------------------- groupnorm

// Central differences of L = sum(y * r) with statistics recomputed from x, against groupnorm_bwd(dy = r).
void check_groupnorm_fd(const groupnorm_params& p, unsigned seed) {
  SCOPED_TRACE(testing::Message() << "seed " << seed << " N" << p.N << " C" << p.C << " HW" << p.HW << " G" << p.G);
  std::mt19937 rng(seed);
  vec x = random_vec(rng, p.x_size(), -2, 2), gamma = random_vec(rng, p.C, 0.5, 1.5), beta = random_vec(rng, p.C);
  const vec r = random_vec(rng, p.x_size());
  const auto fwd = groupnorm_fwd(p, x, gamma, beta);
  const auto bwd = groupnorm_bwd(p, x, r, gamma, fwd.mean, fwd.rstd);
  auto loss = [&] { return dot(groupnorm_fwd(p, x, gamma, beta).y, r); };
  auto fd = [&](vec& v, std::size_t i) {
    const double h = 1e-5, keep = v[i];
    v[i] = keep + h; const double up = loss();
    v[i] = keep - h; const double dn = loss();
    v[i] = keep;
    return (up - dn) / (2 * h);
  };
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(bwd.dx[i], fd(x, i), 1e-7) << "dx " << i;
  for (i64 c = 0; c < p.C; ++c) {
    ASSERT_NEAR(bwd.dgamma[c], fd(gamma, c), 1e-7) << "dgamma " << c;
    ASSERT_NEAR(bwd.dbeta[c], fd(beta, c), 1e-7) << "dbeta " << c;
  }
}

TEST(Reference, GroupnormBwdMatchesFiniteDifferences) {
  check_groupnorm_fd({2, 4, 3, 2, 1e-3}, 11);   // 2 channels per group
  check_groupnorm_fd({1, 6, 5, 3, 1e-5}, 12);
  check_groupnorm_fd({3, 4, 2, 1, 1e-2}, 13);   // G = 1 (layer norm)
  check_groupnorm_fd({2, 3, 4, 3, 1e-4}, 14);   // G = C (instance norm)
  check_groupnorm_fd({2, 2, 1, 1, 1e-3}, 15);   // HW = 1
}

TEST(Reference, GroupnormFwdStatistics) {
  const groupnorm_params p{2, 4, 3, 2, 0.0};
  std::mt19937 rng(21);
  SCOPED_TRACE("seed 21");
  const vec x = random_vec(rng, p.x_size()), ones(p.C, 1.0), zeros(p.C, 0.0);
  const auto f = groupnorm_fwd(p, x, ones, zeros);
  for (i64 ng = 0; ng < p.N * p.G; ++ng) {  // each group of xhat: mean 0, biased variance 1
    double s = 0, sq = 0;
    for (i64 e = 0; e < p.Cg() * p.HW; ++e) { s += f.y[ng * 6 + e]; sq += f.y[ng * 6 + e] * f.y[ng * 6 + e]; }
    EXPECT_NEAR(s, 0.0, 1e-12);
    EXPECT_NEAR(sq / 6, 1.0, 1e-12);
  }
}

// ------------------------------------------------------------------------------------------ maxpool

// Brute force: list the valid taps in row-major order, then pick the answer from the list.
void maxpool_brute(const maxpool2d_params& p, const vec& x, vec& y, std::vector<i64>& idx) {
  for (i64 nc = 0; nc < p.N * p.C; ++nc)
    for (i64 ho = 0; ho < p.Ho(); ++ho)
      for (i64 wo = 0; wo < p.Wo(); ++wo) {
        std::vector<i64> taps;
        for (i64 i = 0; i < p.kh; ++i)
          for (i64 j = 0; j < p.kw; ++j) {
            const i64 h = ho * p.sh - p.ph + i * p.dh, w = wo * p.sw - p.pw + j * p.dw;
            if (h >= 0 && h < p.H && w >= 0 && w < p.W) taps.push_back(h * p.W + w);
          }
        auto val = [&](i64 t) { return x[nc * p.H * p.W + t]; };
        i64 best = -1;
        for (i64 t : taps) if (std::isnan(val(t))) best = t;  // last NaN (PyTorch)
        if (best < 0 && !taps.empty()) {
          double m = -std::numeric_limits<double>::infinity();
          for (i64 t : taps) m = std::max(m, val(t));
          for (i64 t : taps) if (val(t) == m) { best = t; break; }        // first maximum
        }
        y.push_back(best < 0 ? -std::numeric_limits<double>::infinity() : val(best));
        idx.push_back(best);
      }
}

TEST(Reference, MaxpoolMatchesBruteForceWithTies) {
  for (unsigned seed = 500; seed < 560; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    maxpool2d_params p{pick(rng, 1, 2), pick(rng, 1, 3), pick(rng, 3, 9), pick(rng, 3, 9), pick(rng, 1, 3), pick(rng, 1, 3)};
    p.sh = pick(rng, 1, 3); p.sw = pick(rng, 1, 3);
    p.ph = pick(rng, 0, p.kh / 2); p.pw = pick(rng, 0, p.kw / 2);  // PyTorch's limit: pad <= k/2
    p.dh = pick(rng, 1, 2); p.dw = pick(rng, 1, 2);
    if (p.Ho() < 1 || p.Wo() < 1) continue;
    vec x(p.x_size());
    for (auto& e : x) e = double(pick(rng, -2, 1));  // few distinct values: ties everywhere
    if (seed % 4 == 0) x[pick(rng, 0, p.x_size() - 1)] = std::nan("");
    if (seed % 5 == 0) x[pick(rng, 0, p.x_size() - 1)] = -std::numeric_limits<double>::infinity();
    vec yb; std::vector<i64> ib;
    maxpool_brute(p, x, yb, ib);
    const auto f = maxpool2d_fwd(p, x);
    ASSERT_EQ(f.indices, ib);
    for (std::size_t i = 0; i < yb.size(); ++i)
      ASSERT_TRUE(f.y[i] == yb[i] || (std::isnan(f.y[i]) && std::isnan(yb[i]))) << i;
    const vec dy = random_vec(rng, p.y_size());
    const vec dx = maxpool2d_bwd(p, x, dy);
    EXPECT_EQ(dx, maxpool2d_bwd_indices(p, f.indices, dy));
    vec dx_brute(p.x_size(), 0.0);  // scatter by the brute-force argmax, plane by plane
    for (i64 o = 0; o < p.y_size(); ++o) dx_brute[o / (p.Ho() * p.Wo()) * p.H * p.W + ib[o]] += dy[o];
    for (i64 i = 0; i < p.x_size(); ++i) ASSERT_NEAR(dx[i], dx_brute[i], 1e-15) << i;
  }
}

TEST(Reference, MaxpoolHandMadeTies) {
  // 3x3 plane, 2x2 windows, stride 1:  1 3 3 / 3 1 1 / 1 1 1
  const maxpool2d_params p{1, 1, 3, 3, 2, 2};
  const vec x = {1, 3, 3, 3, 1, 1, 1, 1, 1};
  const auto f = maxpool2d_fwd(p, x);
  EXPECT_EQ(f.indices, (std::vector<i64>{1, 1, 3, 4}));  // first maximum of each window
  EXPECT_EQ(f.y, (vec{3, 3, 3, 1}));
  EXPECT_EQ(maxpool2d_bwd(p, x, {1, 2, 3, 4}), (vec{0, 3, 0, 3, 4, 0, 0, 0, 0}));
}

TEST(Reference, MaxpoolNaNAndPadding) {
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  // One 2x2 window: 1 NaN / 5 NaN -> NaN beats the larger number and the last NaN wins (PyTorch).
  const maxpool2d_params p{1, 1, 2, 2, 2, 2};
  const auto f = maxpool2d_fwd(p, {1, nan, 5, nan});
  EXPECT_TRUE(std::isnan(f.y[0]));
  EXPECT_EQ(f.indices[0], 3);
  EXPECT_EQ(maxpool2d_fwd(p, {7, 9, nan, 9}).indices[0], 2);
  // Padding never wins, even over negative values: a 1x1 plane of -5 under a 3x3 window, padding 1.
  maxpool2d_params q{1, 1, 1, 1, 3, 3};
  q.ph = q.pw = 1;
  const auto g = maxpool2d_fwd(q, {-5});
  EXPECT_EQ(g.y, vec{-5});
  EXPECT_EQ(g.indices, std::vector<i64>{0});
  // All -inf: the first valid tap (not a padded one) is the argmax; bwd routes dy there.
  maxpool2d_params r{1, 1, 2, 2, 3, 3};
  r.ph = r.pw = 1;
  const auto h = maxpool2d_fwd(r, {-inf, -inf, -inf, -inf});  // out 2x2; window (1,1) starts at (0,0)
  EXPECT_EQ(h.indices, (std::vector<i64>{0, 0, 0, 0}));
  EXPECT_EQ(maxpool2d_bwd(r, {-inf, -inf, -inf, -inf}, {1, 2, 3, 4}), (vec{10, 0, 0, 0}));
}

// ---------------------------------------------------------------------------------------- avgpool

// Naive forward: y = (sum of the window's in-range taps) / divisor, divisor by the same rule.
vec avgpool3d_fwd_naive(const avgpool3d_params& p, const vec& x) {
  const i64 in[3] = {p.D, p.H, p.W}, out[3] = {p.out(0), p.out(1), p.out(2)};
  vec y;
  for (i64 nc = 0; nc < p.N * p.C; ++nc)
    for (i64 a = 0; a < out[0]; ++a)
      for (i64 b = 0; b < out[1]; ++b)
        for (i64 e = 0; e < out[2]; ++e) {
          double s = 0;
          i64 cnt = 0;
          for (i64 u = 0; u < p.k[0]; ++u)
            for (i64 v = 0; v < p.k[1]; ++v)
              for (i64 z = 0; z < p.k[2]; ++z) {
                const i64 d = a * p.s[0] - p.pl[0] + u * p.dil[0], h = b * p.s[1] - p.pl[1] + v * p.dil[1],
                          w = e * p.s[2] - p.pl[2] + z * p.dil[2];
                if (d < 0 || d >= in[0] || h < 0 || h >= in[1] || w < 0 || w >= in[2]) continue;
                s += x[((nc * in[0] + d) * in[1] + h) * in[2] + w];
                ++cnt;
              }
          const i64 div = p.count_include_pad ? p.k[0] * p.k[1] * p.k[2] : cnt;
          y.push_back(div ? s / double(div) : 0.0);
        }
  return y;
}

TEST(Reference, AvgpoolBwdIsAdjointOfForward) {
  for (unsigned seed = 700; seed < 800; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    avgpool3d_params p{pick(rng, 1, 2), pick(rng, 1, 2), 0, 0, 0, {}};
    i64* sizes[3] = {&p.D, &p.H, &p.W};
    for (int a = 0; a < 3; ++a) {
      p.k[a] = pick(rng, 1, 3); p.s[a] = pick(rng, 1, 3); p.dil[a] = pick(rng, 1, 2);
      p.pl[a] = pick(rng, 0, p.k[a] / 2); p.pr[a] = pick(rng, 0, p.k[a] / 2);
      *sizes[a] = std::max<i64>(1, p.dil[a] * (p.k[a] - 1) + 1 - p.pl[a] - p.pr[a] + pick(rng, 0, 4));
      if (p.out(a) < 1) *sizes[a] = p.dil[a] * (p.k[a] - 1) + 1;
    }
    p.count_include_pad = seed % 2;
    const vec x = random_vec(rng, p.x_size()), dy = random_vec(rng, p.y_size());
    const double lhs = dot(dy, avgpool3d_fwd_naive(p, x));
    const double scale = dot(abs_of(dy), avgpool3d_fwd_naive(p, abs_of(x))) + 1e-300;
    EXPECT_NEAR(dot(avgpool3d_bwd(p, dy), x), lhs, 1e-9 * scale);
  }
}

TEST(Reference, AvgpoolHandComputed) {
  // W = 3, window 2, pads 1 and 1: windows cover [-1,0], [0,1], [1,2], [2,3].
  avgpool3d_params p{1, 1, 1, 1, 3, {1, 1, 2}};
  p.pl = {0, 0, 1}; p.pr = {0, 0, 1};
  ASSERT_EQ(p.out(2), 4);
  p.count_include_pad = true;  // every window divides by 2
  EXPECT_EQ(avgpool3d_bwd(p, {1, 1, 1, 1}), (vec{1, 1, 1}));
  p.count_include_pad = false;  // edge windows hold one valid tap
  EXPECT_EQ(avgpool3d_bwd(p, {1, 1, 1, 1}), (vec{1.5, 1, 1.5}));
}
}  // namespace
