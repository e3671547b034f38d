// Test support shared by the random-problem tests of the ops on the host backend (tests/ops/*_bwd_test.cpp):
// the seed and case count read from the environment, random picks, the dtype dispatch and the comparison
// of an op's output against the naive reference.
//
// Seeds: TG_SEED=<n> sets the base seed (default 0x5eed0000); TG_OPS_CASES=<n> the number of random cases.
// Everything here is a template or inline, so that every test file of tg_ops_tests can include it.
#pragma once

#include "../../examples/common/harness.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

namespace tg::test {
using i64 = std::int64_t;
using vec = std::vector<double>;

inline std::uint64_t base_seed() {
  const char* e = std::getenv("TG_SEED");
  return e && *e ? std::strtoull(e, nullptr, 0) : 0x5eed0000ull;
}
inline int num_cases(int dflt) {
  const char* e = std::getenv("TG_OPS_CASES");
  return e && *e ? std::max(1, std::atoi(e)) : dflt;
}
inline i64 pick(std::mt19937_64& rng, i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(rng); }
// Calls f with a value of the dtype numbered k: 0 fp32, 1 fp16, 2 bf16.
template <class F>
void with_dtype(int k, F&& f) {
  if (k == 0) f(float{});
  else if (k == 1) f(half_t{});
  else f(bf16_t{});
}
// got (physical layout, dtype T) against the canonical reference, NaN meeting NaN.
template <class T>
testing::AssertionResult matches(const char* what, const std::vector<T>& phys, const std::vector<i64>& len, const std::vector<int>& order,
                                 const vec& ref, double rtol, double atol, double scale = 1.0) {
  const vec got = ex::to_double(ex::permute(phys, len, order, false));
  const auto r = ex::compare(got, ref, rtol, atol, scale);
  if (r.ok) return testing::AssertionSuccess();
  return testing::AssertionFailure() << what << ": " << r.bad << " of " << ref.size() << " elements wrong, first at canonical index "
                                     << r.first_bad << ": got " << got[r.first_bad] << " expected " << ref[r.first_bad];
}
}  // namespace tg::test
