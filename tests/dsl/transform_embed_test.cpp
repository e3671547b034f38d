// embed: lower = sum(up[i] * coef[i]), ranks 1-4, coefficients of both signs, static and run-time.
#include "dsl/transform/embed.hpp"

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

static_assert(tg::embed{tg::make_tuple(tg::n_<3>, tg::n_<4>), tg::make_tuple(tg::n_<-2>, tg::n_<5>)}.lower({{2, 3}})[0] == 11);

namespace {
template <int... I>
auto tup(const std::vector<index_t>& v, std::integer_sequence<int, I...>) { return tg::make_tuple(v[I]...); }
template <int N>
auto tup(const std::vector<index_t>& v) { return tup(v, std::make_integer_sequence<int, N>{}); }

// Brute force: the lower index as repeated addition (up[i] copies of coef[i]), no multiplication.
template <int N>
multi_index<1> ref_embed(const multi_index<N>& up, const std::vector<index_t>& coefs) {
  index_t l = 0;
  for (int i = 0; i < N; ++i)
    for (index_t k = 0; k < up[i]; ++k) l += coefs[i];
  return {{l}};
}

template <int N>
void random_embeds(std::mt19937& rng) {
  for (int rep = 0; rep < 15; ++rep) {
    std::vector<index_t> len(N), coef(N);
    for (int i = 0; i < N; ++i) len[i] = uniform(rng, 1, 5), coef[i] = uniform(rng, -7, 7);
    SCOPED_TRACE(::testing::Message() << "embed rank " << N << " lengths " << ::testing::PrintToString(len) << " coefs "
                                      << ::testing::PrintToString(coef));
    const tg::embed e{tup<N>(len), tup<N>(coef)};
    check_transform(e, len, [&](const multi_index<N>& u) { return ref_embed<N>(u, coef); }, always, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}
}  // namespace

TEST(TransformEmbed, RandomRanks1To4WithNegativeCoefficients) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_embeds<1>(rng);
    if (HasFatalFailure()) return;
    random_embeds<2>(rng);
    if (HasFatalFailure()) return;
    random_embeds<3>(rng);
    if (HasFatalFailure()) return;
    random_embeds<4>(rng);
    if (HasFatalFailure()) return;
  }
}

TEST(TransformEmbed, StaticAndMixedParameters) {
  std::mt19937 rng(8);
  {
    const tg::embed e{tg::make_tuple(tg::n_<3>, index_t{4}), tg::make_tuple(index_t{-2}, tg::n_<5>)};
    check_transform(e, {3, 4}, [](const multi_index<2>& u) { return ref_embed<2>(u, {-2, 5}); }, always, rng);
  }
  {
    // A sliding window: (ho, k) -> ho * stride + k * dilation, stride 2, dilation 3.
    const tg::embed e{tg::make_tuple(tg::n_<5>, tg::n_<3>), tg::make_tuple(tg::n_<2>, tg::n_<3>)};
    check_transform(e, {5, 3}, [](const multi_index<2>& u) { return ref_embed<2>(u, {2, 3}); }, always, rng);
  }
  {
    // Strides of a reversed NHWC tensor: negative everywhere.
    const tg::embed e{tg::make_tuple(index_t{2}, tg::n_<3>, index_t{2}, tg::n_<4>),
                      tg::make_tuple(tg::n_<-24>, index_t{-8}, tg::n_<-4>, index_t{-1})};
    check_transform(e, {2, 3, 2, 4}, [](const multi_index<4>& u) { return ref_embed<4>(u, {-24, -8, -4, -1}); }, always, rng);
  }
  {
    // A zero coefficient broadcasts its dimension.
    const tg::embed e{tg::make_tuple(tg::n_<4>, index_t{3}), tg::make_tuple(tg::n_<0>, index_t{1})};
    check_transform(e, {4, 3}, [](const multi_index<2>& u) { return ref_embed<2>(u, {0, 1}); }, always, rng);
  }
}
