// groupnorm_bwd: dx, dgamma, dbeta of group normalization; statistics from groupnorm_fwd.
// Positional problem (after verify init time): N H W G C
#include "common/harness.hpp"
#include "lowering/host.hpp"
#include "ops/groupnorm_bwd.hpp"
#include "ops/reference/groupnorm.hpp"

using namespace tg;

int main(int argc, char** argv) {
  ops::groupnorm_problem p;
  long long N = 2, H = 32, W = 32, G = 8, C = 64;
  std::string layout = "nchw";
  auto setup = [&](CLI::App& app, ex::options&) {
    app.add_option("--N", N); app.add_option("--H", H); app.add_option("--W", W); app.add_option("--G", G); app.add_option("--C", C);
    app.add_option("--eps", p.eps);
  };
  auto run = [&](auto t, auto& be, ex::options& o) -> bool {
    using T = decltype(t);
    ex::need_problem(o, 5, "N H W G C");
    const auto& q = o.problem;
    p.N = q.empty() ? N : q[0]; p.H = q.empty() ? H : q[1]; p.W = q.empty() ? W : q[2];
    p.G = q.empty() ? G : q[3]; p.C = q.empty() ? C : q[4];
    if (!o.layout.empty()) layout = o.layout;
    ops::require(layout == "nchw" || layout == "nhwc", "groupnorm_bwd", "--layout", "must be nchw or nhwc, got " + layout);
    p.layout = layout == "nchw" ? ops::channel_order::first : ops::channel_order::last;
    p.validate("groupnorm_bwd", sizeof(T));
    const std::string desc = fmt::format("N{} C{} {}x{} G{} {}", p.N, p.C, p.H, p.W, p.G, layout);
    auto rng = ex::make_rng(o);
    fmt::print("groupnorm_bwd {} {} on {} (seed {})\n", desc, o.dtype, be.name, o.seed);

    const std::vector<std::int64_t> xl{p.N, p.C, p.hw()}, cl{p.C};
    const std::vector<int> phys = layout == "nchw" ? std::vector<int>{0, 1, 2} : std::vector<int>{0, 2, 1};
    const std::int64_t nx = ex::volume(xl), ng = p.N * p.G;
    ex::memory_plan("groupnorm_bwd", o).add("x", nx, sizeof(T)).add("dy", nx, sizeof(T)).add("dx", nx, sizeof(T)).add("y", nx, sizeof(T))
        .add("mean", ng, sizeof(float)).add("rstd", ng, sizeof(float)).check(be);
    const auto xin = ex::make_input<T>(o, "x", xl, phys, rng), dyin = ex::make_input<T>(o, "dy", xl, phys, rng);
    const auto gin = ex::make_input<T>(o, "gamma", cl, {0}, rng), bin = ex::make_input<T>(o, "beta", cl, {0}, rng);
    const auto &x = xin.canonical, &dy = dyin.canonical, &gamma = gin.canonical, &beta = bin.canonical;
    std::vector<T> dx(x.size()), dgamma(p.C), dbeta(p.C), y(x.size());
    std::vector<float> mean(p.N * p.G), rstd(p.N * p.G);
    ex::poison(dx); ex::poison(dgamma); ex::poison(dbeta);
    auto d_x = be.upload(xin.physical), d_dy = be.upload(dyin.physical);
    auto d_gamma = be.upload(gamma), d_beta = be.upload(beta), d_y = be.upload(y);
    auto d_mean = be.upload(mean), d_rstd = be.upload(rstd);
    auto d_dx = be.upload(dx), d_dgamma = be.upload(dgamma), d_dbeta = be.upload(dbeta);
    ops::groupnorm_fwd(be, p, d_x.data(), d_gamma.data(), d_beta.data(), d_y.data(), d_mean.data(), d_rstd.data());
    auto op = [&] {
      ops::groupnorm_bwd(be, p, d_x.data(), d_dy.data(), d_gamma.data(), d_mean.data(), d_rstd.data(), d_dx.data(), d_dgamma.data(), d_dbeta.data());
    };
    op();
    be.synchronize();
    ex::save_output(o, be, "dx", d_dx, dx);
    ex::save_output(o, be, "dgamma", d_dgamma, dgamma);
    ex::save_output(o, be, "dbeta", d_dbeta, dbeta);
    bool ok = true;
    std::string check = "skipped";
    if (o.verify) {
      const ref::groupnorm_params rp{p.N, p.C, p.hw(), p.G, p.eps};
      const auto fwd = ref::groupnorm_fwd(rp, ex::to_double(x), ex::to_double(gamma), ex::to_double(beta));
      be.download(d_mean, mean); be.download(d_rstd, rstd);
      std::vector<double> got_mean(mean.begin(), mean.end()), got_rstd(rstd.begin(), rstd.end());
      ok = ex::report("mean", ex::compare(got_mean, fwd.mean, 1e-4, 1e-4), got_mean, fwd.mean) && ok;
      ok = ex::report("rstd", ex::compare(got_rstd, fwd.rstd, 1e-3, 1e-4), got_rstd, fwd.rstd) && ok;
      // Backward against the reference fed the op's own statistics, so each pass is checked alone.
      const auto bwd = ref::groupnorm_bwd(rp, ex::to_double(x), ex::to_double(dy), ex::to_double(gamma), got_mean, got_rstd);
      double big = 0;
      for (double v : bwd.dx) big = std::max(big, std::fabs(v));
      const double sums = std::sqrt(double(p.N * p.hw()));
      ok = ex::check_tensor("dx", be, d_dx, dx, xl, phys, bwd.dx, std::max(1.0, big)) && ok;
      ok = ex::check_tensor("dgamma", be, d_dgamma, dgamma, cl, {0}, bwd.dgamma, sums) && ok;
      ok = ex::check_tensor("dbeta", be, d_dbeta, dbeta, cl, {0}, bwd.dbeta, sums) && ok;
      check = ok ? "pass" : "FAIL";
    }
    double ms = -1;
    if (o.time) {
      ms = ex::median_ms(be, op, o.repeat);
      ex::print_perf(ms, 8.0 * x.size(), double(sizeof(T)) * 3 * x.size());
    }
    ex::print_summary("groupnorm_bwd", desc, be.name, o, check, ms);
    return ok;
  };
  return ex::main_of("groupnorm_bwd", "nchw, nhwc", argc, argv, setup, run);
}
