// Naive host reference for group normalization, forward (to produce consistent saved statistics)
// and backward. Independent of dsl/ and lowering/ on purpose.
// Layout: x, y, dy, dx [N][C][HW] packed (NCHW, spatial flattened); gamma, beta, dgamma, dbeta [C];
// mean, rstd [N][G]. Group g holds channels [g*Cg, (g+1)*Cg), Cg = C/G; M = Cg*HW elements per (n, g).
//
// Backward, derived from y = gamma_c * xhat + beta_c, xhat = (x - mu) * rstd, rstd = (var + eps)^-1/2,
// biased var. With gx = gamma_c * dy (the gradient reaching xhat), per (n, g):
//   dx = rstd * (gx - (sum gx + xhat * sum gx*xhat) / M)       sums over the M elements of (n, g)
//   dbeta_c = sum_{n,hw} dy,   dgamma_c = sum_{n,hw} dy * xhat
// The seed writes dx = gamma_c*rstd*(dy - (sum_{c'} dbeta_c' + xhat*sum_{c'} dgamma_c')/M): its sums
// run over the whole batch and weight by 1 instead of gamma_c'; it agrees with the above only for
// N = 1 and gamma constant within each group, so the formula above is the one used.
#pragma once
#include <cassert>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tg::ref {

struct groupnorm_params {
  std::int64_t N, C, HW, G;
  double eps = 1e-5;
  std::int64_t Cg() const { return C / G; }
  std::int64_t x_size() const { return N * C * HW; }
};

struct groupnorm_fwd_result {
  std::vector<double> y, mean, rstd;  // y [N][C][HW]; mean, rstd [N][G]
};

struct groupnorm_bwd_result {
  std::vector<double> dx, dgamma, dbeta;  // dx [N][C][HW]; dgamma, dbeta [C]
};

inline groupnorm_fwd_result groupnorm_fwd(const groupnorm_params& p, const std::vector<double>& x,
                                          const std::vector<double>& gamma, const std::vector<double>& beta) {
  assert(p.C % p.G == 0 && std::int64_t(x.size()) == p.x_size());
  assert(std::int64_t(gamma.size()) == p.C && std::int64_t(beta.size()) == p.C);
  const std::int64_t M = p.Cg() * p.HW;
  groupnorm_fwd_result r{std::vector<double>(x.size()), std::vector<double>(p.N * p.G), std::vector<double>(p.N * p.G)};
  for (std::int64_t n = 0; n < p.N; ++n)
    for (std::int64_t g = 0; g < p.G; ++g) {
      const std::int64_t base = (n * p.C + g * p.Cg()) * p.HW;  // a group is contiguous in NCHW
      double sum = 0, sq = 0;
      for (std::int64_t e = 0; e < M; ++e) sum += x[base + e];
      const double mu = sum / double(M);
      for (std::int64_t e = 0; e < M; ++e) sq += (x[base + e] - mu) * (x[base + e] - mu);  // two-pass
      const double rstd = 1.0 / std::sqrt(sq / double(M) + p.eps);
      r.mean[n * p.G + g] = mu;
      r.rstd[n * p.G + g] = rstd;
      for (std::int64_t e = 0; e < M; ++e) {
        const std::int64_t c = g * p.Cg() + e / p.HW;
        r.y[base + e] = gamma[c] * (x[base + e] - mu) * rstd + beta[c];
      }
    }
  return r;
}

inline groupnorm_bwd_result groupnorm_bwd(const groupnorm_params& p, const std::vector<double>& x,
                                          const std::vector<double>& dy, const std::vector<double>& gamma,
                                          const std::vector<double>& mean, const std::vector<double>& rstd) {
  assert(p.C % p.G == 0 && std::int64_t(x.size()) == p.x_size() && dy.size() == x.size());
  assert(std::int64_t(gamma.size()) == p.C && std::int64_t(mean.size()) == p.N * p.G && rstd.size() == mean.size());
  const std::int64_t M = p.Cg() * p.HW;
  groupnorm_bwd_result r{std::vector<double>(x.size()), std::vector<double>(p.C, 0.0), std::vector<double>(p.C, 0.0)};
  for (std::int64_t n = 0; n < p.N; ++n)
    for (std::int64_t g = 0; g < p.G; ++g) {
      const std::int64_t base = (n * p.C + g * p.Cg()) * p.HW;
      const double mu = mean[n * p.G + g], rs = rstd[n * p.G + g];
      double sum_gx = 0, sum_gx_xhat = 0;
      for (std::int64_t e = 0; e < M; ++e) {
        const std::int64_t c = g * p.Cg() + e / p.HW;
        const double xhat = (x[base + e] - mu) * rs;
        sum_gx += gamma[c] * dy[base + e];
        sum_gx_xhat += gamma[c] * dy[base + e] * xhat;
        r.dbeta[c] += dy[base + e];
        r.dgamma[c] += dy[base + e] * xhat;
      }
      for (std::int64_t e = 0; e < M; ++e) {
        const std::int64_t c = g * p.Cg() + e / p.HW;
        const double xhat = (x[base + e] - mu) * rs;
        r.dx[base + e] = rs * (gamma[c] * dy[base + e] - (sum_gx + xhat * sum_gx_xhat) / double(M));
      }
    }
  return r;
}

}  // namespace tg::ref
