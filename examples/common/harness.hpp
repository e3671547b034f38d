// What every example (and the ops tests) shares: CK's command line, inputs, poisoned outputs, the
// check against the naive reference, timing and the Perf line. Layout permutations here are written
// independently of ops/ and dsl/, so a wrong layout descriptor cannot hide behind a matching one.
#pragma once
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include "arch/runtime.hpp"
#include "dsl/numeric.hpp"
#include "ops/check.hpp"
#include "ops/memory.hpp"

namespace tg { struct gpu_backend; }  // lowering/gpu/backend.hpp (GPU builds only)

namespace tg::ex {
struct options {
  int verify = 1, init = 2, time = 0;
  std::vector<long long> problem;  // CK's positional problem arguments
  std::string dtype = "fp32", layout, backend = "auto";
  int repeat = 20;
  std::uint64_t seed = 0;
  std::string load, save;  // folders of raw tensors in memory order (<name>.bin), for the benchmark
  bool explain = false;    // print which GEMM pipeline each GPU call took, and why
};

// CK's positional `verify init time [problem...]`, plus the named options every example has.
inline void add_common(CLI::App& app, options& o, const std::string& layouts) {
  app.add_option("verify", o.verify, "0: no check, 1: check against the naive reference")->check(CLI::Range(0, 1));
  app.add_option("init", o.init, "0: constant, 1: random integers, 2: random decimals")->check(CLI::Range(0, 2));
  app.add_option("time", o.time, "1: time the op and print the Perf line")->check(CLI::Range(0, 1));
  app.add_option("problem", o.problem, "the problem, in CK's order (see --help of each example)");
  app.add_option("--dtype", o.dtype, "fp32, fp16 or bf16")->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  app.add_option("--layout", o.layout, "memory layout: " + layouts);
  app.add_option("--backend", o.backend, "host, gpu or auto (the GPU when there is one)")->check(CLI::IsMember({"auto", "host", "gpu"}));
  app.add_option("--repeat", o.repeat, "timed repetitions (median reported)")->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "random seed (0: a fresh one, printed)");
  app.add_option("--load", o.load, "read the inputs from DIR/<name>.bin (raw, memory order) instead of drawing them");
  app.add_option("--save", o.save, "write the outputs to DIR/<name>.bin (raw, memory order)");
  app.add_flag("--explain", o.explain, "print which GEMM pipeline (and plan) each GPU call took, and why");
}

inline std::mt19937_64 make_rng(options& o) {
  if (o.seed == 0) o.seed = std::random_device{}() | 1ull;
  return std::mt19937_64(o.seed);
}

// Inputs in double, then rounded to the op's dtype so that the reference sees exactly what the op reads.
inline std::vector<double> random_tensor(std::int64_t n, int init, std::mt19937_64& rng) {
  std::vector<double> v(static_cast<std::size_t>(n));
  std::uniform_int_distribution<int> ints(-5, 5);
  std::uniform_real_distribution<double> reals(-1.0, 1.0);
  for (auto& e : v) e = init == 0 ? 1.0 : init == 1 ? ints(rng) : reals(rng);
  return v;
}
template <class T>
std::vector<T> to_dtype(const std::vector<double>& v) {
  std::vector<T> r(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) r[i] = from_float<T>(static_cast<float>(v[i]));
  return r;
}
template <class T>
std::vector<double> to_double(const std::vector<T>& v) {
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) r[i] = to_float(v[i]);
  return r;
}
// All-ones bytes are a NaN in fp32, fp16 and bf16: an element the op fails to write fails the check.
template <class T>
void poison(std::vector<T>& v) { std::memset(static_cast<void*>(v.data()), 0xff, v.size() * sizeof(T)); }

// Reorders a packed tensor: `lengths` are in canonical order, physical[p] is the canonical dimension
// stored at position p (slowest first). to_physical scatters canonical -> physical, from_physical back.
inline std::vector<std::int64_t> physical_strides(const std::vector<std::int64_t>& lengths, const std::vector<int>& physical) {
  std::vector<std::int64_t> stride(lengths.size());
  std::int64_t s = 1;
  for (int p = static_cast<int>(physical.size()) - 1; p >= 0; --p) { stride[physical[p]] = s; s *= lengths[physical[p]]; }
  return stride;
}
template <class V>
V permute(const V& src, const std::vector<std::int64_t>& lengths, const std::vector<int>& physical, bool to_physical) {
  const auto stride = physical_strides(lengths, physical);
  V dst(src.size());
  std::vector<std::int64_t> idx(lengths.size(), 0);
  for (std::size_t lin = 0; lin < src.size(); ++lin) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < lengths.size(); ++d) off += idx[d] * stride[d];
    if (to_physical) dst[off] = src[lin]; else dst[lin] = src[off];
    for (int d = static_cast<int>(lengths.size()) - 1; d >= 0; --d) { if (++idx[d] < lengths[d]) break; idx[d] = 0; }
  }
  return dst;
}

// An input tensor: drawn at random in canonical order (or read from --load in memory order), in
// both orders: canonical for the reference, physical for the op.
template <class T>
struct input_tensor {
  std::vector<T> canonical, physical;
};
template <class T>
input_tensor<T> make_input(const options& o, const char* name, const std::vector<std::int64_t>& lengths, const std::vector<int>& physical,
                           std::mt19937_64& rng) {
  std::int64_t n = 1;
  for (auto l : lengths) n *= l;
  input_tensor<T> t;
  if (!o.load.empty()) {
    t.physical.resize(static_cast<std::size_t>(n));
    const std::string path = o.load + "/" + name + ".bin";
    std::FILE* f = std::fopen(path.c_str(), "rb");
    const bool ok = f && std::fread(t.physical.data(), sizeof(T), t.physical.size(), f) == t.physical.size();
    if (f) std::fclose(f);
    if (!ok) throw ops::invalid_problem("example", "--load", "cannot read " + std::to_string(n) + " elements from " + path);
    t.canonical = permute(t.physical, lengths, physical, false);
  } else {
    t.canonical = to_dtype<T>(random_tensor(n, o.init, rng));
    t.physical = permute(t.canonical, lengths, physical, true);
  }
  return t;
}
template <class Backend, class Buf, class T>
void save_output(const options& o, Backend& be, const char* name, const Buf& buf, std::vector<T>& host) {
  if (o.save.empty()) return;
  be.download(buf, host);
  const std::string path = o.save + "/" + name + ".bin";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  const bool ok = f && std::fwrite(host.data(), sizeof(T), host.size(), f) == host.size();
  if (f) std::fclose(f);
  if (!ok) throw ops::invalid_problem("example", "--save", "cannot write " + path);
}

struct check_result {
  bool ok = true;
  double max_abs_err = 0.0;
  std::int64_t bad = 0, first_bad = -1;
};
// |got - ref| <= atol * scale + rtol * |ref| elementwise; NaN must meet NaN. scale is the typical
// magnitude of the summands (long fp32 sums of rounded values err in proportion to it).
inline check_result compare(const std::vector<double>& got, const std::vector<double>& ref, double rtol, double atol, double scale = 1.0) {
  check_result r;
  if (got.size() != ref.size()) { r.ok = false; r.bad = static_cast<std::int64_t>(ref.size()); r.first_bad = 0; return r; }
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const bool nan_ok = std::isnan(ref[i]) && std::isnan(got[i]);
    const double err = std::fabs(got[i] - ref[i]);
    const bool good = nan_ok || (!std::isnan(got[i]) && err <= atol * scale + rtol * std::fabs(ref[i]));
    if (!nan_ok && !std::isnan(err)) r.max_abs_err = std::max(r.max_abs_err, err);
    if (!good) { if (r.bad++ == 0) r.first_bad = static_cast<std::int64_t>(i); r.ok = false; }
  }
  return r;
}
inline bool report(const char* what, const check_result& r, const std::vector<double>& got, const std::vector<double>& ref) {
  if (r.ok) { fmt::print("check {}: pass (max abs err {:.3g})\n", what, r.max_abs_err); return true; }
  if (got.size() != ref.size()) {
    fmt::print("check {}: FAIL, {} elements, the reference has {}\n", what, got.size(), ref.size());
    return false;
  }
  fmt::print("check {}: FAIL, {} of {} elements wrong, first at {}: got {} expected {}\n", what, r.bad, ref.size(), r.first_bad,
             got[r.first_bad], ref[r.first_bad]);
  return false;
}

// One timed call of f (which only enqueues work on a device backend). The host backend: wall time.
template <class Backend, class F>
double time_once_ms(Backend& be, F& f) {
  const auto a = std::chrono::steady_clock::now();
  f();
  be.synchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
}
// The GPU backend's timer is defined with the GPU backend, below; declared here so median_ms sees it.
// It also records the host time of the call's enqueueing (host_us: the part of the call's time when
// the GPU waits for the host).
template <class F>
double time_once_ms(gpu_backend& be, F& f);
inline std::vector<double>& host_us() {
  static std::vector<double> v;
  return v;
}
// Median over `repeat` timed calls of f, after one warm-up call. TG_HOST_TIME=1: also prints the
// median host time of a call (the GPU backend's enqueueing; the host backend's whole call).
template <class Backend, class F>
double median_ms(Backend& be, F&& f, int repeat) {
  f();  // warm-up
  be.synchronize();
  std::vector<double> t;
  host_us().clear();
  for (int i = 0; i < repeat; ++i) t.push_back(time_once_ms(be, f));
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  if (std::getenv("TG_HOST_TIME") && !host_us().empty()) {
    auto& h = host_us();
    std::nth_element(h.begin(), h.begin() + h.size() / 2, h.end());
    fmt::print("Host: {:.4g} us per call (median of {})\n", h[h.size() / 2], h.size());
  }
  return t[t.size() / 2];
}
inline void print_perf(double ms, double flops, double bytes) {
  fmt::print("Perf: {:.5g} ms, {:.5g} TFlops, {:.5g} GB/s\n", ms, flops / ms / 1e9, bytes / ms / 1e6);
}
// One line the main job collects into its summary table.
inline void print_summary(const std::string& op, const std::string& problem, const std::string& backend, const options& o,
                          const std::string& check, double ms) {
  fmt::print("SUMMARY|{}|{}|{}|{}|{}|{}\n", op, problem, backend, o.dtype, check, ms >= 0 ? fmt::format("{:.4f}", ms) : "-");
}

// The memory an example will take, counted before it allocates anything: a problem too large for
// the machine gets ops::insufficient_memory (exit 2) naming the tensor, instead of the OS killing the
// process once the memory runs out (issue 21). Per element of each tensor the host holds about two
// copies in the dtype (canonical order for the reference, memory order for the op), one more on the
// host backend (the buffer the op works on), 8 bytes of double (the inputs drawn, the reference's
// output) and 8 more when verifying (the reference's inputs); a GPU backend holds one copy in the
// dtype on the device. Op scratch is the op's to check (ops/memory.hpp).
class memory_plan {
 public:
  memory_plan(const char* op, const options& o) : op_(op), verify_(o.verify != 0) {}
  // A tensor of `elements` elements of elem_bytes bytes (the problem is validated: both fit in 64 bits).
  memory_plan& add(std::string name, std::int64_t elements, std::size_t elem_bytes) {
    tensors_.push_back({std::move(name), elements, static_cast<std::int64_t>(elem_bytes)});
    return *this;
  }
  // Checks the plan against what the host, and the device for a GPU backend, can give now.
  template <class Backend>
  void check(const Backend&) const {
    if constexpr (std::is_same_v<Backend, host_backend>) check(false, ops::host_available_bytes(), 0);
    else check(true, ops::host_available_bytes(), arch::device_memory().free);
  }
  // The same against given amounts (gpu: whether the tensors also live on a device).
  void check(bool gpu, std::uint64_t host_available, std::uint64_t device_available) const {
    std::int64_t host = 0, device = 0;
    for (const auto& t : tensors_) {
      const std::int64_t per_element = (gpu ? 2 : 3) * t.elem_bytes + (verify_ ? 16 : 8);
      const std::string size = std::to_string(t.elements) + " elements of " + std::to_string(t.elem_bytes) + " bytes";
      need(t.name, "host", host, ops::checked_mul(t.elements, per_element), host_available, " (" + size + ", with the copies this example keeps)");
      if (gpu) need(t.name, "device", device, ops::checked_mul(t.elements, t.elem_bytes), device_available, " (" + size + ")");
    }
  }

 private:
  // Adds `bytes` (-1: more than 64 bits hold) to `total`, or throws when the sum passes `available`.
  void need(const std::string& name, const char* where, std::int64_t& total, std::int64_t bytes, std::uint64_t available,
            const std::string& what) const {
    const std::int64_t sum = ops::checked_add(total, bytes);
    if (sum < 0 || static_cast<std::uint64_t>(sum) > available) {
      std::string detail = what;
      if (total > 0) detail += " on top of " + ops::describe_bytes(static_cast<std::uint64_t>(total)) + " for the tensors before it";
      throw ops::insufficient_memory(op_, name, where, bytes < 0 ? UINT64_MAX : static_cast<std::uint64_t>(bytes), available, detail);
    }
    total = sum;
  }
  struct tensor {
    std::string name;
    std::int64_t elements, elem_bytes;
  };
  const char* op_;
  bool verify_;
  std::vector<tensor> tensors_;
};

inline std::string resolve_backend(const options& o, bool gpu_built, bool gpu_present) {
  if (o.backend == "host") return "host";
  if (o.backend == "gpu") {
    if (!gpu_built) throw ops::invalid_problem("example", "--backend", "gpu: this build has no GPU backend (configure with nvcc or HIP found)");
    if (!gpu_present) throw ops::invalid_problem("example", "--backend", "gpu: no GPU found on this machine");
    return "gpu";
  }
  return gpu_built && gpu_present ? "gpu" : "host";
}
}  // namespace tg::ex

#include "lowering/backend.hpp"
#if defined(TG_WITH_GPU)
#include "lowering/gpu/path_report.hpp"
#include "instances/gpu_ops.hpp"
namespace tg::ex {
// A GPU call is timed by events on its stream, as PyTorch's benchmark times its ops: the time the
// device spends from the first kernel's start to the last one's end, launch gaps included.
template <class F>
double time_once_ms(gpu_backend& be, F& f) {
  arch::event start, stop;
  start.record(be.stream);
  const auto a = std::chrono::steady_clock::now();
  f();
  host_us().push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
  stop.record(be.stream);
  return arch::elapsed_ms(start, stop);
}
}  // namespace tg::ex
#endif

namespace tg::ex {
// Calls f(T{}, backend) for the chosen dtype and backend; handles bad arguments (exit 2) and failed
// checks (exit 1) the same way in every example.
template <class Setup, class Run>
int main_of(const char* op, const std::string& layouts, int argc, char** argv, Setup&& setup, Run&& run) {
  CLI::App app{std::string("tilegrad ") + op + ": verify init time [problem...]"};
  options o;
  add_common(app, o, layouts);
  setup(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
#if defined(TG_WITH_GPU)
    const std::string backend = resolve_backend(o, true, gpu_backend::available());
#else
    const std::string backend = resolve_backend(o, false, false);
#endif
    auto with_backend = [&](auto t) -> bool {
#if defined(TG_WITH_GPU)
      if (backend == "gpu") {
        gpu_backend be;
        const bool ok = run(t, be, o);
        if (o.explain) {  // the path report (lowering/gpu/path_report.hpp), each distinct line once
          std::vector<std::string> seen;
          bool gemm = false;
          for (const auto& l : pipeline_paths()) {
            const std::string text = l.pipeline + " path: " + l.line;
            gemm = gemm || l.pipeline == "gemm";
            if (std::find(seen.begin(), seen.end(), text) == seen.end()) seen.push_back(text), fmt::print("{}\n", text);
          }
          if (!gemm) fmt::print("gemm path: no GEMM on the GPU\n");
        }
        return ok;
      }
#endif
      host_backend be;
      if (o.time && o.repeat > 3 && o.backend != "host") o.repeat = 3;  // the host backend is a reference loop nest
      return run(t, be, o);
    };
    bool ok = o.dtype == "fp16" ? with_backend(half_t{}) : o.dtype == "bf16" ? with_backend(bf16_t{}) : with_backend(float{});
    return ok ? 0 : 1;
  } catch (const ops::invalid_problem& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  } catch (const scratch_shortfall& e) {
    fmt::print(stderr, "error: {}: {}\n", op, e.what());
    return 2;
  }
}

// A positional problem list must have exactly n values.
inline void need_problem(const options& o, std::size_t n, const char* order) {
  if (!o.problem.empty() && o.problem.size() != n)
    throw ops::invalid_problem("example", "problem", fmt::format("expected {} values ({}), got {}", n, order, o.problem.size()));
}
}  // namespace tg::ex

namespace tg::ex {
// Downloads a device (or host) buffer in physical layout, brings it to canonical order and checks it.
// matrix_cores: the op ran on tensor cores, which take fp32 operands as TF32 (10-bit mantissa, as
// PyTorch's default for cuDNN convolutions), so fp32 is checked at TF32 precision there.
template <class Backend, class Buf, class T>
bool check_tensor(const char* what, Backend& be, const Buf& buf, std::vector<T>& host, const std::vector<std::int64_t>& lengths,
                  const std::vector<int>& physical, const std::vector<double>& ref, double scale = 1.0, bool matrix_cores = false) {
  be.download(buf, host);
  const auto got = to_double(permute(host, lengths, physical, false));
  const bool tf32 = matrix_cores && std::is_same_v<T, float> && std::string(be.name) != "host";
  const double rtol = tf32 ? 2e-3 : dtype_traits<T>::rtol, atol = tf32 ? 2e-3 : dtype_traits<T>::atol;
  return report(what, compare(got, ref, rtol, atol, scale), got, ref);
}
inline std::int64_t volume(const std::vector<std::int64_t>& l) { std::int64_t v = 1; for (auto e : l) v *= e; return v; }
}  // namespace tg::ex
