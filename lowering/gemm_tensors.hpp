// A GEMM batch held as its tensors (pointer and plain descriptor each) and a rule that builds the GEMM
// views from them. Holding the tensors, not the views, lets a lowering move them as a schedule decides
// (the GPU lowering runs channels-first convolutions on channels-last copies: lowering/gpu/feature_last.hpp)
// and rebuild the same views, of the same types, over the copies: no new kernel instantiation.
#pragma once
#include <type_traits>
#include "dsl/tensor_view.hpp"

namespace tg {
template <class T, class Desc>
struct gemm_tensor {
  T* data;          // written only where `written` is set
  Desc desc;        // a plain (strided) descriptor
  int feature_dim;  // the dimension the GEMM wants contiguous (a convolution's channels per group)
  bool written;
  int group_dim;    // the groups' dimension (-1: none): wanted contiguous where feature_dim has one element
  int rows_dim = -1;  // a grouped weight's other per-group dimension (-1: not a weight): packed groups
                      // make it block-diagonal over rows_dim x feature_dim (lowering/group_packing.hpp)
  TG_FN const T* in() const { return data; }  // a read tensor, as the views take it
  bool is_weight() const { return rows_dim >= 0; }
  // The dimension a feature-last copy puts innermost: the features, or an activation's groups where
  // each group has one feature (a depthwise convolution's channels are its groups). Weights keep
  // their features innermost.
  int contiguous_dim() const { return !is_weight() && group_dim >= 0 && desc.length(feature_dim) == 1 ? group_dim : feature_dim; }
};
// A tensor the GEMM reads (the pointer's constness is restored by the rule that views it).
template <class T, class Desc>
gemm_tensor<T, Desc> read_tensor(const T* data, const Desc& d, int feature_dim, int group_dim = -1) {
  return {const_cast<T*>(data), d, feature_dim, false, group_dim};
}
template <class T, class Desc>
gemm_tensor<T, Desc> written_tensor(T* data, const Desc& d, int feature_dim, int group_dim = -1) { return {data, d, feature_dim, true, group_dim}; }
// A grouped weight [groups, rows, features, ...] at the dimensions named, read or written.
template <class T, class Desc>
gemm_tensor<T, Desc> read_weight(const T* data, const Desc& d, int feature_dim, int group_dim, int rows_dim) {
  return {const_cast<T*>(data), d, feature_dim, false, group_dim, rows_dim};
}
template <class T, class Desc>
gemm_tensor<T, Desc> written_weight(T* data, const Desc& d, int feature_dim, int group_dim, int rows_dim) {
  return {data, d, feature_dim, true, group_dim, rows_dim};
}

// Rule: count(), views(tensors, t) and `static constexpr bool one_gemm` (a single GEMM, not a batch).
template <class Rule, class T, class Desc, int N>
struct tensor_batch {
  static constexpr bool one_gemm = Rule::one_gemm;
  static constexpr int tensor_count = N;
  using tensor = gemm_tensor<T, Desc>;
  Rule rule;
  array<tensor, N> tensors;
  TG_FN index_t count() const { return rule.count(); }
  TG_FN auto views(index_t t) const { return rule.views(tensors, t); }
  tensor_batch with_tensors(const array<tensor, N>& moved) const { return {rule, moved}; }
};
template <class Rule, class T, class Desc, class... Ts>
tensor_batch<Rule, T, Desc, 1 + sizeof...(Ts)> make_tensor_batch(const Rule& r, const gemm_tensor<T, Desc>& t0, const Ts&... ts) {
  return {r, {{t0, ts...}}};
}

template <class Batch, class = void>
struct has_gemm_tensors : std::false_type {};
template <class Batch>
struct has_gemm_tensors<Batch, std::void_t<decltype(Batch::tensor_count)>> : std::true_type {};

// A batch of gemm_tensors over fp32 elements (what the tf32 tiles' lowering steps take).
template <class Batch>
constexpr bool is_fp32_tensor_batch() {
  if constexpr (!has_gemm_tensors<Batch>::value) return false;
  else return std::is_same_v<std::remove_pointer_t<decltype(Batch::tensor::data)>, float>;
}
}  // namespace tg
