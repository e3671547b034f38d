// Problem validation: every op checks its parameters before any work and names the bad one.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include "dsl/config.hpp"

namespace tg::ops {
struct invalid_problem : std::invalid_argument {
  std::string parameter;
  invalid_problem(const std::string& op, const std::string& param, const std::string& why)
      : invalid_problem(op + ": invalid " + param + ": " + why, param) {}

 protected:
  // A message of its own (ops/memory.hpp's insufficient_memory).
  invalid_problem(const std::string& message, std::string param) : std::invalid_argument(message), parameter(std::move(param)) {}
};

namespace detail {
// A message part: text, or a callable that makes it.
template <class T>
std::string text_of(const T& t) {
  if constexpr (std::is_invocable_v<const T&>) return std::string(t());
  else return std::string(t);
}
}  // namespace detail
// Throws invalid_problem naming `param` where !ok. param and why are text or callables that make it,
// called only when the check fails: ops validate inside every call, where a GPU call's host time is
// part of its time, so a passing check builds no strings.
template <class Param, class Why>
void require(bool ok, const char* op, const Param& param, const Why& why) {
  if (!ok) throw invalid_problem(op, detail::text_of(param), detail::text_of(why));
}

// Sizes. Element counts and byte sizes must fit in 64 bits: in index_t (signed, the DSL's offsets),
// so at most 2^63 - 1. The products are formed without overflowing: -1 stands for "does not fit"
// and propagates through further checked steps.
inline constexpr index_t max_size = std::numeric_limits<index_t>::max();
constexpr index_t checked_mul(index_t a, index_t b) {
  if (a < 0 || b < 0) return -1;
  return a != 0 && b > max_size / a ? -1 : a * b;
}
constexpr index_t checked_add(index_t a, index_t b) {
  if (a < 0 || b < 0) return -1;
  return b > max_size - a ? -1 : a + b;
}

// The element count of the op's tensor `tensor` of positive `lengths`, with elements of elem_bytes
// bytes; rejects it, naming the tensor, when the count or the bytes do not fit in 64 bits.
inline index_t require_size(const char* op, const std::string& tensor, std::span<const index_t> lengths, std::size_t elem_bytes) {
  index_t n = 1;
  for (index_t l : lengths) n = checked_mul(n, l);
  if (n < 0) {
    std::string shape;
    for (index_t l : lengths) shape += (shape.empty() ? "" : " x ") + std::to_string(l);
    throw invalid_problem(op, tensor, "its element count " + shape + " does not fit in 64 bits");
  }
  require(checked_mul(n, static_cast<index_t>(elem_bytes)) >= 0, op, tensor,
          [&] { return "its size, " + std::to_string(n) + " elements of " + std::to_string(elem_bytes) + " bytes, does not fit in 64 bits"; });
  return n;
}
inline index_t require_size(const char* op, const std::string& tensor, std::initializer_list<index_t> lengths, std::size_t elem_bytes) {
  return require_size(op, tensor, std::span<const index_t>(lengths.begin(), lengths.size()), elem_bytes);
}
}  // namespace tg::ops
