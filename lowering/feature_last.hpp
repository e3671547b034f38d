// The layout arithmetic of running a GEMM on feature-last copies of its tensors (a convolution's
// channels-first tensors as channels-last ones): which tensors move, the descriptor of each copy, and
// the rank-6 views the relayout pipeline copies through (one relayout instantiation per element type,
// the one tg::relayout has, whatever the convolution's rank). Host-testable; the GPU lowering that uses it
// is lowering/gpu/feature_last.hpp.
#pragma once
#include "dsl/descriptor.hpp"
#include "lowering/gpu/order.hpp"

namespace tg {
// The step one index along dimension `dim` moves the offset (a plain descriptor's stride).
template <class Desc>
index_t stride_of(const Desc& d, int dim) {
  multi_index<Desc::rank> e{};
  e[dim] = 1;
  return d.offset(e) - d.offset(multi_index<Desc::rank>{});
}

// Whether a copy would help: the feature dimension has more than one element and is not contiguous.
template <class Desc>
bool feature_is_strided(const Desc& d, int feature_dim) { return d.length(feature_dim) > 1 && stride_of(d, feature_dim) != 1; }

// The packed tensor of d's lengths with the feature dimension innermost, the group dimension (if any,
// -1: none) next to it, and the others in d's memory order (NCHW -> NHWC, N G C HW -> N HW G C, so that
// narrow groups can be packed: lowering/group_packing.hpp; G K C YX -> G K YX C).
template <class Desc>
Desc feature_last(const Desc& d, int feature_dim, int group_dim = -1) {
  constexpr int R = Desc::rank;
  const array<int, R> was = memory_order(d);
  array<int, R> order{};
  int k = 0;
  for (int p = 0; p < R; ++p)
    if (was[p] != feature_dim && was[p] != group_dim) order[k++] = was[p];
  if (group_dim >= 0 && group_dim != feature_dim) order[k++] = group_dim;
  order[R - 1] = feature_dim;
  return make_ordered_descriptor(d.lengths(), order);
}

// Whether a GEMM batch's tensor (gemm_tensor) moves to a feature-last copy: its contiguous dimension
// (the channels, or an activation's groups where a group has one channel) is strided.
template <class Tensor>
bool moves_to_feature_last(const Tensor& t) { return feature_is_strided(t.desc, t.contiguous_dim()); }

// The copy's descriptor for a GEMM batch's tensor (gemm_tensor): its contiguous dimension innermost,
// an activation's groups next to its channels.
template <class Tensor>
auto feature_last_of(const Tensor& t) {
  const int inner = t.contiguous_dim();
  return feature_last(t.desc, inner, inner == t.feature_dim && !t.is_weight() ? t.group_dim : -1);
}

// The copy's descriptor for a weight whose rows (gemm_tensor::rows_dim: a convolution's output channels)
// are innermost, the other dimensions in d's memory order (G K YX C -> G YX C K): backward data's w
// read K-major, as the TMA pipeline's tf32 tiles must (lowering/gpu/tma_gemm/k_major_weights.hpp).
template <class Tensor>
auto rows_last_of(const Tensor& t) {
  return feature_last(t.desc, t.rows_dim);
}

// d as a rank-6 plain descriptor (length-1 dimensions appended), the relayout pipeline's form.
template <class Desc>
auto as_rank6(const Desc& d) {
  constexpr int R = Desc::rank;
  static_assert(R <= 6, "a convolution tensor has at most 6 dimensions");
  multi_index<6> len{}, str{};
  for (int i = 0; i < 6; ++i) len[i] = i < R ? d.length(i) : 1, str[i] = i < R ? stride_of(d, i) : 1;
  return make_naive_descriptor(as_tuple(len, iota<6>{}), as_tuple(str, iota<6>{}));
}
}  // namespace tg
