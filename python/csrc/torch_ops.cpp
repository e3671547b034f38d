// tilegrad's five backward ops as PyTorch custom operators (namespace `tilegrad`): the schemas, the
// checks of every tensor and parameter (each failure a Python exception naming the parameter, raised
// before anything is allocated or launched), outputs allocated in the inputs' memory format, and the
// call of the op program on the tensors' device (bridge.hpp): CPU tensors on the host backend, CUDA
// tensors on the GPU backend on PyTorch's current stream (builds with TG_TORCH_CUDA).
//
// Memory formats: activations [N, C, spatial...] either contiguous (tilegrad's NCHW-class layouts) or
// packed channels-last (N, spatial..., C: PyTorch's channels_last / channels_last_3d, and for 3-d tensors
// the transpose of a contiguous [N, L, C]); convolution weights [K, C/G, taps...] likewise. All tensors of
// one call share one format; outputs are allocated in it.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
#include <optional>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#if defined(TG_TORCH_CUDA)
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "bridge.hpp"

namespace tg::torch_ext {
namespace {
using at::IntArrayRef;
using at::Tensor;

// No iostreams in the extension: where a toolchain links parts of its own C++ runtime into the library
// (seen on the GPU machine: a stream insertion crashed in the library's copy of the locale code), they
// would run beside the interpreter's.
std::string str(IntArrayRef v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Every error names the op and the parameter first: "tilegrad.<op>: <parameter>: <why>".
[[noreturn]] void value_error(const char* op, const std::string& param, const std::string& why) {
  C10_THROW_ERROR(ValueError, std::string("tilegrad.") + op + ": " + param + ": " + why);
}
[[noreturn]] void type_error(const char* op, const std::string& param, const std::string& why) {
  C10_THROW_ERROR(TypeError, std::string("tilegrad.") + op + ": " + param + ": " + why);
}
[[noreturn]] void not_implemented(const char* op, const std::string& param, const std::string& why) {
  C10_THROW_ERROR(NotImplementedError, std::string("tilegrad.") + op + ": " + param + ": " + why);
}

// ------------------------------------------------------------------------------------------ tensors
enum class format { first, last };  // contiguous [N, C, spatial...] or channels-last [N, spatial..., C]
using formats = unsigned;              // a set: bit 0 first, bit 1 last
constexpr formats bit(format f) { return f == format::first ? 1u : 2u; }

// Whether t is packed with its dimensions in `order` (slowest first); size-1 dimensions may have any
// stride, as in PyTorch's is_contiguous.
bool packed(const Tensor& t, const std::vector<int>& order) {
  std::int64_t expect = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const std::int64_t size = t.size(*it);
    if (size == 0) return true;
    if (size != 1 && t.stride(*it) != expect) return false;
    expect *= size;
  }
  return true;
}
// Dimension orders, slowest first: [0, 1, 2, ...] and [0, 2, ..., 1].
std::vector<int> order_of(int dims, format f) {
  std::vector<int> o{0};
  if (f == format::first) {
    for (int d = 1; d < dims; ++d) o.push_back(d);
  } else {
    for (int d = 2; d < dims; ++d) o.push_back(d);
    o.push_back(1);
  }
  return o;
}
formats formats_of(const Tensor& t) {
  formats f = 0;
  if (packed(t, order_of(static_cast<int>(t.dim()), format::first))) f |= bit(format::first);
  if (t.dim() >= 3 && packed(t, order_of(static_cast<int>(t.dim()), format::last))) f |= bit(format::last);
  return f;
}
std::vector<std::int64_t> strides_for(IntArrayRef sizes, format f) {
  std::vector<std::int64_t> st(sizes.size());
  std::int64_t s = 1;
  const auto o = order_of(static_cast<int>(sizes.size()), f);
  for (auto it = o.rbegin(); it != o.rend(); ++it) {
    st[*it] = s;
    s *= std::max<std::int64_t>(sizes[*it], 1);
  }
  return st;
}
Tensor empty_in(IntArrayRef sizes, format f, const at::TensorOptions& opts) { return at::empty_strided(sizes, strides_for(sizes, f), opts); }

// The checks of one op call; the first tensor checked fixes the dtype and device the others must have.
struct checks {
  const char* op;
  const Tensor* first = nullptr;
  const char* first_name = nullptr;
  formats common = bit(format::first) | bit(format::last);
  std::string format_names;

  void tensor(const Tensor& t, const char* name, std::int64_t dims) {
    if (!t.defined()) value_error(op, name, "is undefined (None)");
    if (t.layout() != at::kStrided) value_error(op, name, "must be a dense (strided) tensor");
    if (!first) {
      const auto st = t.scalar_type();
      if (st != at::kFloat && st != at::kHalf && st != at::kBFloat16)
        type_error(op, name, std::string("must be float32, float16 or bfloat16, got ") + c10::toString(st));
      if (!t.is_cpu() && !t.is_cuda()) value_error(op, name, "must be on the CPU or a CUDA device, got " + t.device().str());
      first = &t;
      first_name = name;
    } else {
      same_dtype(t, name, first->scalar_type());
      same_device(t, name);
    }
    if (t.dim() != dims) value_error(op, name, "must have " + std::to_string(dims) + " dimensions, got shape " + str(t.sizes()));
  }
  void same_dtype(const Tensor& t, const char* name, at::ScalarType st) const {
    if (t.scalar_type() != st)
      type_error(op, name, std::string("must be ") + c10::toString(st) + " (as " + first_name + "), got " + c10::toString(t.scalar_type()));
  }
  void same_device(const Tensor& t, const char* name) const {
    if (t.device() != first->device())
      value_error(op, name, "must be on " + first->device().str() + " (as " + first_name + "), got " + t.device().str());
  }
  void shape(const Tensor& t, const char* name, IntArrayRef want) const {
    if (t.sizes() != want) value_error(op, name, "expected shape " + str(want) + ", got " + str(t.sizes()));
  }
  // t must be packed contiguous or channels-last, in a format every tensor of the call shares.
  void format_of(const Tensor& t, const char* name) {
    const formats f = formats_of(t);
    if (!f) value_error(op, name, "must be contiguous or channels-last (packed), got strides " + str(t.strides()) + " for shape " + str(t.sizes()));
    if (!(f & common))
      value_error(op, name, std::string("must be in the same memory format as ") + format_names + " (all contiguous or all channels-last), got strides " +
                                str(t.strides()) + " for shape " + str(t.sizes()));
    common &= f;
    format_names += format_names.empty() ? name : std::string(", ") + name;
  }
  // Any contiguous tensor (statistics, gamma, indices of a contiguous call...).
  void contiguous(const Tensor& t, const char* name) const {
    if (!t.is_contiguous()) value_error(op, name, "must be contiguous, got strides " + str(t.strides()) + " for shape " + str(t.sizes()));
  }
  format chosen() const { return (common & bit(format::first)) ? format::first : format::last; }
};

dtype dtype_of(const Tensor& t) {
  switch (t.scalar_type()) {
    case at::kHalf: return dtype::f16;
    case at::kBFloat16: return dtype::bf16;
    default: return dtype::f32;
  }
}

#if defined(TG_TORCH_CUDA)
// The GPU backend's scratch comes from PyTorch's caching allocator (counted in torch.cuda.memory_stats,
// reused by later work on the stream): a loan per request, taken back when the op call ends.
void* lend_scratch(std::size_t bytes, void* stream) {
  return c10::cuda::CUDACachingAllocator::raw_alloc_with_stream(bytes, static_cast<cudaStream_t>(stream));
}
void take_back_scratch(void* p) { c10::cuda::CUDACachingAllocator::raw_delete(p); }
#endif

// Where the tensors live, and (for CUDA) a guard that makes their device current.
struct where {
  place at;
#if defined(TG_TORCH_CUDA)
  std::optional<c10::cuda::CUDAGuard> guard;
#endif
  where(const char* op, const char* name, const Tensor& t) {
    if (!t.is_cuda()) return;
#if defined(TG_TORCH_CUDA)
    at.cuda = true;
    at.device = t.get_device();
    guard.emplace(t.device());
    at.stream = c10::cuda::getCurrentCUDAStream(t.get_device()).stream();
    at.lend = lend_scratch;
    at.take_back = take_back_scratch;
#else
    not_implemented(op, name, "is a CUDA tensor, but this tilegrad was built without GPU support (it needs the NVIDIA targets and a CUDA-enabled PyTorch)");
#endif
  }
};

// Runs an op program on the host or GPU backend (gpu:: exists only in builds with TG_TORCH_CUDA).
#if defined(TG_TORCH_CUDA)
#define TG_RUN(W, FN, ...) ((W).at.cuda ? gpu::FN((W).at, __VA_ARGS__) : host::FN((W).at, __VA_ARGS__))
#else
#define TG_RUN(W, FN, ...) host::FN((W).at, __VA_ARGS__)
#endif

// ------------------------------------------------------------------------------------- parameters
// A list parameter of `n` values: n given, or one value for all (PyTorch's int-or-tuple), or none for `dflt`.
std::vector<std::int64_t> expand(const char* op, const char* name, IntArrayRef v, std::size_t n, IntArrayRef dflt = {}) {
  if (v.empty() && !dflt.empty()) return dflt.vec();
  if (v.size() == 1) return std::vector<std::int64_t>(n, v[0]);
  if (v.size() != n) value_error(op, name, "expected " + std::to_string(n) + " values (or one for all), got " + str(v));
  return v.vec();
}

// tilegrad's own validation, with its message, under the schema's parameter name.
template <class Problem, class Map>
void validate(const char* op, const char* tg_op, const Problem& p, Map&& param_of) {
  try {
    p.validate(tg_op);
  } catch (const ops::invalid_problem& e) {
    // Channels not divisible by the groups: the groups are what the caller chose.
    const bool groups = std::string(e.what()).find("divisible by G") != std::string::npos;
    value_error(op, groups ? std::string("groups") : param_of(e.parameter), e.what());
  }
}
bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
std::string pool_param(const std::string& tg) {
  if (starts(tg, "window")) return "kernel_size";
  if (starts(tg, "stride")) return "stride";
  if (starts(tg, "dilation")) return "dilation";
  if (starts(tg, "pad")) return "padding";
  return "self";  // N, C, in_*: the input's shape
}

// Pooling output size, PyTorch's rule (ceil_mode: the last window must start inside the input or its left padding).
std::int64_t pool_out(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p, std::int64_t d, bool ceil_mode) {
  const std::int64_t span = d * (k - 1) + 1, num = in + 2 * p - span;
  if (num < 0 || s <= 0) return 0;  // rejected by validation
  std::int64_t out = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

template <int ND>
void fill_pool(ops::pool_problem<ND>& p, const char* op, IntArrayRef self, IntArrayRef kernel_size, IntArrayRef stride,
               IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const auto k = expand(op, "kernel_size", kernel_size, ND);
  const auto s = expand(op, "stride", stride, ND, k);
  const auto pad = expand(op, "padding", padding, ND);
  const auto dil = expand(op, "dilation", dilation, ND);
  p.N = std::max<std::int64_t>(self[0], 1);  // an empty batch is valid: checked as one image
  p.C = self[1];
  for (int d = 0; d < ND; ++d) {
    p.in[d] = self[2 + d];
    p.window[d] = k[d]; p.stride[d] = s[d]; p.dilation[d] = dil[d];
    p.pad_l[d] = p.pad_r[d] = pad[d];
  }
  validate(op, op, p, pool_param);
  if (ceil_mode) {
    // ceil_mode as more right padding (padding never wins a max), within the rule that a window never lies in padding only.
    for (int d = 0; d < ND; ++d) {
      const std::int64_t out = pool_out(p.in[d], k[d], s[d], pad[d], dil[d], true), span = dil[d] * (k[d] - 1) + 1;
      p.pad_r[d] = std::max(pad[d], (out - 1) * s[d] + span - p.in[d] - pad[d]);
    }
    try {
      p.validate(op);
    } catch (const ops::invalid_problem& e) {
      not_implemented(op, "ceil_mode", std::string("this geometry's ceil_mode windows need more right padding than tilegrad allows: ") + e.what());
    }
  }
}

// ------------------------------------------------------------------------------------------- maxpool2d
Tensor maxpool2d_bwd(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                     IntArrayRef dilation, bool ceil_mode, const c10::optional<Tensor>& indices) {
  const char* op = "maxpool2d_bwd";
  checks c{op};
  c.tensor(self, "self", 4);
  c.tensor(grad_output, "grad_output", 4);
  ops::maxpool2d_problem p;
  fill_pool(p, op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode);
  p.N = self.size(0);
  const bool empty = p.N == 0;
  c.shape(grad_output, "grad_output", {p.N, p.C, p.out(0), p.out(1)});
  c.format_of(self, "self");
  c.format_of(grad_output, "grad_output");
  Tensor idx;
  if (indices && indices->defined()) {
    if (indices->layout() != at::kStrided) value_error(op, "indices", "must be a dense (strided) tensor");
    if (indices->scalar_type() != at::kInt && indices->scalar_type() != at::kLong)
      type_error(op, "indices", std::string("must be int32 or int64, got ") + c10::toString(indices->scalar_type()));
    c.same_device(*indices, "indices");
    c.shape(*indices, "indices", grad_output.sizes());
    c.format_of(*indices, "indices");
    if (p.in[0] * p.in[1] > INT32_MAX) value_error(op, "self", "a plane of more than 2^31 elements does not fit int32 indices");
  }
  const format f = c.chosen();
  p.layout = f == format::first ? ops::channel_order::first : ops::channel_order::last;
  Tensor dx = empty_in(self.sizes(), f, self.options());
  if (empty) return dx;
  where w(op, "self", self);
  if (indices && indices->defined()) {
    idx = indices->scalar_type() == at::kInt ? *indices : indices->to(at::kInt);  // to() keeps the strides (dense tensors)
    TG_RUN(w, maxpool2d_bwd_indices, dtype_of(self), p, idx.data_ptr<std::int32_t>(), grad_output.data_ptr(), dx.data_ptr());
  } else {
    TG_RUN(w, maxpool2d_bwd, dtype_of(self), p, self.data_ptr(), grad_output.data_ptr(), dx.data_ptr());
  }
  return dx;
}

// ------------------------------------------------------------------------------------------- avgpool3d
Tensor avgpool3d_bwd(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                     bool ceil_mode, bool count_include_pad, IntArrayRef dilation) {
  const char* op = "avgpool3d_bwd";
  checks c{op};
  c.tensor(self, "self", 5);
  c.tensor(grad_output, "grad_output", 5);
  ops::avgpool3d_problem p;
  p.count_include_pad = count_include_pad;
  fill_pool(p, op, self.sizes(), kernel_size, stride, padding, dilation, false);
  if (ceil_mode)
    for (int d = 0; d < 3; ++d)
      if (pool_out(p.in[d], p.window[d], p.stride[d], p.pad_l[d], p.dilation[d], true) != p.out(d))
        not_implemented(op, "ceil_mode", "ceil_mode windows that overhang the padding are not supported (their divisor differs)");
  p.N = self.size(0);
  const bool empty = p.N == 0;
  c.shape(grad_output, "grad_output", {p.N, p.C, p.out(0), p.out(1), p.out(2)});
  c.format_of(self, "self");
  c.format_of(grad_output, "grad_output");
  const format f = c.chosen();
  p.layout = f == format::first ? ops::channel_order::first : ops::channel_order::last;
  Tensor dx = empty_in(self.sizes(), f, self.options());
  if (empty) return dx;
  where w(op, "self", self);
  TG_RUN(w, avgpool3d_bwd, dtype_of(self), p, grad_output.data_ptr(), dx.data_ptr());
  return dx;
}

// ------------------------------------------------------------------------------------------- groupnorm
std::tuple<Tensor, Tensor, Tensor> groupnorm_bwd(const Tensor& grad_output, const Tensor& input, const Tensor& mean, const Tensor& rstd,
                                                 const Tensor& weight, std::int64_t groups) {
  const char* op = "groupnorm_bwd";
  checks c{op};
  if (!input.defined()) value_error(op, "input", "is undefined (None)");
  if (input.dim() < 2) value_error(op, "input", "must have at least 2 dimensions [N, C, ...], got shape " + str(input.sizes()));
  c.tensor(input, "input", input.dim());
  c.tensor(grad_output, "grad_output", input.dim());
  c.shape(grad_output, "grad_output", input.sizes());
  c.tensor(weight, "weight", 1);
  const std::int64_t N = input.size(0), C = input.size(1);
  c.shape(weight, "weight", {C});
  for (auto [t, name] : {std::pair{&mean, "mean"}, std::pair{&rstd, "rstd"}}) {
    if (!t->defined()) value_error(op, name, "is undefined (None)");
    if (t->layout() != at::kStrided) value_error(op, name, "must be a dense (strided) tensor");
    if (t->scalar_type() != at::kFloat) type_error(op, name, std::string("must be float32 (tilegrad keeps the statistics in fp32), got ") + c10::toString(t->scalar_type()));
    c.same_device(*t, name);
    c.shape(*t, name, {N, groups});
    c.contiguous(*t, name);
  }
  c.contiguous(weight, "weight");
  ops::groupnorm_problem p;
  p.N = std::max<std::int64_t>(N, 1);
  p.C = C;
  p.G = groups;
  p.H = 1;
  for (int d = 2; d < input.dim(); ++d) p.H *= input.size(d);
  p.W = 1;
  validate(op, op, p, [](const std::string& tg) -> std::string {
    if (tg == "G") return "groups";
    if (tg == "C") return "weight";
    return "input";
  });
  p.N = N;
  c.format_of(input, "input");
  c.format_of(grad_output, "grad_output");
  const format f = input.dim() >= 3 ? c.chosen() : format::first;
  p.layout = f == format::first ? ops::channel_order::first : ops::channel_order::last;
  Tensor dx = empty_in(input.sizes(), f, input.options());
  Tensor dgamma = at::empty({C}, input.options()), dbeta = at::empty({C}, input.options());
  if (N == 0) return {dx, dgamma.zero_(), dbeta.zero_()};
  where w(op, "input", input);
  TG_RUN(w, groupnorm_bwd, dtype_of(input), p, input.data_ptr(), grad_output.data_ptr(), weight.data_ptr(), mean.data_ptr<float>(),
         rstd.data_ptr<float>(), dx.data_ptr(), dgamma.data_ptr(), dbeta.data_ptr());
  return {dx, dgamma, dbeta};
}

// ----------------------------------------------------------------------------------------- convolution
std::string conv_param(const std::string& tg) {
  if (starts(tg, "stride")) return "stride";
  if (starts(tg, "dilation")) return "dilation";
  if (starts(tg, "pad")) return "padding";
  if (starts(tg, "filter")) return "kernel size (weight's spatial sizes)";
  if (tg == "G") return "groups";
  if (tg == "K") return "output channels (weight's dim 0)";
  if (tg == "C") return "input channels";
  return "input size";
}

// The problem from the sizes of x [N, C, in...], w [K, C/G, taps...] and the geometry lists.
ops::conv_problem conv_problem_of(const char* op, IntArrayRef x_size, IntArrayRef w_size, IntArrayRef stride, IntArrayRef padding,
                                  IntArrayRef dilation, std::int64_t groups) {
  const int nd = static_cast<int>(x_size.size()) - 2;
  ops::conv_problem p;
  p.ndim = nd;
  p.G = groups;
  p.N = std::max<std::int64_t>(x_size[0], 1);
  p.C = x_size[1];
  p.K = w_size[0];
  const auto s = expand(op, "stride", stride, nd);
  const auto dil = expand(op, "dilation", dilation, nd);
  std::vector<std::int64_t> pl, pr;
  if (padding.size() == static_cast<std::size_t>(2 * nd)) {  // left values, then right values
    pl.assign(padding.begin(), padding.begin() + nd);
    pr.assign(padding.begin() + nd, padding.end());
  } else {
    pl = pr = expand(op, "padding", padding, nd);
  }
  for (int d = 0; d < nd; ++d) {
    p.in[d] = x_size[2 + d];
    p.filter[d] = w_size[2 + d];
    p.stride[d] = s[d]; p.dilation[d] = dil[d];
    p.pad_l[d] = pl[d]; p.pad_r[d] = pr[d];
  }
  validate(op, op, p, conv_param);
  if (groups > 0 && w_size[1] * groups != p.C)
    value_error(op, "weight", "has " + std::to_string(w_size[1]) + " input channels per group, but the input has " + std::to_string(p.C) +
                                  " channels in " + std::to_string(groups) + " groups");
  return p;
}
std::vector<std::int64_t> conv_out_shape(const ops::conv_problem& p, std::int64_t N) {
  std::vector<std::int64_t> s{N, p.K};
  for (int d = 0; d < p.ndim; ++d) s.push_back(p.out(d));
  return s;
}
void conv_sizes(const char* op, const char* name, IntArrayRef v) {
  if (v.size() < 3 || v.size() > 5) value_error(op, name, "must have 3 to 5 values [N or K, C, spatial...] (1-d to 3-d), got " + str(v));
}

Tensor conv_bwd_data(const Tensor& grad_output, const Tensor& weight, IntArrayRef input_size, IntArrayRef stride, IntArrayRef padding,
                     IntArrayRef dilation, std::int64_t groups) {
  const char* op = "conv_bwd_data";
  conv_sizes(op, "input_size", input_size);
  const std::int64_t dims = static_cast<std::int64_t>(input_size.size());
  checks c{op};
  c.tensor(grad_output, "grad_output", dims);
  c.tensor(weight, "weight", dims);
  auto p = conv_problem_of(op, input_size, weight.sizes(), stride, padding, dilation, groups);
  p.N = input_size[0];
  c.shape(grad_output, "grad_output", conv_out_shape(p, p.N));
  c.format_of(grad_output, "grad_output");
  c.format_of(weight, "weight");
  const format f = c.chosen();
  p.layout = f == format::first ? ops::conv_layout::nchw : ops::conv_layout::nhwgc;
  Tensor dx = empty_in(input_size, f, grad_output.options());
  if (p.N == 0) return dx;
  where w(op, "grad_output", grad_output);
  TG_RUN(w, conv_bwd_data, dtype_of(weight), p, grad_output.data_ptr(), weight.data_ptr(), dx.data_ptr());
  return dx;
}

Tensor conv_bwd_weight(const Tensor& grad_output, const Tensor& input, IntArrayRef weight_size, IntArrayRef stride, IntArrayRef padding,
                       IntArrayRef dilation, std::int64_t groups) {
  const char* op = "conv_bwd_weight";
  conv_sizes(op, "weight_size", weight_size);
  const std::int64_t dims = static_cast<std::int64_t>(weight_size.size());
  checks c{op};
  c.tensor(grad_output, "grad_output", dims);
  c.tensor(input, "input", dims);
  auto p = conv_problem_of(op, input.sizes(), weight_size, stride, padding, dilation, groups);
  p.N = input.size(0);
  c.shape(grad_output, "grad_output", conv_out_shape(p, p.N));
  c.format_of(grad_output, "grad_output");
  c.format_of(input, "input");
  const format f = c.chosen();
  p.layout = f == format::first ? ops::conv_layout::nchw : ops::conv_layout::nhwgc;
  Tensor dw = empty_in(weight_size, f, input.options());
  if (p.N == 0) return dw.zero_();
  where w(op, "input", input);
  TG_RUN(w, conv_bwd_weight, dtype_of(input), p, input.data_ptr(), grad_output.data_ptr(), dw.data_ptr());
  return dw;
}
}  // namespace
}  // namespace tg::torch_ext

TORCH_LIBRARY(tilegrad, m) {
  m.def("maxpool2d_bwd(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation=1, "
        "bool ceil_mode=False, Tensor? indices=None) -> Tensor");
  m.def("avgpool3d_bwd(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] stride, int[3] padding, bool ceil_mode=False, "
        "bool count_include_pad=True, int[3] dilation=1) -> Tensor");
  m.def("groupnorm_bwd(Tensor grad_output, Tensor input, Tensor mean, Tensor rstd, Tensor weight, int groups) -> (Tensor, Tensor, Tensor)");
  m.def("conv_bwd_data(Tensor grad_output, Tensor weight, int[] input_size, int[] stride, int[] padding, int[] dilation, int groups) -> Tensor");
  m.def("conv_bwd_weight(Tensor grad_output, Tensor input, int[] weight_size, int[] stride, int[] padding, int[] dilation, int groups) -> Tensor");
}

// One kernel for both device types: each call checks its tensors' device and layout itself (a CUDA tensor
// in a build without GPU support, or a sparse tensor, gets an error naming it rather than the dispatcher's
// "could not run").
#define TG_REGISTER(KEY)                                               \
  TORCH_LIBRARY_IMPL(tilegrad, KEY, m) {                               \
    m.impl("maxpool2d_bwd", &tg::torch_ext::maxpool2d_bwd);            \
    m.impl("avgpool3d_bwd", &tg::torch_ext::avgpool3d_bwd);            \
    m.impl("groupnorm_bwd", &tg::torch_ext::groupnorm_bwd);            \
    m.impl("conv_bwd_data", &tg::torch_ext::conv_bwd_data);            \
    m.impl("conv_bwd_weight", &tg::torch_ext::conv_bwd_weight);        \
  }
TG_REGISTER(CPU)
TG_REGISTER(CUDA)
TG_REGISTER(SparseCPU)
TG_REGISTER(SparseCUDA)

// Meta tensors (shapes without data: python/tilegrad/_fake.py) pass the autograd layer untouched, as CPU and
// CUDA tensors do by PyTorch's own fallback (which older releases lack for Meta).
TORCH_LIBRARY_IMPL(tilegrad, AutogradMeta, m) {
  for (const char* op : {"maxpool2d_bwd", "avgpool3d_bwd", "groupnorm_bwd", "conv_bwd_data", "conv_bwd_weight"})
    m.impl(op, torch::CppFunction::makeFallthrough());
}
