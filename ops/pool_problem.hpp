// The problem of an N-d pooling op: [N, C, spatial...] tensors, one window per spatial dimension.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include "dsl/compose/window.hpp"
#include "dsl/descriptor.hpp"
#include "ops/check.hpp"

namespace tg::ops {
enum class channel_order { first, last };  // NC(D)HW or N(D)HWC

// What an op calls its input- and output-shaped tensors, so that a size error names the op's own
// tensor; idx, when set, is the op's int32 tensor of flat input positions (output-shaped).
struct pool_tensor_names {
  const char *in, *out, *idx = nullptr;
};

template <int ND>
struct pool_problem {
  index_t N = 1, C = 1;
  index_t in[ND] = {}, window[ND] = {}, stride[ND] = {}, dilation[ND] = {}, pad_l[ND] = {}, pad_r[ND] = {};
  channel_order layout = channel_order::first;

  window_geometry<ND> geometry() const {
    window_geometry<ND> g{};
    for (int d = 0; d < ND; ++d) g[d] = {in[d], window[d], stride[d], dilation[d], pad_l[d], pad_r[d]};
    return g;
  }
  index_t out(int d) const { return geometry()[d].out(); }

  // elem_bytes: the size of the tensors' elements (the default, fp32's, is the widest any op takes).
  void validate(const char* op, std::size_t elem_bytes = sizeof(float), pool_tensor_names names = {"x", "y"}) const {
    static const char* axis = ND == 2 ? "hw" : "dhw";
    // Messages are callables (ops/check.hpp): built only for a failing check.
    auto name = [](const char* p, int d) { return [p, d] { return std::string(p) + "_" + axis[d]; }; };
    require(N > 0, op, "N", [&] { return "must be positive, got " + std::to_string(N); });
    require(C > 0, op, "C", [&] { return "must be positive, got " + std::to_string(C); });
    for (int d = 0; d < ND; ++d) {
      require(in[d] > 0, op, name("in", d), [&] { return "must be positive, got " + std::to_string(in[d]); });
      require(window[d] > 0, op, name("window", d), [&] { return "must be positive, got " + std::to_string(window[d]); });
      require(stride[d] > 0, op, name("stride", d), [&] { return "must be positive, got " + std::to_string(stride[d]); });
      require(dilation[d] > 0, op, name("dilation", d), [&] { return "must be positive, got " + std::to_string(dilation[d]); });
      require(pad_l[d] >= 0, op, name("pad_l", d), [&] { return "must not be negative, got " + std::to_string(pad_l[d]); });
      require(pad_r[d] >= 0, op, name("pad_r", d), [&] { return "must not be negative, got " + std::to_string(pad_r[d]); });
      const index_t span = checked_add(checked_mul(dilation[d], window[d] - 1), 1), padded = checked_add(checked_add(in[d], pad_l[d]), pad_r[d]);
      require(span >= 0, op, name("window", d), "the dilated window, dilation x (window - 1) + 1, does not fit in 64 bits");
      require(padded >= 0, op, name("in", d), "the padded input, in + pad_l + pad_r, does not fit in 64 bits");
      require(span <= padded, op, name("window", d),
              [&] { return "dilated window " + std::to_string(span) + " is larger than the padded input " + std::to_string(padded); });
      // As PyTorch: a window must never lie entirely in padding (pad <= span / 2, without forming 2 * pad).
      require(pad_l[d] <= span / 2 && pad_r[d] <= span / 2, op, name("pad", d), "must be at most half the dilated window");
    }
    // Every tensor's element count and bytes fit in 64 bits (the element-space arithmetic relies on it).
    index_t x[2 + ND] = {N, C}, y[2 + ND] = {N, C};
    for (int d = 0; d < ND; ++d) x[2 + d] = in[d], y[2 + d] = out(d);
    require_size(op, names.in, std::span<const index_t>(x, 2 + ND), elem_bytes);
    require_size(op, names.out, std::span<const index_t>(y, 2 + ND), elem_bytes);
    if (names.idx) {
      require_size(op, names.idx, std::span<const index_t>(y, 2 + ND), sizeof(std::int32_t));
      // An index is a flat position in one plane of the input (h * W + w), held in an int32.
      index_t plane = 1;
      for (int d = 0; d < ND; ++d) plane = checked_mul(plane, in[d]);
      require(plane >= 0 && plane - 1 <= std::numeric_limits<std::int32_t>::max(), op, names.idx,
              "its int32 elements cannot hold the " + (plane < 0 ? std::string("more than 2^63") : std::to_string(plane)) +
                  " flat positions of an input plane (at most 2^31)");
    }
  }

  // Canonical [N, C, spatial...] descriptors in the problem's layout.
  auto in_desc() const { return desc_of(in); }
  auto out_desc() const { index_t o[ND]; for (int d = 0; d < ND; ++d) o[d] = out(d); return desc_of(o); }

 private:
  auto desc_of(const index_t* sp) const {
    multi_index<2 + ND> len{};
    array<int, 2 + ND> order{};
    len[0] = N; len[1] = C;
    for (int d = 0; d < ND; ++d) len[2 + d] = sp[d];
    order[0] = 0;
    for (int d = 0; d < ND; ++d) order[layout == channel_order::first ? 2 + d : 1 + d] = 2 + d;
    order[layout == channel_order::first ? 1 : 1 + ND] = 1;
    return make_ordered_descriptor(len, order);
  }
};
}  // namespace tg::ops
