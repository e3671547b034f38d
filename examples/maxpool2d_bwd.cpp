// maxpool2d_bwd: the gradient of 2D max pooling, argmax recomputed from x or read from indices.
// Positional problem (after verify init time): N C Y X Hi Wi Sy Sx Dy Dx Py Px
#include "common/harness.hpp"
#include "lowering/host.hpp"
#include "ops/maxpool2d_bwd.hpp"
#include "ops/reference/maxpool2d.hpp"

using namespace tg;

int main(int argc, char** argv) {
  ops::maxpool2d_problem p;
  long long N = 4, C = 32, H = 56, W = 56, win = 3, stride = 2, pad = 1, dil = 1;
  std::string layout = "nchw";
  bool indices = false;
  auto setup = [&](CLI::App& app, ex::options&) {
    app.add_option("--N", N); app.add_option("--C", C); app.add_option("--H", H); app.add_option("--W", W);
    app.add_option("--window", win); app.add_option("--stride", stride); app.add_option("--pad", pad); app.add_option("--dilation", dil);
    app.add_flag("--indices", indices, "route through the indices of maxpool2d_fwd instead of recomputing the argmax");
  };
  auto run = [&](auto t, auto& be, ex::options& o) -> bool {
    using T = decltype(t);
    ex::need_problem(o, 12, "N C Y X Hi Wi Sy Sx Dy Dx Py Px");
    const auto& q = o.problem;
    p.N = q.empty() ? N : q[0]; p.C = q.empty() ? C : q[1];
    for (int d = 0; d < 2; ++d) {
      p.window[d] = q.empty() ? win : q[2 + d]; p.in[d] = q.empty() ? (d ? W : H) : q[4 + d];
      p.stride[d] = q.empty() ? stride : q[6 + d]; p.dilation[d] = q.empty() ? dil : q[8 + d];
      p.pad_l[d] = p.pad_r[d] = q.empty() ? pad : q[10 + d];
    }
    if (!o.layout.empty()) layout = o.layout;
    ops::require(layout == "nchw" || layout == "nhwc", "maxpool2d_bwd", "--layout", "must be nchw or nhwc, got " + layout);
    p.layout = layout == "nchw" ? ops::channel_order::first : ops::channel_order::last;
    p.validate("maxpool2d_bwd", sizeof(T), {"x", "dy", indices ? "idx" : nullptr});
    const std::string desc = fmt::format("N{} C{} {}x{} {}x{} s{},{} d{},{} p{},{} {}{}", p.N, p.C, p.in[0], p.in[1], p.window[0], p.window[1],
                                         p.stride[0], p.stride[1], p.dilation[0], p.dilation[1], p.pad_l[0], p.pad_l[1], layout, indices ? " indices" : "");
    auto rng = ex::make_rng(o);
    fmt::print("maxpool2d_bwd {} {} on {} (seed {})\n", desc, o.dtype, be.name, o.seed);
    const std::vector<std::int64_t> xl{p.N, p.C, p.in[0], p.in[1]}, yl{p.N, p.C, p.out(0), p.out(1)};
    const std::vector<int> phys = layout == "nchw" ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{0, 2, 3, 1};
    ex::memory_plan("maxpool2d_bwd", o).add("x", ex::volume(xl), sizeof(T)).add("dy", ex::volume(yl), sizeof(T)).add("dx", ex::volume(xl), sizeof(T))
        .add("y", ex::volume(yl), sizeof(T)).add("idx", ex::volume(yl), sizeof(std::int32_t)).check(be);
    const auto xin = ex::make_input<T>(o, "x", xl, phys, rng), dyin = ex::make_input<T>(o, "dy", yl, phys, rng);
    const auto &x = xin.canonical, &dy = dyin.canonical;
    std::vector<T> dx(x.size()), y(dy.size());
    std::vector<std::int32_t> idx(dy.size());
    ex::poison(dx); ex::poison(y);
    auto d_x = be.upload(xin.physical), d_dy = be.upload(dyin.physical);
    auto d_dx = be.upload(dx), d_y = be.upload(y);
    auto d_idx = be.upload(std::vector<std::int32_t>(idx.size(), -7));
    if (indices) ops::maxpool2d_fwd(be, p, d_x.data(), d_y.data(), d_idx.data());
    auto op = [&] {
      if (indices) ops::maxpool2d_bwd_indices(be, p, d_idx.data(), d_dy.data(), d_dx.data());
      else ops::maxpool2d_bwd(be, p, d_x.data(), d_dy.data(), d_dx.data());
    };
    op();
    be.synchronize();
    ex::save_output(o, be, "dx", d_dx, dx);
    bool ok = true;
    std::string check = "skipped";
    if (o.verify) {
      const ref::maxpool2d_params rp{p.N, p.C, p.in[0], p.in[1], p.window[0], p.window[1], p.stride[0], p.stride[1],
                                     p.pad_l[0], p.pad_l[1], p.dilation[0], p.dilation[1]};
      const auto ref_dx = ref::maxpool2d_bwd(rp, ex::to_double(x), ex::to_double(dy));
      ok = ex::check_tensor("dx", be, d_dx, dx, xl, phys, ref_dx);
      if (indices) {
        be.download(d_y, y);
        be.download(d_idx, idx);
        const auto fwd = ref::maxpool2d_fwd(rp, ex::to_double(x));
        const auto got_y = ex::to_double(ex::permute(y, yl, phys, false));
        ok = ex::report("y", ex::compare(got_y, fwd.y, 0.0, 0.0), got_y, fwd.y) && ok;
        const auto gi = ex::permute(idx, yl, phys, false);
        std::vector<double> got_i(gi.begin(), gi.end()), ref_i(fwd.indices.begin(), fwd.indices.end());
        ok = ex::report("indices", ex::compare(got_i, ref_i, 0.0, 0.0), got_i, ref_i) && ok;
      }
      check = ok ? "pass" : "FAIL";
    }
    double ms = -1;
    if (o.time) {
      ms = ex::median_ms(be, op, o.repeat);
      const double bytes = double(sizeof(T)) * (2 * x.size() + dy.size()) + (indices ? 4.0 * dy.size() - sizeof(T) * x.size() : 0.0);
      ex::print_perf(ms, double(dy.size()) * p.window[0] * p.window[1], bytes);
    }
    ex::print_summary("maxpool2d_bwd", desc, be.name, o, check, ms);
    return ok;
  };
  return ex::main_of("maxpool2d_bwd", "nchw, nhwc", argc, argv, setup, run);
}
