// Convolution problems for the ops tests on the host backend (conv_bwd_test.cpp, conv_fwd_test.cpp):
// random problems over every layout, group form and dimensionality, the canonical lengths and each
// layout's memory order (written out here independently of ops/), and the naive reference's parameters.
#pragma once

#include "ops/conv_problem.hpp"
#include "ops/reference/conv.hpp"
#include "support.hpp"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace tg::test {
inline const char* layout_name(ops::conv_layout l) {
  return l == ops::conv_layout::gnhwc ? "gnhwc" : l == ops::conv_layout::nhwgc ? "nhwgc" : "nchw";
}
inline std::string describe(const ops::conv_problem& p) {
  std::ostringstream s;
  s << p.ndim << "D G" << p.G << " N" << p.N << " K" << p.K << " C" << p.C;
  auto list = [&](const char* name, const i64* v) {
    s << " " << name;
    for (int d = 0; d < p.ndim; ++d) s << (d ? "x" : "") << v[d];
  };
  list("in", p.in); list("f", p.filter); list("s", p.stride); list("d", p.dilation); list("pl", p.pad_l); list("pr", p.pad_r);
  s << " " << layout_name(p.layout);
  return s.str();
}
inline ref::conv_params reference_of(const ops::conv_problem& p) {
  ref::conv_params r{p.ndim, p.G, p.N, p.K, p.C};
  for (int d = 0; d < p.ndim; ++d) {
    r.filter[d] = p.filter[d]; r.in[d] = p.in[d]; r.stride[d] = p.stride[d];
    r.dilation[d] = p.dilation[d]; r.pad_l[d] = p.pad_l[d]; r.pad_r[d] = p.pad_r[d];
  }
  return r;
}
// Canonical lengths x [G, N, C/G, in...], w [G, K/G, C/G, filter...], y [G, N, K/G, out...], and each
// layout's physical order (slowest first), written out here independently of ops/.
inline std::vector<i64> lengths(const ops::conv_problem& p, i64 a, i64 b, const i64* sp) {
  std::vector<i64> l{p.G, a, b};
  for (int d = 0; d < p.ndim; ++d) l.push_back(sp[d]);
  return l;
}
inline std::vector<i64> x_len(const ops::conv_problem& p) { return lengths(p, p.N, p.C / p.G, p.in); }
inline std::vector<i64> w_len(const ops::conv_problem& p) { return lengths(p, p.K / p.G, p.C / p.G, p.filter); }
inline std::vector<i64> y_len(const ops::conv_problem& p) {
  i64 o[3];
  for (int d = 0; d < p.ndim; ++d) o[d] = p.out(d);
  return lengths(p, p.N, p.K / p.G, o);
}
inline std::vector<int> act_order(const ops::conv_problem& p) {
  std::vector<int> o;
  switch (p.layout) {
    case ops::conv_layout::gnhwc: o = {0, 1}; for (int d = 0; d < p.ndim; ++d) o.push_back(3 + d); o.push_back(2); break;
    case ops::conv_layout::nhwgc: o = {1}; for (int d = 0; d < p.ndim; ++d) o.push_back(3 + d); o.push_back(0); o.push_back(2); break;
    case ops::conv_layout::nchw: o = {1, 0, 2}; for (int d = 0; d < p.ndim; ++d) o.push_back(3 + d); break;
  }
  return o;
}
inline std::vector<int> w_order(const ops::conv_problem& p) {  // GKYXC, or KCYX for nchw
  std::vector<int> o{0, 1};
  if (p.layout == ops::conv_layout::nchw) { o.push_back(2); for (int d = 0; d < p.ndim; ++d) o.push_back(3 + d); }
  else { for (int d = 0; d < p.ndim; ++d) o.push_back(3 + d); o.push_back(2); }
  return o;
}

// Case i: ndim cycles 1, 2, 3; the layout every third case; groups: G = 1, G = 2..3, depthwise G = C = K,
// depthwise with a channel multiplier (K = 2C). Every 5th case forces gcd(stride, dilation) > 1 in one
// dimension, every 5th (offset) a stride larger than the dilated filter.
inline ops::conv_problem random_conv(std::mt19937_64& rng, int i) {
  ops::conv_problem p;
  p.ndim = 1 + i % 3;
  p.layout = static_cast<ops::conv_layout>((i / 3) % 3);
  p.N = pick(rng, 1, 3);
  switch ((i / 9 + i) % 4) {
    case 0: p.G = 1; p.C = pick(rng, 1, 8); p.K = pick(rng, 1, 8); break;
    case 1: p.G = pick(rng, 2, 4); p.C = p.G * pick(rng, 1, 4); p.K = p.G * pick(rng, 1, 4); break;
    case 2: p.G = p.C = p.K = pick(rng, 1, 8); break;
    default: p.G = p.C = pick(rng, 2, 4); p.K = 2 * p.G; break;
  }
  const i64 max_f = p.ndim == 1 ? 5 : 3, extra = p.ndim == 3 ? 4 : p.ndim == 2 ? 8 : 24;
  const int special = pick(rng, 0, p.ndim - 1);
  for (int d = 0; d < p.ndim; ++d) {
    p.filter[d] = pick(rng, 1, max_f);
    p.dilation[d] = pick(rng, 1, 3);
    p.stride[d] = pick(rng, 1, 3);
    if (d == special && i % 5 == 0) {  // gcd(stride, dilation) > 1: some col2im classes have no taps
      static const i64 sd[][2] = {{2, 2}, {2, 4}, {3, 3}, {4, 2}};
      const auto& c = sd[pick(rng, 0, 3)];
      p.stride[d] = c[0]; p.dilation[d] = c[1]; p.filter[d] = pick(rng, 2, 3);
    }
    const i64 span = p.dilation[d] * (p.filter[d] - 1) + 1;
    if (d == special && i % 5 == 2) p.stride[d] = span + pick(rng, 1, 2);  // stride larger than the filter
    p.pad_l[d] = pick(rng, 0, 3);
    p.pad_r[d] = pick(rng, 0, 3);
    p.in[d] = std::max<i64>(1, span - p.pad_l[d] - p.pad_r[d] + pick(rng, 0, extra));
  }
  return p;
}
}  // namespace tg::test
