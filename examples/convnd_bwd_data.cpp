// convnd_bwd_data: dx of a 1D/2D/3D grouped convolution.
// Positional problem (after verify init time): NDim G N K C filter... input... strides... dilations... left-pads... right-pads...
#include "common/conv_cli.hpp"
#include "lowering/host.hpp"
#include "ops/convnd_bwd_data.hpp"

using namespace tg;

int main(int argc, char** argv) {
  ex::conv_cli cli;
  auto setup = [&](CLI::App& app, ex::options&) { cli.add(app); };
  auto run = [&](auto t, auto& be, ex::options& o) -> bool {
    using T = decltype(t);
    cli.resolve(o, "convnd_bwd_data", sizeof(T), ops::conv_bwd_data_tensors);
    const auto& p = cli.p;
    auto rng = ex::make_rng(o);
    fmt::print("convnd_bwd_data {} {} on {} (seed {})\n", cli.describe(), o.dtype, be.name, o.seed);
    const auto xl = cli.x_len(), wl = cli.w_len(), yl = cli.y_len();
    ex::memory_plan("convnd_bwd_data", o).add("dy", ex::volume(yl), sizeof(T)).add("w", ex::volume(wl), sizeof(T)).add("dx", ex::volume(xl), sizeof(T)).check(be);
    const auto dyin = ex::make_input<T>(o, "dy", yl, cli.y_order(), rng), win = ex::make_input<T>(o, "w", wl, cli.w_order(), rng);
    const auto &dy = dyin.canonical, &w = win.canonical;
    std::vector<T> dx(static_cast<std::size_t>(ex::volume(xl)));
    ex::poison(dx);
    auto d_dy = be.upload(dyin.physical), d_w = be.upload(win.physical);
    auto d_dx = be.upload(dx);
    auto op = [&] { ops::convnd_bwd_data(be, p, d_dy.data(), d_w.data(), d_dx.data()); };
    op();
    be.synchronize();
    ex::save_output(o, be, "dx", d_dx, dx);
    bool ok = true;
    std::string check = "skipped";
    if (o.verify) {
      const auto ref_dx = ref::conv_bwd_data(cli.reference(), ex::to_double(dy), ex::to_double(w));
      double taps = double(p.K / p.G);
      for (int d = 0; d < p.ndim; ++d) taps *= p.filter[d];
      ok = ex::check_tensor("dx", be, d_dx, dx, xl, cli.x_order(), ref_dx, std::sqrt(taps) * (o.init == 1 ? 25.0 : 1.0), true);
      check = ok ? "pass" : "FAIL";
    }
    double ms = -1;
    if (o.time) {
      ms = ex::median_ms(be, op, o.repeat);
      ex::print_perf(ms, cli.flops(), double(sizeof(T)) * (dx.size() + dy.size() + w.size()));
    }
    ex::print_summary("convnd_bwd_data", cli.describe(), be.name, o, check, ms);
    return ok;
  };
  return ex::main_of("convnd_bwd_data", "gnhwc, nhwgc, nchw", argc, argv, setup, run);
}
