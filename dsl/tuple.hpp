// Heterogeneous tuples (Hana's) with small device-safe helpers: Hana's function objects
// (make_tuple, transform, fold) are host-only under nvcc, so device code uses these instead.
#pragma once
#include <boost/hana/at.hpp>
#include <boost/hana/tuple.hpp>
#include "dsl/number.hpp"

namespace tg {
template <class... T>
using tuple = hana::tuple<T...>;

template <class... T>
TG_FN tuple<T...> make_tuple(T... t) { return tuple<T...>(t...); }

template <index_t I, class Tuple>
TG_FN decltype(auto) get(Tuple&& t) { return hana::at_c<I>(static_cast<Tuple&&>(t)); }

template <class Tuple>
struct tuple_size;
template <class... T>
struct tuple_size<hana::tuple<T...>> { static constexpr int value = sizeof...(T); };
template <class Tuple>
inline constexpr int tuple_size_v = tuple_size<std::remove_cv_t<std::remove_reference_t<Tuple>>>::value;

// Product of the entries of a tuple of numbers (static when all are static).
template <class Tuple>
TG_FN auto product(const Tuple& t) {
  constexpr int n = tuple_size_v<Tuple>;
  if constexpr (n == 0) {
    return n_<1>;
  } else {
    index_t p = 1;
    static_for<n>([&](auto i) { p *= as_index(get<i>(t)); });
    return p;
  }
}
}  // namespace tg
