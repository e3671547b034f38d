// relayout: a tensor copied from one memory layout to another, optionally converting its elements.
// Positional problem (after verify init time): the tensor's lengths in logical order (1-6 of them;
// N C H W for images). --from and --to name the layouts: nchw, nhwc, chwn, ncdhw, ndhwc, ncw, nwc,
// or a memory order as a list of logical dimensions, slowest first ("0,2,3,1" is nhwc).
#include <map>
#include "common/harness.hpp"
#include "lowering/host.hpp"
#include "ops/relayout.hpp"

using namespace tg;

// A layout's memory order for a tensor of `rank` dimensions (ops::relayout validates it).
std::vector<int> order_of(const std::string& name, int rank, const char* option) {
  static const std::map<std::string, std::vector<int>> named{
      {"ncw", {0, 1, 2}},       {"nwc", {0, 2, 1}},          {"nchw", {0, 1, 2, 3}}, {"nhwc", {0, 2, 3, 1}},
      {"chwn", {1, 2, 3, 0}},   {"ncdhw", {0, 1, 2, 3, 4}}, {"ndhwc", {0, 2, 3, 4, 1}}};
  if (const auto it = named.find(name); it != named.end()) {
    if (static_cast<int>(it->second.size()) != rank)
      throw ops::invalid_problem("relayout", option, name + " is a layout of " + std::to_string(it->second.size()) + " dimensions, the tensor has " +
                                                         std::to_string(rank));
    return it->second;
  }
  std::vector<int> order;
  std::size_t at = 0;
  while (at < name.size()) {
    const std::size_t comma = std::min(name.find(',', at), name.size());
    try {
      order.push_back(std::stoi(name.substr(at, comma - at)));
    } catch (const std::exception&) {
      throw ops::invalid_problem("relayout", option, "not a layout name nor a list of dimensions: " + name);
    }
    at = comma + 1;
  }
  return order;
}

int main(int argc, char** argv) {
  std::string from = "nchw", to = "nhwc", to_dtype;
  auto setup = [&](CLI::App& app, ex::options&) {
    app.add_option("--from", from, "the source's layout (a name or a memory order such as 0,2,3,1)");
    app.add_option("--to", to, "the destination's layout");
    app.add_option("--to-dtype", to_dtype, "the destination's element type (default: --dtype)")->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  };
  auto run = [&](auto s, auto& be, ex::options& o) -> bool {
    auto with_dst = [&](auto d) -> bool {
      using TS = decltype(s);
      using TD = decltype(d);
      const std::vector<long long> lengths = o.problem.empty() ? std::vector<long long>{8, 64, 56, 56} : o.problem;
      ops::relayout_problem p;
      for (long long l : lengths) p.lengths.push_back(l);
      const int rank = static_cast<int>(lengths.size());
      p.src_order = order_of(from, rank, "--from");
      p.dst_order = order_of(to, rank, "--to");
      p.validate("relayout", sizeof(TS), sizeof(TD));
      std::string shape;
      for (long long l : lengths) shape += (shape.empty() ? "" : "x") + std::to_string(l);
      const std::string dt = to_dtype.empty() ? o.dtype : to_dtype;
      const std::string desc = fmt::format("{} {} -> {}", shape, from, to);
      auto rng = ex::make_rng(o);
      fmt::print("relayout {} {} -> {} on {} (seed {})\n", desc, o.dtype, dt, be.name, o.seed);
      const std::vector<std::int64_t> len(lengths.begin(), lengths.end());
      const std::int64_t n = ex::volume(len);
      ex::memory_plan("relayout", o).add("src", n, sizeof(TS)).add("dst", n, sizeof(TD)).check(be);
      const auto in = ex::make_input<TS>(o, "src", len, p.src_order, rng);
      std::vector<TD> out(static_cast<std::size_t>(n));
      ex::poison(out);
      auto d_src = be.upload(in.physical);
      auto d_dst = be.upload(out);
      auto op = [&] { ops::relayout(be, p, d_src.data(), d_dst.data()); };
      op();
      be.synchronize();
      ex::save_output(o, be, "dst", d_dst, out);
      bool ok = true;
      std::string check = "skipped";
      if (o.verify) {  // the harness's own permutation (not the DSL's descriptors), exact equality
        be.download(d_dst, out);
        const auto got = ex::to_double(ex::permute(out, len, p.dst_order, false));
        std::vector<double> want(in.canonical.size());
        for (std::size_t i = 0; i < want.size(); ++i) want[i] = to_float(from_float<TD>(to_float(in.canonical[i])));
        ok = ex::report("dst", ex::compare(got, want, 0.0, 0.0), got, want);
        check = ok ? "pass" : "FAIL";
      }
      double ms = -1;
      if (o.time) {
        ms = ex::median_ms(be, op, o.repeat);
        ex::print_perf(ms, 0.0, double(n) * double(sizeof(TS) + sizeof(TD)));
      }
      ex::print_summary("relayout", desc + (dt != o.dtype ? " to " + dt : ""), be.name, o, check, ms);
      return ok;
    };
    const std::string dt = to_dtype.empty() ? o.dtype : to_dtype;
    return dt == "fp16" ? with_dst(half_t{}) : dt == "bf16" ? with_dst(bf16_t{}) : with_dst(float{});
  };
  return ex::main_of("relayout", "see --from and --to", argc, argv, setup, run);
}
