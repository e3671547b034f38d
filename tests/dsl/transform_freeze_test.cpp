// freeze: no upper dimension, lower fixed at 'at'; alone and as a plane selection inside a descriptor.
#include "dsl/coordinate.hpp"
#include "dsl/descriptor.hpp"
#include "dsl/transform/freeze.hpp"

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

static_assert(tg::freeze{tg::n_<3>}.lower({})[0] == 3);
static_assert(tg::freeze<>::n_upper == 0 && tg::freeze<>::n_lower == 1 && tg::freeze<>::always_valid);

TEST(TransformFreeze, SinglePointDomain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 10; ++rep) {
      const index_t at = uniform(rng, -5, 20);
      check_transform(tg::freeze{at}, {}, [&](const multi_index<0>&) { return multi_index<1>{{at}}; }, always, rng);
      if (HasFatalFailure()) return;
    }
  }
  std::mt19937 rng(6);
  check_transform(tg::freeze{tg::n_<2>}, {}, [](const multi_index<0>&) { return multi_index<1>{{2}}; }, always, rng);
}

// In a stage, freeze selects a plane: [A, B, C] packed, B frozen at b -> [A, C] with offset
// (a * B + b) * C + c.
TEST(TransformFreeze, SelectsAPlaneOfAPackedTensor) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 10; ++rep) {
      const index_t A = uniform(rng, 1, 5), B = uniform(rng, 1, 5), C = uniform(rng, 1, 5), b = uniform(rng, 0, B - 1);
      SCOPED_TRACE(::testing::Message() << "A " << A << " B " << B << " C " << C << " b " << b);
      const auto x = tg::make_packed_descriptor(tg::make_tuple(A, B, C));
      const auto plane = tg::transform(x, tg::make_tuple(tg::pass_through{A}, tg::freeze{b}, tg::pass_through{C}),
                                       tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}),
                                       tg::make_tuple(tg::seq<0>{}, tg::seq<>{}, tg::seq<1>{}));
      static_assert(decltype(plane)::rank == 2);
      ASSERT_EQ(vec(plane.lengths()), (std::vector<index_t>{A, C}));
      for (index_t a = 0; a < A; ++a)
        for (index_t c = 0; c < C; ++c) {
          ASSERT_EQ(plane.offset({{a, c}}), (a * B + b) * C + c);
          ASSERT_TRUE(plane.is_valid({{a, c}}));
        }
    }
  }
}

// freeze under a moving coordinate contributes nothing to the step.
TEST(TransformFreeze, StaticPositionInAStageWithCoordinateMoves) {
  const auto x = tg::make_packed_descriptor(tg::make_tuple(tg::n_<3>, tg::n_<4>, tg::n_<5>));
  const auto plane = tg::transform(x, tg::make_tuple(tg::freeze{tg::n_<2>}, tg::pass_through{tg::n_<4>}, tg::pass_through{tg::n_<5>}),
                                   tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}),
                                   tg::make_tuple(tg::seq<>{}, tg::seq<0>{}, tg::seq<1>{}));
  auto c = tg::make_coordinate(plane, {{0, 0}});
  EXPECT_EQ(c.offset(), 40);
  tg::move(plane, c, {{3, 4}});
  EXPECT_EQ(c.offset(), 40 + 3 * 5 + 4);
  tg::move(plane, c, {{-2, -1}});
  EXPECT_EQ(c.offset(), 40 + 1 * 5 + 3);
}
