// Compile-time numbers (Boost.Hana integral constants) that mix freely with run-time integers:
// a length or stride is either `index_t` or `number<N>`, and arithmetic on them yields the right kind.
#pragma once
#include <boost/hana/integral_constant.hpp>
#include <type_traits>
#include <utility>
#include "dsl/config.hpp"

namespace tg {
namespace hana = boost::hana;

template <index_t N>
using number = hana::integral_constant<index_t, N>;
template <index_t N>
inline constexpr number<N> n_{};

template <class T>
struct is_static : std::false_type {};
template <class T, T V>
struct is_static<hana::integral_constant<T, V>> : std::true_type {};
template <class T>
inline constexpr bool is_static_v = is_static<std::remove_cv_t<std::remove_reference_t<T>>>::value;

// The run-time value of a number of either kind.
template <class T>
TG_FN index_t as_index(T x) { return static_cast<index_t>(x); }

// Calls f(number<I>{}) for I in [0, N), unrolled; usable in device code (no Hana function objects).
template <class F, index_t... I>
TG_FN void static_for_impl(F&& f, std::integer_sequence<index_t, I...>) { (f(number<I>{}), ...); }
template <index_t N, class F>
TG_FN void static_for(F&& f) { static_for_impl(f, std::make_integer_sequence<index_t, N>{}); }

// Quotient of non-negative values; takes a 32-bit path when both fit, which GPUs divide far faster
// than 64-bit values (a 64-bit division is a long software routine there).
TG_FN index_t udiv(index_t a, index_t b) {
  if (((a | b) >> 31) == 0) return static_cast<index_t>(static_cast<std::uint32_t>(a) / static_cast<std::uint32_t>(b));
  return a / b;
}
// Integer helpers with the rounding the index maps need (floor, not C's truncation); b > 0.
TG_FN index_t floor_div(index_t a, index_t b) { return a >= 0 ? udiv(a, b) : -udiv(-a + b - 1, b); }
TG_FN index_t ceil_div(index_t a, index_t b) { return -floor_div(-a, b); }
TG_FN index_t umod(index_t a, index_t b) { return a - udiv(a, b) * b; }  // a >= 0, b > 0
TG_FN index_t gcd(index_t a, index_t b) { while (b != 0) { index_t t = a % b; a = b; b = t; } return a < 0 ? -a : a; }
}  // namespace tg
