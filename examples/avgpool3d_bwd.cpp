// avgpool3d_bwd: the gradient of 3D average pooling.
// Positional problem (after verify init time): N C Z Y X Di Hi Wi Sz Sy Sx Dz Dy Dx LeftPz LeftPy LeftPx RightPz RightPy RightPx
#include "common/harness.hpp"
#include "lowering/host.hpp"
#include "ops/avgpool3d_bwd.hpp"
#include "ops/reference/avgpool3d.hpp"

using namespace tg;

int main(int argc, char** argv) {
  ops::avgpool3d_problem p;
  long long N = 2, C = 16, D = 8, H = 28, W = 28, win = 2, stride = 2, pad = 0, dil = 1;
  std::string layout = "ncdhw";
  bool exclude_pad = false;
  auto setup = [&](CLI::App& app, ex::options&) {
    app.add_option("--N", N); app.add_option("--C", C); app.add_option("--D", D); app.add_option("--H", H); app.add_option("--W", W);
    app.add_option("--window", win); app.add_option("--stride", stride); app.add_option("--pad", pad); app.add_option("--dilation", dil);
    app.add_flag("--exclude-pad", exclude_pad, "divide by the valid positions of each window (the seed's effective window), not its volume");
  };
  auto run = [&](auto t, auto& be, ex::options& o) -> bool {
    using T = decltype(t);
    ex::need_problem(o, 20, "N C Z Y X Di Hi Wi Sz Sy Sx Dz Dy Dx LeftPz LeftPy LeftPx RightPz RightPy RightPx");
    const auto& q = o.problem;
    const long long in3[3] = {D, H, W};
    p.N = q.empty() ? N : q[0]; p.C = q.empty() ? C : q[1];
    for (int d = 0; d < 3; ++d) {
      p.window[d] = q.empty() ? win : q[2 + d]; p.in[d] = q.empty() ? in3[d] : q[5 + d];
      p.stride[d] = q.empty() ? stride : q[8 + d]; p.dilation[d] = q.empty() ? dil : q[11 + d];
      p.pad_l[d] = q.empty() ? pad : q[14 + d]; p.pad_r[d] = q.empty() ? pad : q[17 + d];
    }
    p.count_include_pad = !exclude_pad;
    if (!o.layout.empty()) layout = o.layout;
    ops::require(layout == "ncdhw" || layout == "ndhwc", "avgpool3d_bwd", "--layout", "must be ncdhw or ndhwc, got " + layout);
    p.layout = layout == "ncdhw" ? ops::channel_order::first : ops::channel_order::last;
    p.validate("avgpool3d_bwd", sizeof(T), {"dx", "dy"});
    const std::string desc = fmt::format("N{} C{} {}x{}x{} k{}x{}x{} s{},{},{} d{},{},{} p{},{},{}/{},{},{} {}{}", p.N, p.C, p.in[0], p.in[1], p.in[2],
                                         p.window[0], p.window[1], p.window[2], p.stride[0], p.stride[1], p.stride[2], p.dilation[0],
                                         p.dilation[1], p.dilation[2], p.pad_l[0], p.pad_l[1], p.pad_l[2], p.pad_r[0], p.pad_r[1], p.pad_r[2],
                                         layout, exclude_pad ? " exclude-pad" : "");
    auto rng = ex::make_rng(o);
    fmt::print("avgpool3d_bwd {} {} on {} (seed {})\n", desc, o.dtype, be.name, o.seed);

    const std::vector<std::int64_t> xl{p.N, p.C, p.in[0], p.in[1], p.in[2]}, yl{p.N, p.C, p.out(0), p.out(1), p.out(2)};
    const std::vector<int> phys = layout == "ncdhw" ? std::vector<int>{0, 1, 2, 3, 4} : std::vector<int>{0, 2, 3, 4, 1};
    ex::memory_plan("avgpool3d_bwd", o).add("dy", ex::volume(yl), sizeof(T)).add("dx", ex::volume(xl), sizeof(T)).check(be);
    const auto dyin = ex::make_input<T>(o, "dy", yl, phys, rng);
    const auto& dy = dyin.canonical;
    std::vector<T> dx(static_cast<std::size_t>(ex::volume(xl)));
    ex::poison(dx);
    auto d_dy = be.upload(dyin.physical);
    auto d_dx = be.upload(dx);
    auto op = [&] { ops::avgpool3d_bwd(be, p, d_dy.data(), d_dx.data()); };
    op();
    be.synchronize();
    ex::save_output(o, be, "dx", d_dx, dx);
    bool ok = true;
    std::string check = "skipped";
    if (o.verify) {
      ref::avgpool3d_params rp{p.N, p.C, p.in[0], p.in[1], p.in[2], {p.window[0], p.window[1], p.window[2]}};
      for (int d = 0; d < 3; ++d) { rp.s[d] = p.stride[d]; rp.pl[d] = p.pad_l[d]; rp.pr[d] = p.pad_r[d]; rp.dil[d] = p.dilation[d]; }
      rp.count_include_pad = p.count_include_pad;
      ok = ex::check_tensor("dx", be, d_dx, dx, xl, phys, ref::avgpool3d_bwd(rp, ex::to_double(dy)));
      check = ok ? "pass" : "FAIL";
    }
    double ms = -1;
    if (o.time) {
      ms = ex::median_ms(be, op, o.repeat);
      ex::print_perf(ms, double(dy.size()) * p.window[0] * p.window[1] * p.window[2], double(sizeof(T)) * (dx.size() + dy.size()));
    }
    ex::print_summary("avgpool3d_bwd", desc, be.name, o, check, ms);
    return ok;
  };
  return ex::main_of("avgpool3d_bwd", "ncdhw, ndhwc", argc, argv, setup, run);
}
