// slice: the sub-range [begin, end) of a lower dimension, over the whole upper domain.
#include "dsl/transform/slice.hpp"

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

static_assert(tg::slice{tg::n_<2>, tg::n_<6>}.upper_lengths()[0] == 4);
static_assert(tg::slice{tg::n_<2>, tg::n_<6>}.lower({{3}})[0] == 5);

namespace {
// Brute force: walk a lower dimension of length `total` and keep the positions in [begin, end).
template <class S>
void check_slice(const S& s, index_t total, index_t begin, index_t end, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "slice [" << begin << ", " << end << ") of " << total);
  std::vector<index_t> kept;
  for (index_t x = 0; x < total; ++x)
    if (x >= begin && x < end) kept.push_back(x);
  check_transform(s, {index_t(kept.size())}, [&](const multi_index<1>& u) { return multi_index<1>{{kept[u[0]]}}; }, always, rng);
}
}  // namespace

TEST(TransformSlice, RunTimeParametersWholeDomain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 30; ++rep) {
      const index_t total = uniform(rng, 1, 15);
      const index_t begin = uniform(rng, 0, total - 1), end = uniform(rng, begin + 1, total);
      check_slice(tg::slice{begin, end}, total, begin, end, rng);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(TransformSlice, StaticAndMixedParameters) {
  std::mt19937 rng(5);
  check_slice(tg::slice{tg::n_<0>, tg::n_<4>}, 4, 0, 4, rng);
  check_slice(tg::slice{index_t{3}, tg::n_<7>}, 9, 3, 7, rng);
  check_slice(tg::slice{tg::n_<5>, index_t{6}}, 6, 5, 6, rng);
}
