// groupnorm_bwd (seed 003) and the forward pass that saves its statistics.
// With xhat = (x - mean) * rstd per (n, group), D = (C/G) * HW, and per (n, c) the row sums
// ds = sum_hw dy * x, db = sum_hw dy (PyTorch's formulation of the seed's formulas):
//   dbeta_c  = sum_n db[n,c]                 dgamma_c = sum_n (ds[n,c] - db[n,c] * mean) * rstd
//   dx = rstd * gamma_c * dy + c2 * x + c3, where per (n, group), with sums over its channels,
//   c2 = (sum gamma*db * mean - sum gamma*ds) * rstd^3 / D,  c3 = -c2 * mean - sum gamma*db * rstd / D.
#pragma once
#include <cmath>
#include "dsl/compose/group_dims.hpp"
#include "dsl/transform/pass_through.hpp"
#include "dsl/transform/unmerge.hpp"
#include "lowering/row_reduce.hpp"
#include "ops/check.hpp"
#include "ops/memory.hpp"
#include "ops/pool_problem.hpp"

namespace tg::ops {
struct groupnorm_problem {
  index_t N = 1, C = 1, G = 1, H = 1, W = 1;
  float eps = 1e-5f;
  channel_order layout = channel_order::first;  // NCHW or NHWC (CK's NHWGC)

  index_t hw() const { return H * W; }
  // elem_bytes: the size of x's elements (and dy's, dx's, y's; the default, fp32's, is the widest).
  void validate(const char* op, std::size_t elem_bytes = sizeof(float)) const {
    for (auto [v, n] : {std::pair{N, "N"}, {C, "C"}, {G, "G"}, {H, "H"}, {W, "W"}})
      require(v > 0, op, n, [v = v] { return "must be positive, got " + std::to_string(v); });
    require(C % G == 0, op, "C", [&] { return "C = " + std::to_string(C) + " is not divisible by G = " + std::to_string(G); });
    require(eps > 0.0f, op, "eps", "must be positive");
    // Every tensor's element count and bytes fit in 64 bits: x-shaped ones, the fp32 statistics
    // [N, G] and the fp32 scratch rows [N, C] (larger than x in bytes when H * W = 1 and x is 16-bit).
    require_size(op, "x", {N, C, H, W}, elem_bytes);
    require_size(op, "mean", {N, G}, sizeof(float));
    require_size(op, "scratch", {scratch_rows, N, C}, sizeof(float));
  }
  static constexpr index_t scratch_rows = 5;  // fp32 [N, C] arrays: groupnorm_bwd takes 5, groupnorm_fwd 3 and two [N, G]
  // [N, C, HW] in memory order.
  auto desc() const {
    return make_ordered_descriptor(multi_index<3>{{N, C, hw()}},
                                   layout == channel_order::first ? array<int, 3>{{0, 1, 2}} : array<int, 3>{{0, 2, 1}});
  }
  auto rows() const { return group_dims(desc(), seq<0, 1>{}, seq<2>{}); }  // [(N, C), HW]
  auto groups() const {                                                    // [(N, G), (C/G, HW)]
    auto split = transform(desc(), tg::make_tuple(pass_through<index_t>{N}, unmerge<tuple<index_t, index_t>>{tg::make_tuple(G, C / G)}, pass_through<index_t>{hw()}),
                           tg::make_tuple(seq<0>{}, seq<1>{}, seq<2>{}), tg::make_tuple(seq<0>{}, seq<1, 2>{}, seq<3>{}));
    return group_dims(split, seq<0, 1>{}, seq<2, 3>{});
  }
};

// Per (n, group): the mean from the first pass, then rstd from the sums of (x - mean) of the second
// (two passes: E[x^2] - E[x]^2 cancels catastrophically when the mean is large against the spread).
struct groupnorm_mean {
  const float* sum; float* mean; index_t D;
  TG_FN void operator()(index_t i) const { mean[i] = sum[i] / D; }
};
struct groupnorm_rstd {
  const float *sum_sq, *sum; const float* mean; float* rstd; index_t D; float eps;
  TG_FN void operator()(index_t i) const {
    const float shift = sum[i] / D, var = sum_sq[i] / D - shift * shift;  // shift ~ 0: no cancellation left
    rstd[i] = 1.0f / sqrtf((var > 0.0f ? var : 0.0f) + eps);
  }
};
// Per (n, c): y = a * x + c with a = rstd * gamma, c = beta - mean * a.
template <class T>
struct groupnorm_fwd_coefficients {
  const T *gamma, *beta; const float *mean, *rstd; float *a, *b, *c; index_t C, Cg;
  TG_FN void operator()(index_t r) const {
    const index_t n = r / C, ch = r % C, ng = n * (C / Cg) + ch / Cg;
    a[r] = rstd[ng] * to_float(gamma[ch]);
    b[r] = 0.0f;
    c[r] = to_float(beta[ch]) - mean[ng] * a[r];
  }
};
// Per (n, group): the coefficients of dx for each of its channels, from the group's rows' sums.
template <class T>
struct groupnorm_bwd_coefficients {
  const T* gamma; const float *mean, *rstd; index_t C, Cg, D;
  TG_FN void operator()(index_t ng, const float* ds, const float* db, float* a, float* b, float* c) const {
    const index_t c0 = (ng % (C / Cg)) * Cg;
    float ds_g = 0.0f, db_g = 0.0f;
    // Unrolled: a group's loads issue together instead of one round trip per channel (a GPU thread
    // per group waited 13.5 us on ten channels' loads: performance.md 34). The sum's order is kept.
    TG_UNROLL_BY(8) for (index_t k = 0; k < Cg; ++k) {
      const float gk = to_float(gamma[c0 + k]);
      ds_g += gk * ds[k];
      db_g += gk * db[k];
    }
    const float s = rstd[ng], c2 = (db_g * mean[ng] - ds_g) * s * s * s / D, c3 = -c2 * mean[ng] - db_g * s / D;
    for (index_t k = 0; k < Cg; ++k) {
      a[k] = s * to_float(gamma[c0 + k]);
      b[k] = c2;
      c[k] = c3;
    }
  }
};
// Per channel: dgamma and dbeta, summed over n in order.
template <class T>
struct groupnorm_param_grads {
  const float *ds, *db, *mean, *rstd; T *dgamma, *dbeta; index_t N, C, Cg;
  TG_FN void operator()(index_t ch) const {
    float dg = 0.0f, dbeta_c = 0.0f;
    TG_UNROLL_BY(8) for (index_t n = 0; n < N; ++n) {  // (unrolled as above)
      const index_t r = n * C + ch, ng = n * (C / Cg) + ch / Cg;
      dg += (ds[r] - db[r] * mean[ng]) * rstd[ng];
      dbeta_c += db[r];
    }
    dgamma[ch] = from_float<T>(dg);
    dbeta[ch] = from_float<T>(dbeta_c);
  }
};

template <class T, class Backend>
void groupnorm_fwd(Backend& be, const groupnorm_problem& p, const T* x, const T* gamma, const T* beta, T* y, float* mean, float* rstd) {
  p.validate("groupnorm_fwd", sizeof(T));
  const index_t NG = p.N * p.G, NC = p.N * p.C, Cg = p.C / p.G;
  require_scratch(be, "groupnorm_fwd", (2 * NG + 3 * NC) * index_t(sizeof(float)));
  auto sum_sq = be.template scratch<float>(NG), sum = be.template scratch<float>(NG);
  const auto groups = make_view(x, p.groups());
  row_sums(be, groups, groups, sum_sq.data(), sum.data());
  for_each(be, NG, groupnorm_mean{sum.data(), mean, Cg * p.hw()});
  row_sums(be, groups, groups, sum_sq.data(), sum.data(), mean);
  for_each(be, NG, groupnorm_rstd{sum_sq.data(), sum.data(), mean, rstd, Cg * p.hw(), p.eps});
  auto a = be.template scratch<float>(NC), b = be.template scratch<float>(NC), c = be.template scratch<float>(NC);
  for_each(be, NC, groupnorm_fwd_coefficients<T>{gamma, beta, mean, rstd, a.data(), b.data(), c.data(), p.C, Cg});
  row_affine(be, make_view(y, p.rows()), make_view(x, p.rows()), make_view(x, p.rows()), {a.data(), b.data(), c.data()});
}

template <class T, class Backend>
void groupnorm_bwd(Backend& be, const groupnorm_problem& p, const T* x, const T* dy, const T* gamma, const float* mean,
                   const float* rstd, T* dx, T* dgamma, T* dbeta) {
  p.validate("groupnorm_bwd", sizeof(T));
  const index_t NC = p.N * p.C, Cg = p.C / p.G;
  require_scratch(be, "groupnorm_bwd", p.scratch_rows * NC * index_t(sizeof(float)));
  auto ds = be.template scratch<float>(NC), db = be.template scratch<float>(NC);
  auto a = be.template scratch<float>(NC), b = be.template scratch<float>(NC), c = be.template scratch<float>(NC);
  // ds = sum x * dy, db = sum dy per (n, c); each group's coefficients; dx = a * dy + b * x + c.
  row_sums_then_affine(be, make_view(dx, p.rows()), make_view(x, p.rows()), make_view(dy, p.rows()), Cg, ds.data(), db.data(),
                       groupnorm_bwd_coefficients<T>{gamma, mean, rstd, p.C, Cg, Cg * p.hw()},
                       {a.data(), b.data(), c.data()});
  for_each(be, p.C, groupnorm_param_grads<T>{ds.data(), db.data(), mean, rstd, dgamma, dbeta, p.N, p.C, Cg});
}
}  // namespace tg::ops
