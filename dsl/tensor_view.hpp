// tensor_view: a pointer and a descriptor. Loads of invalid (padding) coordinates read zero and
// stores to them are skipped, so pipelines never special-case borders.
#pragma once
#include "dsl/descriptor.hpp"
#include "dsl/numeric.hpp"

namespace tg {
template <class T, class Desc>
struct tensor_view {
  using value_type = T;
  using desc_type = Desc;
  static constexpr int rank = Desc::rank;
  T* data;
  Desc desc;

  TG_FN float load(const multi_index<rank>& i) const { return desc.is_valid(i) ? to_float(data[desc.offset(i)]) : 0.0f; }
  TG_FN void store(const multi_index<rank>& i, float v) const {
    if (desc.is_valid(i)) data[desc.offset(i)] = from_float<std::remove_const_t<T>>(v);
  }
};
template <class T, class Desc>
TG_FN tensor_view<T, Desc> make_view(T* data, const Desc& desc) { return {data, desc}; }
}  // namespace tg

#include "dsl/coordinate.hpp"
namespace tg {
// Load through a coordinate that is moved incrementally (no recomputation of the chain).
template <class T, class Desc>
TG_FN float load(const tensor_view<T, Desc>& v, const coordinate<typename Desc::adaptor_type>& c) {
  return is_valid(v.desc, c) ? to_float(v.data[c.offset()]) : 0.0f;
}
}  // namespace tg
