// unmerge: N upper dimensions to their row-major linear index, ranks 1-4.
#include "dsl/transform/unmerge.hpp"

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

static_assert(tg::unmerge{tg::make_tuple(tg::n_<2>, tg::n_<3>, tg::n_<4>)}.lower({{1, 2, 3}})[0] == 23);

namespace {
template <int... I>
auto tup(const std::vector<index_t>& v, std::integer_sequence<int, I...>) { return tg::make_tuple(v[I]...); }
template <int N>
auto tup(const std::vector<index_t>& v) { return tup(v, std::make_integer_sequence<int, N>{}); }

// Brute force: the position of each upper index in the row-major enumeration of the domain.
template <class U, int N = U::n_upper>
void check_unmerge(const U& u, const std::vector<index_t>& len, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "unmerge lengths " << ::testing::PrintToString(len));
  std::map<std::vector<index_t>, index_t> position;
  index_t counter = 0;
  for_each_index(mi<N>(len), [&](const multi_index<N>& i) { position[vec(i)] = counter++; });
  check_transform(u, len, [&](const multi_index<N>& i) { return multi_index<1>{{position.at(vec(i))}}; }, always, rng);
}

template <int N>
void random_unmerges(std::mt19937& rng) {
  for (int rep = 0; rep < 10; ++rep) {
    std::vector<index_t> len(N);
    for (auto& l : len) l = uniform(rng, 1, 5);
    check_unmerge(tg::unmerge{tup<N>(len)}, len, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}
}  // namespace

TEST(TransformUnmerge, RandomRanks1To4WholeDomain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_unmerges<1>(rng);
    if (HasFatalFailure()) return;
    random_unmerges<2>(rng);
    if (HasFatalFailure()) return;
    random_unmerges<3>(rng);
    if (HasFatalFailure()) return;
    random_unmerges<4>(rng);
    if (HasFatalFailure()) return;
  }
}

TEST(TransformUnmerge, StaticAndMixedLengths) {
  std::mt19937 rng(9);
  check_unmerge(tg::unmerge{tg::make_tuple(tg::n_<3>, index_t{4})}, {3, 4}, rng);
  check_unmerge(tg::unmerge{tg::make_tuple(index_t{2}, tg::n_<1>, tg::n_<5>)}, {2, 1, 5}, rng);
  check_unmerge(tg::unmerge{tg::make_tuple(tg::n_<2>, tg::n_<3>, tg::n_<2>, tg::n_<3>)}, {2, 3, 2, 3}, rng);
  check_unmerge(tg::unmerge{tg::make_tuple(tg::n_<7>)}, {7}, rng);
}
