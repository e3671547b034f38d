// The convolution command line shared by convnd_bwd_data and grouped_conv_bwd_weight (CK's order):
// NDim G N K C filter... input... strides... dilations... left-pads... right-pads...
#pragma once
#include "common/harness.hpp"
#include "ops/conv_problem.hpp"
#include "ops/reference/conv.hpp"

namespace tg::ex {
struct conv_cli {
  ops::conv_problem p;
  long long ndim = 2, G = 1, N = 4, K = 64, C = 32;
  std::vector<long long> filter{3, 3}, in{28, 28}, stride{2, 2}, dilation{1, 1}, pad_l{1, 1}, pad_r{1, 1};
  std::string layout = "nhwgc";

  void add(CLI::App& app) {
    app.add_option("--ndim", ndim); app.add_option("--G", G); app.add_option("--N", N); app.add_option("--K", K); app.add_option("--C", C);
    app.add_option("--filter", filter)->delimiter(','); app.add_option("--in", in)->delimiter(',');
    app.add_option("--stride", stride)->delimiter(','); app.add_option("--dilation", dilation)->delimiter(',');
    app.add_option("--pad-l", pad_l)->delimiter(','); app.add_option("--pad-r", pad_r)->delimiter(',');
  }
  // Positional values win over the named ones. elem_bytes and names: the op's (for the size checks).
  void resolve(const options& o, const char* op, std::size_t elem_bytes, ops::conv_tensor_names names) {
    const auto& q = o.problem;
    if (!q.empty()) {
      ops::require(q[0] >= 1 && q[0] <= 3, op, "NDim", "must be 1, 2 or 3");
      const std::size_t nd = static_cast<std::size_t>(q[0]);
      need_problem(o, 5 + 6 * nd, "NDim G N K C filter... input... strides... dilations... left-pads... right-pads...");
      ndim = q[0]; G = q[1]; N = q[2]; K = q[3]; C = q[4];
      auto take = [&](std::vector<long long>& v, std::size_t k) { v.assign(q.begin() + 5 + k * nd, q.begin() + 5 + (k + 1) * nd); };
      take(filter, 0); take(in, 1); take(stride, 2); take(dilation, 3); take(pad_l, 4); take(pad_r, 5);
    }
    ops::require(ndim >= 1 && ndim <= 3, op, "--ndim", "must be 1, 2 or 3");
    for (auto* v : {&filter, &in, &stride, &dilation, &pad_l, &pad_r})
      ops::require(v->size() == std::size_t(ndim), op, "geometry", "each of --filter --in --stride --dilation --pad-l --pad-r needs ndim values");
    if (!o.layout.empty()) layout = o.layout;
    ops::require(layout == "gnhwc" || layout == "nhwgc" || layout == "nchw", op, "--layout", "must be gnhwc, nhwgc or nchw, got " + layout);
    p.ndim = int(ndim); p.G = G; p.N = N; p.K = K; p.C = C;
    for (int d = 0; d < ndim; ++d) {
      p.filter[d] = filter[d]; p.in[d] = in[d]; p.stride[d] = stride[d]; p.dilation[d] = dilation[d]; p.pad_l[d] = pad_l[d]; p.pad_r[d] = pad_r[d];
    }
    p.layout = layout == "gnhwc" ? ops::conv_layout::gnhwc : layout == "nhwgc" ? ops::conv_layout::nhwgc : ops::conv_layout::nchw;
    p.validate(op, elem_bytes, names);
  }
  std::string describe() const {
    std::string s = fmt::format("{}D G{} N{} K{} C{}", p.ndim, p.G, p.N, p.K, p.C);
    auto list = [&](const char* name, const index_t* v) {
      s += " " + std::string(name);
      for (int d = 0; d < p.ndim; ++d) s += (d ? "x" : "") + std::to_string(v[d]);
    };
    list("in", p.in); list("f", p.filter); list("s", p.stride); list("d", p.dilation); list("pl", p.pad_l); list("pr", p.pad_r);
    return s + " " + layout;
  }
  ref::conv_params reference() const {
    ref::conv_params r{p.ndim, p.G, p.N, p.K, p.C};
    for (int d = 0; d < p.ndim; ++d) {
      r.filter[d] = p.filter[d]; r.in[d] = p.in[d]; r.stride[d] = p.stride[d]; r.dilation[d] = p.dilation[d]; r.pad_l[d] = p.pad_l[d]; r.pad_r[d] = p.pad_r[d];
    }
    return r;
  }
  // Canonical lengths: x [G, N, C/G, in...], w [G, K/G, C/G, filter...], y [G, N, K/G, out...].
  std::vector<std::int64_t> x_len() const { return lengths(p.N, p.C / p.G, [&](int d) { return p.in[d]; }); }
  std::vector<std::int64_t> w_len() const { return lengths(p.K / p.G, p.C / p.G, [&](int d) { return p.filter[d]; }); }
  std::vector<std::int64_t> y_len() const { return lengths(p.N, p.K / p.G, [&](int d) { return p.out(d); }); }
  // Physical orders (slowest first) of each layout, written out here independently of ops/.
  std::vector<int> x_order() const { return act_order(); }
  std::vector<int> y_order() const { return act_order(); }
  std::vector<int> w_order() const {
    std::vector<int> o{0, 1};
    if (layout == "nchw") { o.push_back(2); for (int d = 0; d < p.ndim; ++d) o.push_back(3 + d); }
    else { for (int d = 0; d < p.ndim; ++d) o.push_back(3 + d); o.push_back(2); }  // GKYXC
    return o;
  }
  double flops() const {
    double f = 2.0 * p.N * p.K * (p.C / p.G);
    for (int d = 0; d < p.ndim; ++d) f *= double(p.out(d)) * p.filter[d];
    return f;
  }

 private:
  template <class F>
  std::vector<std::int64_t> lengths(index_t a, index_t b, F sp) const {
    std::vector<std::int64_t> l{p.G, a, b};
    for (int d = 0; d < p.ndim; ++d) l.push_back(sp(d));
    return l;
  }
  std::vector<int> act_order() const {
    std::vector<int> o;
    if (layout == "gnhwc") { o = {0, 1}; for (int d = 0; d < p.ndim; ++d) o.push_back(3 + d); o.push_back(2); }
    else if (layout == "nhwgc") { o = {1}; for (int d = 0; d < p.ndim; ++d) o.push_back(3 + d); o.push_back(0); o.push_back(2); }
    else { o = {1, 0, 2}; for (int d = 0; d < p.ndim; ++d) o.push_back(3 + d); }
    return o;
  }
};
}  // namespace tg::ex
