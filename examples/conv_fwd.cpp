// conv_fwd: y of a 1D/2D/3D grouped convolution (the forward, as cuDNN's; docs/new-op.md's tutorial op).
// Positional problem (after verify init time): NDim G N K C filter... input... strides... dilations... left-pads... right-pads...
#include "common/conv_cli.hpp"
#include "lowering/host.hpp"
#include "ops/conv_fwd.hpp"

using namespace tg;

int main(int argc, char** argv) {
  ex::conv_cli cli;
  int k_splits = 0;
  auto setup = [&](CLI::App& app, ex::options&) {
    cli.add(app);
    app.add_option("--k-splits", k_splits, "split the (taps, C) reduction into this many chunks (deterministic); 0: the backend chooses")
        ->check(CLI::NonNegativeNumber);
  };
  auto run = [&](auto t, auto& be, ex::options& o) -> bool {
    using T = decltype(t);
    cli.resolve(o, "conv_fwd", sizeof(T), ops::conv_fwd_tensors);
    const auto& p = cli.p;
    auto rng = ex::make_rng(o);
    fmt::print("conv_fwd {} k-splits {} {} on {} (seed {})\n", cli.describe(), k_splits, o.dtype, be.name, o.seed);
    const auto xl = cli.x_len(), wl = cli.w_len(), yl = cli.y_len();
    ex::memory_plan("conv_fwd", o).add("x", ex::volume(xl), sizeof(T)).add("w", ex::volume(wl), sizeof(T)).add("y", ex::volume(yl), sizeof(T)).check(be);
    const auto xin = ex::make_input<T>(o, "x", xl, cli.x_order(), rng), win = ex::make_input<T>(o, "w", wl, cli.w_order(), rng);
    const auto &x = xin.canonical, &w = win.canonical;
    std::vector<T> y(static_cast<std::size_t>(ex::volume(yl)));
    ex::poison(y);
    auto d_x = be.upload(xin.physical), d_w = be.upload(win.physical);
    auto d_y = be.upload(y);
    const gemm_policy policy{k_splits, split_k_mode::deterministic};
    auto op = [&] { ops::conv_fwd(be, p, d_x.data(), d_w.data(), d_y.data(), policy); };
    op();
    be.synchronize();
    ex::save_output(o, be, "y", d_y, y);
    bool ok = true;
    std::string check = "skipped";
    if (o.verify) {
      const auto ref_y = ref::conv_fwd(cli.reference(), ex::to_double(x), ex::to_double(w));
      double sums = double(p.C / p.G);  // y sums C/G x taps products
      for (int d = 0; d < p.ndim; ++d) sums *= p.filter[d];
      ok = ex::check_tensor("y", be, d_y, y, yl, cli.y_order(), ref_y, std::sqrt(sums) * (o.init == 1 ? 25.0 : 1.0), true);
      check = ok ? "pass" : "FAIL";
    }
    double ms = -1;
    if (o.time) {
      ms = ex::median_ms(be, op, o.repeat);
      ex::print_perf(ms, cli.flops(), double(sizeof(T)) * (x.size() + w.size() + y.size()));
    }
    ex::print_summary("conv_fwd", cli.describe(), be.name, o, check, ms);
    return ok;
  };
  return ex::main_of("conv_fwd", "gnhwc, nhwgc, nchw", argc, argv, setup, run);
}
