// relayout: dst[i] = src[i] for every index i of two views of one shape (equal rank and lengths), in
// any layouts (a permutation of the dimensions, or any descriptor), converting the element type
// where the two differ (through float, rounding to nearest even). Source padding reads zero;
// destination padding is not written. Backends implement it (host: a loop nest; GPU: a generic
// kernel, and fast paths for plain strided tensors: lowering/gpu/relayout.hpp).
#pragma once
#include <type_traits>
#include "dsl/tensor_view.hpp"

namespace tg {
// One element: a bit copy when the types match (NaN payloads kept), else a conversion.
template <class DstView, class SrcView>
TG_FN void copy_element(const DstView& dst, const SrcView& src, const multi_index<DstView::rank>& i) {
  using TD = std::remove_const_t<typename DstView::value_type>;
  using TS = std::remove_const_t<typename SrcView::value_type>;
  if (!dst.desc.is_valid(i)) return;
  if constexpr (std::is_same_v<TD, TS>) {
    dst.data[dst.desc.offset(i)] = src.desc.is_valid(i) ? src.data[src.desc.offset(i)] : from_float<TD>(0.0f);
  } else {
    dst.data[dst.desc.offset(i)] = from_float<TD>(src.load(i));
  }
}

// Whether two views have one shape (checked by the backends before anything is written).
template <class DstView, class SrcView>
bool same_shape(const DstView& dst, const SrcView& src) {
  if constexpr (DstView::rank != SrcView::rank) {
    return false;
  } else {
    for (int d = 0; d < DstView::rank; ++d)
      if (dst.desc.length(d) != src.desc.length(d)) return false;
    return true;
  }
}
}  // namespace tg
