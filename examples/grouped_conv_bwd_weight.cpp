// grouped_conv_bwd_weight: dw of a 1D/2D/3D grouped (or depthwise) convolution.
// Positional problem (after verify init time): NDim G N K C filter... input... strides... dilations... left-pads... right-pads...
#include "common/conv_cli.hpp"
#include "lowering/host.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"

using namespace tg;

int main(int argc, char** argv) {
  ex::conv_cli cli;
  cli.G = 4; cli.K = 32; cli.C = 32; cli.stride = {1, 1};
  int k_splits = 0;
  auto setup = [&](CLI::App& app, ex::options&) {
    cli.add(app);
    app.add_option("--k-splits", k_splits, "split the N*out reduction into this many chunks (deterministic); 0: the backend chooses")->check(CLI::NonNegativeNumber);
  };
  auto run = [&](auto t, auto& be, ex::options& o) -> bool {
    using T = decltype(t);
    cli.resolve(o, "grouped_conv_bwd_weight", sizeof(T), ops::conv_bwd_weight_tensors);
    const auto& p = cli.p;
    auto rng = ex::make_rng(o);
    fmt::print("grouped_conv_bwd_weight {} k-splits {} {} on {} (seed {})\n", cli.describe(), k_splits, o.dtype, be.name, o.seed);
    const auto xl = cli.x_len(), wl = cli.w_len(), yl = cli.y_len();
    ex::memory_plan("grouped_conv_bwd_weight", o).add("x", ex::volume(xl), sizeof(T)).add("dy", ex::volume(yl), sizeof(T)).add("dw", ex::volume(wl), sizeof(T)).check(be);
    const auto xin = ex::make_input<T>(o, "x", xl, cli.x_order(), rng), dyin = ex::make_input<T>(o, "dy", yl, cli.y_order(), rng);
    const auto &x = xin.canonical, &dy = dyin.canonical;
    std::vector<T> dw(static_cast<std::size_t>(ex::volume(wl)));
    ex::poison(dw);
    auto d_x = be.upload(xin.physical), d_dy = be.upload(dyin.physical);
    auto d_dw = be.upload(dw);
    const gemm_policy policy{k_splits, split_k_mode::deterministic};
    auto op = [&] { ops::grouped_conv_bwd_weight(be, p, d_x.data(), d_dy.data(), d_dw.data(), policy); };
    op();
    be.synchronize();
    ex::save_output(o, be, "dw", d_dw, dw);
    bool ok = true;
    std::string check = "skipped";
    if (o.verify) {
      const auto ref_dw = ref::conv_bwd_weight(cli.reference(), ex::to_double(x), ex::to_double(dy));
      double sums = double(p.N);
      for (int d = 0; d < p.ndim; ++d) sums *= p.out(d);
      ok = ex::check_tensor("dw", be, d_dw, dw, wl, cli.w_order(), ref_dw, std::sqrt(sums) * (o.init == 1 ? 25.0 : 1.0), true);
      check = ok ? "pass" : "FAIL";
    }
    double ms = -1;
    if (o.time) {
      ms = ex::median_ms(be, op, o.repeat);
      ex::print_perf(ms, cli.flops(), double(sizeof(T)) * (x.size() + dy.size() + dw.size()));
    }
    ex::print_summary("grouped_conv_bwd_weight", cli.describe(), be.name, o, check, ms);
    return ok;
  };
  return ex::main_of("grouped_conv_bwd_weight", "gnhwc, nhwgc, nchw", argc, argv, setup, run);
}
