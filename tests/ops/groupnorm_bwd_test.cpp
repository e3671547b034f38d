// groupnorm_fwd (saved mean/rstd and y) and groupnorm_bwd (dx, dgamma, dbeta) on the host backend against
// the naive reference (ops/reference/groupnorm.hpp), on random problems: NCHW and NHWC, fp32/fp16/bf16,
// G = 1, G = C and in between, eps from 1e-5 to 0.1. As in the example, the backward pass is checked
// against the reference fed the op's own statistics, so that each pass is checked alone.
//
// Seeds: TG_SEED=<n> sets the base seed (default in support.hpp); TG_OPS_CASES=<n> the number of random cases.
#include "../../examples/common/harness.hpp"
#include "lowering/host.hpp"
#include "ops/groupnorm_bwd.hpp"
#include "ops/reference/groupnorm.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

#include <cstdlib>
#include <sstream>

namespace {
using namespace tg;
using namespace tg::test;

std::string describe(const ops::groupnorm_problem& p) {
  std::ostringstream s;
  s << "N" << p.N << " C" << p.C << " G" << p.G << " " << p.H << "x" << p.W << " eps " << p.eps
    << (p.layout == ops::channel_order::first ? " nchw" : " nhwc");
  return s.str();
}

struct norm_case {
  ops::groupnorm_problem p;
  int dtype = 0;
  bool ints = false;
  double offset = 0.0;  // added to x: a mean away from zero
};

norm_case random_case(std::mt19937_64& rng, int i) {
  norm_case c;
  c.dtype = i % 3;
  c.ints = i % 5 == 4;
  auto& p = c.p;
  p.N = pick(rng, 1, 3);
  switch (i % 4) {
    case 0: p.G = 1; p.C = pick(rng, 1, 6); break;
    case 1: p.G = p.C = pick(rng, 1, 6); break;
    default: p.G = pick(rng, 2, 4); p.C = p.G * pick(rng, 2, 4); break;
  }
  p.H = pick(rng, 1, 7);
  p.W = pick(rng, 1, 7);
  static const float eps[] = {1e-5f, 1e-5f, 1e-3f, 0.1f};
  p.eps = eps[pick(rng, 0, 3)];
  p.layout = (i / 3) % 2 ? ops::channel_order::last : ops::channel_order::first;
  c.offset = i % 7 == 5 ? 2.0 : 0.0;
  return c;
}

template <class T>
void run_case(const norm_case& c, std::mt19937_64& rng) {
  const auto& p = c.p;
  SCOPED_TRACE(describe(p) + " " + dtype_traits<T>::name + (c.ints ? " ints" : " decimals") + " offset " + std::to_string(c.offset));
  const std::vector<i64> xl{p.N, p.C, p.hw()}, cl{p.C};
  const std::vector<int> phys = p.layout == ops::channel_order::first ? std::vector<int>{0, 1, 2} : std::vector<int>{0, 2, 1};
  vec xd = ex::random_tensor(ex::volume(xl), c.ints ? 1 : 2, rng);
  for (auto& e : xd) e += c.offset;
  const auto x = ex::to_dtype<T>(xd);
  const auto dy = ex::to_dtype<T>(ex::random_tensor(ex::volume(xl), c.ints ? 1 : 2, rng));
  const auto gamma = ex::to_dtype<T>(ex::random_tensor(p.C, c.ints ? 1 : 2, rng)), beta = ex::to_dtype<T>(ex::random_tensor(p.C, c.ints ? 1 : 2, rng));
  const vec xr = ex::to_double(x), dyr = ex::to_double(dy), gr = ex::to_double(gamma), br = ex::to_double(beta);

  const auto xp = ex::permute(x, xl, phys, true), dyp = ex::permute(dy, xl, phys, true);
  host_backend be;
  std::vector<T> y(x.size()), dx(x.size()), dgamma(p.C), dbeta(p.C);
  std::vector<float> mean(p.N * p.G), rstd(p.N * p.G);
  ex::poison(y); ex::poison(dx); ex::poison(dgamma); ex::poison(dbeta); ex::poison(mean); ex::poison(rstd);
  ops::groupnorm_fwd(be, p, xp.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data());
  ops::groupnorm_bwd(be, p, xp.data(), dyp.data(), gamma.data(), mean.data(), rstd.data(), dx.data(), dgamma.data(), dbeta.data());

  const ref::groupnorm_params rp{p.N, p.C, p.hw(), p.G, p.eps};
  const auto fwd = ref::groupnorm_fwd(rp, xr, gr, br);
  const vec got_mean(mean.begin(), mean.end()), got_rstd(rstd.begin(), rstd.end());
  EXPECT_TRUE(matches("mean", mean, {p.N * p.G}, {0}, fwd.mean, 1e-4, 1e-4));
  // rstd: 1e-3 as the example, widened by what a one-pass fp32 variance (E[x^2] - mean^2, the op's
  // formulation) loses to cancellation: d rstd = rstd^3 / 2 * d var, d var ~ 4 ulp of E[x^2]. The test
  // StatisticsOfInputsWithLargeMean below asks for more.
  for (i64 ng = 0; ng < p.N * p.G; ++ng) {
    const i64 Cg = p.C / p.G, n = ng / p.G, g = ng % p.G;
    double sq = 0;
    for (i64 ch = g * Cg; ch < (g + 1) * Cg; ++ch)
      for (i64 e = 0; e < p.hw(); ++e) sq += xr[(n * p.C + ch) * p.hw() + e] * xr[(n * p.C + ch) * p.hw() + e];
    const double r = fwd.rstd[ng], tol = 1e-3 * r + 0.5 * r * r * r * 4.0 * std::ldexp(sq / double(Cg * p.hw()), -24);
    EXPECT_NEAR(got_rstd[ng], r, tol) << "rstd of group " << ng;
  }
  // y from the op's own statistics: checks the forward's affine pass alone. It computes y = a * x + c,
  // a = rstd * gamma, c = beta - mean * a: allow fp32 rounding of those terms (they cancel for large rstd).
  vec want_y(x.size());
  double big_y = 1.0, y_terms = 0.0;
  for (i64 n = 0; n < p.N; ++n)
    for (i64 ch = 0; ch < p.C; ++ch)
      for (i64 e = 0; e < p.hw(); ++e) {
        const i64 k = (n * p.C + ch) * p.hw() + e, ng = n * p.G + ch / (p.C / p.G);
        want_y[k] = gr[ch] * (xr[k] - got_mean[ng]) * got_rstd[ng] + br[ch];
        big_y = std::max(big_y, std::fabs(want_y[k]));
        const double a = gr[ch] * got_rstd[ng];
        y_terms = std::max(y_terms, std::fabs(a * xr[k]) + std::fabs(a * got_mean[ng]) + std::fabs(br[ch]));
      }
  EXPECT_TRUE(matches("y", y, xl, phys, want_y, dtype_traits<T>::rtol, dtype_traits<T>::atol, big_y + 1e-6 * y_terms / dtype_traits<T>::atol));

  const auto bwd = ref::groupnorm_bwd(rp, xr, dyr, gr, got_mean, got_rstd);
  // Tolerances: the dtype's, relative to the outputs' magnitude, plus fp32 rounding (1e-6) of the terms
  // the op adds, which cancel where rstd is large (tiny groups, small variance) or the mean is far from 0:
  //   dx = a * dy + c2 * x + c3 (PyTorch's formulation), dgamma = sum_n (ds - db * mean) * rstd.
  const i64 Cg = p.C / p.G, D = Cg * p.hw();
  double big = 1.0, dx_terms = 0.0, dg_terms = 0.0;
  for (double v : bwd.dx) big = std::max(big, std::fabs(v));
  vec dg_sum(p.C, 0.0);
  for (i64 n = 0; n < p.N; ++n)
    for (i64 g = 0; g < p.G; ++g) {
      const double m = got_mean[n * p.G + g], rs = got_rstd[n * p.G + g];
      double ds_g = 0, db_g = 0;
      for (i64 ch = g * Cg; ch < (g + 1) * Cg; ++ch) {
        double ds = 0, db = 0;
        for (i64 e = 0; e < p.hw(); ++e) {
          const i64 k = (n * p.C + ch) * p.hw() + e;
          ds += dyr[k] * xr[k];
          db += dyr[k];
        }
        ds_g += gr[ch] * ds;
        db_g += gr[ch] * db;
        dg_sum[ch] += (std::fabs(ds) + std::fabs(db * m)) * rs;
      }
      const double c2 = (db_g * m - ds_g) * rs * rs * rs / double(D), c3 = -c2 * m - db_g * rs / double(D);
      for (i64 ch = g * Cg; ch < (g + 1) * Cg; ++ch)
        for (i64 e = 0; e < p.hw(); ++e) {
          const i64 k = (n * p.C + ch) * p.hw() + e;
          dx_terms = std::max(dx_terms, std::fabs(rs * gr[ch] * dyr[k]) + std::fabs(c2 * xr[k]) + std::fabs(c3));
        }
    }
  for (double v : dg_sum) dg_terms = std::max(dg_terms, v);
  const double atol = dtype_traits<T>::atol, sums = std::sqrt(double(p.N * p.hw())) * (c.ints ? 25.0 : 1.0);
  EXPECT_TRUE(matches("dx", dx, xl, phys, bwd.dx, dtype_traits<T>::rtol, atol, big + 1e-6 * dx_terms / atol));
  EXPECT_TRUE(matches("dgamma", dgamma, cl, {0}, bwd.dgamma, dtype_traits<T>::rtol, atol, sums + 1e-6 * dg_terms / atol));
  EXPECT_TRUE(matches("dbeta", dbeta, cl, {0}, bwd.dbeta, dtype_traits<T>::rtol, atol, sums));
}

TEST(GroupNormBwd, RandomProblemsMatchReference) {
  const int n = num_cases(100);
  for (int i = 0; i < n; ++i) {
    const std::uint64_t seed = base_seed() + 0x500000ull + std::uint64_t(i);
    SCOPED_TRACE(testing::Message() << "TG_SEED=" << base_seed() << " case " << i << " (rng seed " << seed << ")");
    std::mt19937_64 rng(seed);
    const norm_case c = random_case(rng, i);
    with_dtype(c.dtype, [&](auto t) { run_case<decltype(t)>(c, rng); });
    if (HasFailure()) break;
  }
}

// A group of constant values has variance 0: rstd = 1/sqrt(eps), y = beta, xhat = 0.
TEST(GroupNormBwd, ConstantGroupHasZeroVariance) {
  ops::groupnorm_problem p;
  p.N = 1; p.C = 2; p.G = 1; p.H = 2; p.W = 2; p.eps = 0.25f;
  const std::vector<float> x(8, 3.0f), dy{1, 2, 3, 4, 5, 6, 7, 8}, gamma{2, -1}, beta{0.5f, -0.5f};
  std::vector<float> y(8), dx(8), dg(2), db(2), mean(1), rstd(1);
  ex::poison(y); ex::poison(dx); ex::poison(dg); ex::poison(db);
  host_backend be;
  ops::groupnorm_fwd(be, p, x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data());
  ops::groupnorm_bwd(be, p, x.data(), dy.data(), gamma.data(), mean.data(), rstd.data(), dx.data(), dg.data(), db.data());
  EXPECT_EQ(mean[0], 3.0f);
  EXPECT_EQ(rstd[0], 2.0f);
  EXPECT_EQ(y, (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f, -0.5f, -0.5f, -0.5f, -0.5f}));
  // dx = rstd * (gamma * dy - mean over the group of gamma * dy); the xhat terms vanish. mean(gamma*dy) = -6/8.
  const std::vector<float> want_dx{5.5f, 9.5f, 13.5f, 17.5f, -8.5f, -10.5f, -12.5f, -14.5f};
  for (int k = 0; k < 8; ++k) EXPECT_NEAR(dx[k], want_dx[k], 1e-5f) << k;
  EXPECT_EQ(dg, (std::vector<float>{0, 0}));
  EXPECT_EQ(db, (std::vector<float>{10, 26}));
}

// The saved statistics of inputs whose mean is large against their spread (x = 100 + U(-1, 1), fp32):
// the variance must not be lost to cancellation (PyTorch's Welford / two-pass sums keep it to ~1e-6).
TEST(GroupNormBwd, StatisticsOfInputsWithLargeMean) {
  std::mt19937_64 rng(base_seed() + 0x510000ull);
  ops::groupnorm_problem p;
  p.N = 2; p.C = 8; p.G = 2; p.H = 8; p.W = 8;
  vec xd = ex::random_tensor(p.N * p.C * p.hw(), 2, rng);
  for (auto& e : xd) e += 100.0;
  const auto x = ex::to_dtype<float>(xd);
  const std::vector<float> gamma(p.C, 1.0f), beta(p.C, 0.0f);
  std::vector<float> y(x.size()), mean(p.N * p.G), rstd(p.N * p.G);
  host_backend be;
  ops::groupnorm_fwd(be, p, x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data());
  const auto fwd = ref::groupnorm_fwd({p.N, p.C, p.hw(), p.G, p.eps}, ex::to_double(x), vec(p.C, 1.0), vec(p.C, 0.0));
  EXPECT_TRUE(matches("mean", mean, {p.N * p.G}, {0}, fwd.mean, 1e-5, 1e-5));
  EXPECT_TRUE(matches("rstd", rstd, {p.N * p.G}, {0}, fwd.rstd, 1e-4, 1e-5));
  EXPECT_TRUE(matches("y", y, {p.N, p.C, p.hw()}, {0, 1, 2}, fwd.y, 1e-4, 1e-4));
}
}  // namespace
