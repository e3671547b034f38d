// Views whose top stage is separable (group_dims: each transform reads one top dimension). That stage
// holds all the merge divisions of a GEMM or row view, so kernels evaluate it per top dimension (once
// per tile row, per k, per block row) and per element only combine the parts and walk the stages
// below it. Used by the GEMM tile loads and the row kernels.
#pragma once
#include <type_traits>
#include "dsl/tensor_view.hpp"

namespace tg {
template <class View>
struct split_view {
  using chain_t = typename View::desc_type::adaptor_type;
  using top_t = typename chain_t::template stage_t<0>;
  static constexpr bool on = top_t::separable && top_t::always_valid && chain_t::n_stages > 1;
  static constexpr int n1 = top_t::n_lower;  // the level below the top stage
  using parts = multi_index<n1>;
  using elem = std::remove_const_t<typename View::value_type>;
};

// The top stage at one top index: with all but one coordinate zero, the part of that dimension.
template <class View>
__device__ inline typename split_view<View>::parts top_part(const View& v, const multi_index<View::rank>& at) {
  return get<0>(v.desc.chain.stages).lower(at);
}

// The level-1 index of an element from the parts: component j comes from the top dimension it
// depends on (lower_source, compile-time); part(d, j) is component j of dimension d's part.
template <class View, class Part>
__device__ inline typename split_view<View>::parts combine_parts(const Part& part) {
  constexpr auto src = split_view<View>::top_t::lower_source();
  typename split_view<View>::parts l{};
  TG_UNROLL for (int j = 0; j < split_view<View>::n1; ++j) l[j] = part(src[j], j);
  return l;
}

template <class View, class Part>
__device__ inline typename split_view<View>::elem load_split(const View& v, const Part& part) {
  const auto l = combine_parts<View>(part);
  const auto& ch = v.desc.chain;
  return ch.template valid_from<1>(l) ? v.data[ch.template bottom_from<1>(l)[0]] : from_float<typename split_view<View>::elem>(0.0f);
}

template <class View, class Part>
__device__ inline void store_split(const View& v, const Part& part, typename split_view<View>::elem x) {
  const auto l = combine_parts<View>(part);
  const auto& ch = v.desc.chain;
  if (ch.template valid_from<1>(l)) v.data[ch.template bottom_from<1>(l)[0]] = x;
}
}  // namespace tg
