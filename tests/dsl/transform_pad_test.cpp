// pad: lower = upper - left over [0, len + left + right), valid inside [left, left + len).
// Checked over the whole domain against an explicitly laid-out padded row.
#include "dsl/transform/pad.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {
using tg::index_t;
using tg::multi_index;

// Seeds for the randomized sweeps: TG_SEED if set, else a fixed one plus two fresh ones. Each sweep
// runs under SCOPED_TRACE("seed ..."), so a failure names the seed to reproduce it with TG_SEED=<seed>.
std::vector<std::uint32_t> seeds() {
  if (const char* s = std::getenv("TG_SEED")) return {static_cast<std::uint32_t>(std::strtoul(s, nullptr, 0))};
  std::random_device rd;
  return {20261121u, rd(), rd()};
}
index_t uniform(std::mt19937& rng, index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); }

template <int N>
std::vector<index_t> vec(const multi_index<N>& a) { return std::vector<index_t>(a.data, a.data + N); }
template <int N>
std::string str(const multi_index<N>& a) {
  std::ostringstream o;
  o << '(';
  for (int i = 0; i < N; ++i) o << (i ? "," : "") << a[i];
  o << ')';
  return o.str();
}
template <int N>
multi_index<N> mi(const std::vector<index_t>& v) {
  multi_index<N> r{};
  for (int i = 0; i < N; ++i) r[i] = v[i];
  return r;
}

// Calls f(i) for every i in [0, len) in row-major order (last dimension fastest).
template <int N, class F>
void for_each_index(const multi_index<N>& len, F&& f) {
  for (int d = 0; d < N; ++d)
    if (len[d] <= 0) return;
  multi_index<N> i = tg::zeros<N>();
  for (;;) {
    f(i);
    int d = N - 1;
    for (; d >= 0; --d) {
      if (++i[d] < len[d]) break;
      i[d] = 0;
    }
    if (d < 0) return;
  }
}
}  // namespace

namespace {
// Checks a transform over its whole upper domain: upper_lengths, lower against the brute-force map
// ref_lower, is_valid against ref_valid, and the incremental update
//   lower(a) + lower_step(b - a, lower(a), b) == lower(b)
// for every pair (a, b) of the domain when it is small, else for `samples` random pairs.
template <class T, class RefLower, class RefValid>
void check_transform(const T& t, const std::vector<index_t>& lengths, RefLower ref_lower, RefValid ref_valid, std::mt19937& rng,
                     int samples = 20000) {
  constexpr int NU = T::n_upper;
  ASSERT_EQ(vec(t.upper_lengths()), lengths);
  std::vector<multi_index<NU>> dom;
  for_each_index(mi<NU>(lengths), [&](const multi_index<NU>& up) { dom.push_back(up); });
  for (const auto& up : dom) {
    ASSERT_EQ(vec(t.lower(up)), vec(ref_lower(up))) << "lower at " << str(up);
    ASSERT_EQ(t.is_valid(up), ref_valid(up)) << "is_valid at " << str(up);
    if constexpr (T::always_valid) {
      ASSERT_TRUE(t.is_valid(up));
    }
  }
  auto step = [&](const multi_index<NU>& a, const multi_index<NU>& b) {
    const auto la = t.lower(a);
    return vec(la + t.lower_step(b - a, la, b));
  };
  if (dom.size() <= 400) {
    for (const auto& a : dom) {
      for (const auto& b : dom) ASSERT_EQ(step(a, b), vec(t.lower(b))) << "step " << str(a) << " -> " << str(b);
    }
  } else {
    for (int s = 0; s < samples; ++s) {
      const auto& a = dom[uniform(rng, 0, index_t(dom.size()) - 1)];
      const auto& b = dom[uniform(rng, 0, index_t(dom.size()) - 1)];
      ASSERT_EQ(step(a, b), vec(t.lower(b))) << "step " << str(a) << " -> " << str(b);
    }
  }
}
[[maybe_unused]] const auto always = [](const auto&) { return true; };
}  // namespace

// Constexpr use: a pad with static parameters is usable at compile time.
static_assert(tg::pad{tg::n_<4>, tg::n_<1>, tg::n_<2>}.upper_lengths()[0] == 7);
static_assert(!tg::pad{tg::n_<4>, tg::n_<1>, tg::n_<2>}.is_valid({{0}}));
static_assert(tg::pad{tg::n_<4>, tg::n_<1>, tg::n_<2>}.is_valid({{4}}));
static_assert(!tg::pad{tg::n_<4>, tg::n_<1>, tg::n_<2>}.is_valid({{5}}));
static_assert(!tg::pad<>::always_valid);

namespace {
// Brute force: lay the padded row out explicitly ([-1]*left, 0..len-1, [-1]*right); a position is
// valid where it holds an element, and lower is that element (or, in the padding, the distance to
// the first element: negative on the left, len and beyond on the right).
template <class P>
void check_pad(const P& p, index_t len, index_t left, index_t right, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "pad len " << len << " left " << left << " right " << right);
  std::vector<index_t> row;
  for (index_t i = 0; i < left; ++i) row.push_back(-1);
  for (index_t i = 0; i < len; ++i) row.push_back(i);
  for (index_t i = 0; i < right; ++i) row.push_back(-1);
  auto ref_valid = [&](const multi_index<1>& u) { return row[u[0]] >= 0; };
  auto ref_lower = [&](const multi_index<1>& u) -> multi_index<1> {
    if (row[u[0]] >= 0) return {{row[u[0]]}};
    return {{u[0] < left ? -(left - u[0]) : len + (u[0] - left - len)}};
  };
  check_transform(p, {index_t(row.size())}, ref_lower, ref_valid, rng);
}
}  // namespace

TEST(TransformPad, RunTimeParametersWholeDomain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 40; ++rep) {
      const index_t len = uniform(rng, 1, 9), left = uniform(rng, 0, 4), right = uniform(rng, 0, 4);
      check_pad(tg::pad{len, left, right}, len, left, right, rng);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(TransformPad, StaticAndMixedParameters) {
  std::mt19937 rng(1);
  check_pad(tg::pad{tg::n_<5>, tg::n_<2>, tg::n_<0>}, 5, 2, 0, rng);
  check_pad(tg::pad{index_t{3}, tg::n_<1>, index_t{4}}, 3, 1, 4, rng);
  check_pad(tg::pad{tg::n_<1>, index_t{0}, tg::n_<3>}, 1, 0, 3, rng);
  check_pad(tg::pad{tg::n_<6>, tg::n_<0>, tg::n_<0>}, 6, 0, 0, rng);
  check_pad(tg::pad{index_t{2}, index_t{3}, tg::n_<3>}, 2, 3, 3, rng);
}

TEST(TransformPad, PaddingWiderThanTheRow) {
  std::mt19937 rng(2);
  check_pad(tg::pad{index_t{1}, index_t{5}, index_t{7}}, 1, 5, 7, rng);
  check_pad(tg::pad{index_t{2}, index_t{0}, index_t{9}}, 2, 0, 9, rng);
}
