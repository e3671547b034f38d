// Naive host references for grouped N-d convolution (1D/2D/3D): forward, backward data, backward
// weight, each a plain loop nest written from the definition. Independent of dsl/ and lowering/ on
// purpose. The three loop nests are deliberately separate (gather / scatter / gather over n and
// outputs) so that the adjoint identities in the tests actually check them against each other.
// C and K are the TOTAL channel counts (divisible by G); Cg = C/G, Kg = K/G. Canonical packed layouts
// (spatial dims d < ndim only, outermost first):
//   x [G][N][Cg][in...]   w [G][Kg][Cg][filter...]   y, dy [G][N][Kg][out...]
// out[d] = (in[d] + pad_l[d] + pad_r[d] - dilation[d]*(filter[d]-1) - 1)/stride[d] + 1, and output o,
// tap t reads input i = o*stride - pad_l + t*dilation (out-of-range i is the zero padding).
#pragma once
#include <array>
#include <cassert>
#include <cstdint>
#include <vector>

namespace tg::ref {

struct conv_params {
  int ndim;                                            // 1..3; entries d >= ndim are ignored
  std::int64_t G, N, K, C;
  std::array<std::int64_t, 3> filter = {1, 1, 1};
  std::array<std::int64_t, 3> in = {1, 1, 1};
  std::array<std::int64_t, 3> stride = {1, 1, 1};
  std::array<std::int64_t, 3> dilation = {1, 1, 1};
  std::array<std::int64_t, 3> pad_l = {0, 0, 0};
  std::array<std::int64_t, 3> pad_r = {0, 0, 0};
  std::int64_t out(int d) const {
    return (in[d] + pad_l[d] + pad_r[d] - dilation[d] * (filter[d] - 1) - 1) / stride[d] + 1;
  }
  std::int64_t spatial(const std::array<std::int64_t, 3>& a) const {
    std::int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= a[d];
    return n;
  }
  std::int64_t x_size() const { return N * C * spatial(in); }
  std::int64_t w_size() const { return K * (C / G) * spatial(filter); }  // each filter sees its group's C/G channels
  std::int64_t y_size() const { return N * K * spatial({out(0), out(1), out(2)}); }
};

namespace detail_conv {
// The problem seen as 3D, with unused dims of size 1 (same packed offsets), plus the index map.
struct shape3 {
  std::int64_t G, N, Cg, Kg, O, T;  // O, T: number of output positions and of taps
  std::array<std::int64_t, 3> in{1, 1, 1}, fl{1, 1, 1}, out{1, 1, 1}, s{1, 1, 1}, dl{1, 1, 1}, pl{0, 0, 0};
  explicit shape3(const conv_params& p) : G(p.G), N(p.N), Cg(p.C / p.G), Kg(p.K / p.G) {
    assert(p.ndim >= 1 && p.ndim <= 3 && p.C % p.G == 0 && p.K % p.G == 0);
    for (int d = 0; d < p.ndim; ++d) {
      in[d] = p.in[d]; fl[d] = p.filter[d]; out[d] = p.out(d);
      s[d] = p.stride[d]; dl[d] = p.dilation[d]; pl[d] = p.pad_l[d];
    }
    O = out[0] * out[1] * out[2];
    T = fl[0] * fl[1] * fl[2];
  }
  // Flat input position within a [in...] plane read by flat output o and flat tap t; -1 = padding.
  std::int64_t input_of(std::int64_t o, std::int64_t t) const {
    const std::int64_t oi[3] = {o / (out[1] * out[2]), o / out[2] % out[1], o % out[2]};
    const std::int64_t ti[3] = {t / (fl[1] * fl[2]), t / fl[2] % fl[1], t % fl[2]};
    std::int64_t flat = 0;
    for (int d = 0; d < 3; ++d) {
      const std::int64_t i = oi[d] * s[d] - pl[d] + ti[d] * dl[d];
      if (i < 0 || i >= in[d]) return -1;
      flat = flat * in[d] + i;
    }
    return flat;
  }
  std::int64_t x_at(std::int64_t g, std::int64_t n, std::int64_t c, std::int64_t i) const { return ((g * N + n) * Cg + c) * in[0] * in[1] * in[2] + i; }
  std::int64_t w_at(std::int64_t g, std::int64_t k, std::int64_t c, std::int64_t t) const { return ((g * Kg + k) * Cg + c) * T + t; }
  std::int64_t y_at(std::int64_t g, std::int64_t n, std::int64_t k, std::int64_t o) const { return ((g * N + n) * Kg + k) * O + o; }
};
}  // namespace detail_conv

// y[g,n,k,o] = sum_{c,t} x[g,n,c, o*s - pl + t*d] * w[g,k,c,t]   (gather per output)
inline std::vector<double> conv_fwd(const conv_params& p, const std::vector<double>& x, const std::vector<double>& w) {
  assert(std::int64_t(x.size()) == p.x_size() && std::int64_t(w.size()) == p.w_size());
  const detail_conv::shape3 q(p);
  std::vector<double> y(p.y_size());
  for (std::int64_t g = 0; g < q.G; ++g)
    for (std::int64_t n = 0; n < q.N; ++n)
      for (std::int64_t k = 0; k < q.Kg; ++k)
        for (std::int64_t o = 0; o < q.O; ++o) {
          double acc = 0;
          for (std::int64_t c = 0; c < q.Cg; ++c)
            for (std::int64_t t = 0; t < q.T; ++t)
              if (const std::int64_t i = q.input_of(o, t); i >= 0) acc += x[q.x_at(g, n, c, i)] * w[q.w_at(g, k, c, t)];
          y[q.y_at(g, n, k, o)] = acc;
        }
  return y;
}

// dx[g,n,c,i] = sum over k, taps t and outputs o with o*s - pl + t*d == i of dy[g,n,k,o] * w[g,k,c,t]
// (scatter from every output and tap)
inline std::vector<double> conv_bwd_data(const conv_params& p, const std::vector<double>& dy, const std::vector<double>& w) {
  assert(std::int64_t(dy.size()) == p.y_size() && std::int64_t(w.size()) == p.w_size());
  const detail_conv::shape3 q(p);
  std::vector<double> dx(p.x_size(), 0.0);
  for (std::int64_t g = 0; g < q.G; ++g)
    for (std::int64_t n = 0; n < q.N; ++n)
      for (std::int64_t k = 0; k < q.Kg; ++k)
        for (std::int64_t o = 0; o < q.O; ++o)
          for (std::int64_t t = 0; t < q.T; ++t)
            if (const std::int64_t i = q.input_of(o, t); i >= 0)
              for (std::int64_t c = 0; c < q.Cg; ++c) dx[q.x_at(g, n, c, i)] += dy[q.y_at(g, n, k, o)] * w[q.w_at(g, k, c, t)];
  return dx;
}

// dw[g,k,c,t] = sum over n and outputs o of x[g,n,c, o*s - pl + t*d] * dy[g,n,k,o]   (gather per weight)
inline std::vector<double> conv_bwd_weight(const conv_params& p, const std::vector<double>& x, const std::vector<double>& dy) {
  assert(std::int64_t(x.size()) == p.x_size() && std::int64_t(dy.size()) == p.y_size());
  const detail_conv::shape3 q(p);
  std::vector<double> dw(p.w_size());
  for (std::int64_t g = 0; g < q.G; ++g)
    for (std::int64_t k = 0; k < q.Kg; ++k)
      for (std::int64_t c = 0; c < q.Cg; ++c)
        for (std::int64_t t = 0; t < q.T; ++t) {
          double acc = 0;
          for (std::int64_t n = 0; n < q.N; ++n)
            for (std::int64_t o = 0; o < q.O; ++o)
              if (const std::int64_t i = q.input_of(o, t); i >= 0) acc += x[q.x_at(g, n, c, i)] * dy[q.y_at(g, n, k, o)];
          dw[q.w_at(g, k, c, t)] = acc;
        }
  return dw;
}

}  // namespace tg::ref
