// The problem of a (grouped) N-d convolution, shared by backward data and backward weight.
// Canonical dimension orders the op programs use, whatever the layout in memory:
//   x [G, N, C/G, in...], w [G, K/G, C/G, filter...], y [G, N, K/G, out...].
#pragma once
#include <string>
#include "dsl/compose/window.hpp"
#include "dsl/descriptor.hpp"
#include "ops/check.hpp"

namespace tg::ops {
enum class conv_layout {
  gnhwc,  // CK's: x GNHWC, w GKYXC, y GNHWK
  nhwgc,  // x NHWGC, w GKYXC, y NHWGK
  nchw,   // PyTorch's: x NCHW, w KCYX (K = G * K/G), y NKHW
};

// What an op calls its x-, w- and y-shaped tensors, so that a size error names the op's own tensor.
struct conv_tensor_names {
  const char *x, *w, *y;
};
inline constexpr conv_tensor_names conv_fwd_tensors{"x", "w", "y"}, conv_bwd_data_tensors{"dx", "w", "dy"},
    conv_bwd_weight_tensors{"x", "dw", "dy"};

struct conv_problem {
  int ndim = 2;
  index_t G = 1, N = 1, K = 1, C = 1;  // K and C count all groups' channels
  index_t filter[3] = {1, 1, 1}, in[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  index_t pad_l[3] = {0, 0, 0}, pad_r[3] = {0, 0, 0};
  conv_layout layout = conv_layout::nhwgc;

  template <int ND>
  window_geometry<ND> geometry() const {
    window_geometry<ND> g{};
    for (int d = 0; d < ND; ++d) g[d] = {in[d], filter[d], stride[d], dilation[d], pad_l[d], pad_r[d]};
    return g;
  }
  index_t out(int d) const { return floor_div(in[d] + pad_l[d] + pad_r[d] - dilation[d] * (filter[d] - 1) - 1, stride[d]) + 1; }

  // elem_bytes: the size of the tensors' elements (the default, fp32's, is the widest any op takes).
  void validate(const char* op, std::size_t elem_bytes = sizeof(float), conv_tensor_names names = conv_fwd_tensors) const {
    // Messages are callables (ops/check.hpp): built only for a failing check.
    auto pos = [&](index_t v, const auto& n) { require(v > 0, op, n, [&] { return "must be positive, got " + std::to_string(v); }); };
    require(ndim >= 1 && ndim <= 3, op, "ndim", [&] { return "must be 1, 2 or 3, got " + std::to_string(ndim); });
    pos(G, "G"); pos(N, "N"); pos(K, "K"); pos(C, "C");
    require(C % G == 0, op, "C", [&] { return "C = " + std::to_string(C) + " is not divisible by G = " + std::to_string(G); });
    require(K % G == 0, op, "K", [&] { return "K = " + std::to_string(K) + " is not divisible by G = " + std::to_string(G); });
    for (int d = 0; d < ndim; ++d) {
      auto at = [d](const char* n) { return [n, d] { return std::string(n) + "[" + std::to_string(d) + "]"; }; };
      pos(filter[d], at("filter")); pos(in[d], at("in")); pos(stride[d], at("stride")); pos(dilation[d], at("dilation"));
      require(pad_l[d] >= 0, op, at("pad_l"), [&] { return "must not be negative, got " + std::to_string(pad_l[d]); });
      require(pad_r[d] >= 0, op, at("pad_r"), [&] { return "must not be negative, got " + std::to_string(pad_r[d]); });
      const index_t span = checked_add(checked_mul(dilation[d], filter[d] - 1), 1), padded = checked_add(checked_add(in[d], pad_l[d]), pad_r[d]);
      require(span >= 0, op, at("filter"), "the dilated filter, dilation x (filter - 1) + 1, does not fit in 64 bits");
      require(padded >= 0, op, at("in"), "the padded input, in + pad_l + pad_r, does not fit in 64 bits");
      require(span <= padded, op, at("filter"),
              [&] { return "dilated filter " + std::to_string(span) + " is larger than the padded input " + std::to_string(padded); });
    }
    // Every tensor's element count and bytes fit in 64 bits (the element-space arithmetic relies on it).
    index_t x[6] = {G, N, C / G}, w[6] = {G, K / G, C / G}, y[6] = {G, N, K / G};
    for (int d = 0; d < ndim; ++d) x[3 + d] = in[d], w[3 + d] = filter[d], y[3 + d] = out(d);
    const std::size_t rank = static_cast<std::size_t>(3 + ndim);
    require_size(op, names.x, std::span<const index_t>(x, rank), elem_bytes);
    require_size(op, names.w, std::span<const index_t>(w, rank), elem_bytes);
    require_size(op, names.y, std::span<const index_t>(y, rank), elem_bytes);
  }

  template <int ND> auto x_desc() const { return desc<ND>(C / G, [&](int d) { return in[d]; }); }
  template <int ND> auto y_desc() const { return desc<ND>(K / G, [&](int d) { return out(d); }); }
  template <int ND> auto w_desc() const {
    multi_index<3 + ND> len{};
    array<int, 3 + ND> order{};
    len[0] = G; len[1] = K / G; len[2] = C / G;
    for (int d = 0; d < ND; ++d) len[3 + d] = filter[d];
    // GKYXC for CK's layouts, G K C YX for PyTorch's.
    order[0] = 0; order[1] = 1;
    for (int d = 0; d < ND; ++d) order[layout == conv_layout::nchw ? 3 + d : 2 + d] = 3 + d;
    order[layout == conv_layout::nchw ? 2 : 2 + ND] = 2;
    return make_ordered_descriptor(len, order);
  }

 private:
  // Activations [G, N, channels, spatial...] in the layout's memory order.
  template <int ND, class Spatial>
  auto desc(index_t channels, Spatial sp) const {
    multi_index<3 + ND> len{};
    len[0] = G; len[1] = N; len[2] = channels;
    for (int d = 0; d < ND; ++d) len[3 + d] = sp(d);
    array<int, 3 + ND> order{};
    int k = 0;
    auto put = [&](int dim) { order[k++] = dim; };
    switch (layout) {
      case conv_layout::gnhwc: put(0); put(1); for (int d = 0; d < ND; ++d) put(3 + d); put(2); break;
      case conv_layout::nhwgc: put(1); for (int d = 0; d < ND; ++d) put(3 + d); put(0); put(2); break;
      case conv_layout::nchw: put(1); put(0); put(2); for (int d = 0; d < ND; ++d) put(3 + d); break;
    }
    return make_ordered_descriptor(len, order);
  }
};
}  // namespace tg::ops
