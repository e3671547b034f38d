// replicate / insert: upper dimensions with no lower one (a broadcast); alone and inside a descriptor.
#include "dsl/descriptor.hpp"
#include "dsl/transform/replicate.hpp"

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

static_assert(tg::replicate<tg::tuple<tg::number<3>, tg::number<2>>>::n_lower == 0);
static_assert(decltype(tg::insert(tg::n_<4>))::n_upper == 1);
static_assert(decltype(tg::insert(tg::n_<4>)){}.upper_lengths()[0] == 4);

TEST(TransformReplicate, WholeDomainMapsToTheEmptyIndex) {
  std::mt19937 rng(7);
  const auto none = [](const auto&) { return multi_index<0>{}; };
  check_transform(tg::replicate{tg::make_tuple(tg::n_<3>)}, {3}, none, always, rng);
  check_transform(tg::replicate{tg::make_tuple(tg::n_<3>, index_t{4})}, {3, 4}, none, always, rng);
  check_transform(tg::replicate{tg::make_tuple(index_t{2}, tg::n_<1>, index_t{5})}, {2, 1, 5}, none, always, rng);
  check_transform(tg::insert(index_t{6}), {6}, none, always, rng);
  check_transform(tg::insert(tg::n_<2>), {2}, none, always, rng);
}

// A broadcast: [A, C] packed viewed as [A, R, C] with insert(R) in the middle; the offset does not
// depend on r. And two broadcast dimensions from one replicate.
TEST(TransformReplicate, BroadcastInADescriptor) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 10; ++rep) {
      const index_t A = uniform(rng, 1, 5), R = uniform(rng, 1, 4), C = uniform(rng, 1, 5), S = uniform(rng, 1, 3);
      SCOPED_TRACE(::testing::Message() << "A " << A << " R " << R << " C " << C << " S " << S);
      const auto x = tg::make_packed_descriptor(tg::make_tuple(A, C));
      const auto b = tg::transform(x, tg::make_tuple(tg::pass_through{A}, tg::insert(R), tg::pass_through{C}),
                                   tg::make_tuple(tg::seq<0>{}, tg::seq<>{}, tg::seq<1>{}),
                                   tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}));
      ASSERT_EQ(vec(b.lengths()), (std::vector<index_t>{A, R, C}));
      for (index_t a = 0; a < A; ++a)
        for (index_t r = 0; r < R; ++r)
          for (index_t c = 0; c < C; ++c) ASSERT_EQ(b.offset({{a, r, c}}), a * C + c);
      // [R, S] replicated on top of x's two dimensions: [R, A, S, C].
      const auto b2 = tg::transform(x, tg::make_tuple(tg::replicate{tg::make_tuple(R, S)}, tg::pass_through{A}, tg::pass_through{C}),
                                    tg::make_tuple(tg::seq<>{}, tg::seq<0>{}, tg::seq<1>{}),
                                    tg::make_tuple(tg::seq<0, 2>{}, tg::seq<1>{}, tg::seq<3>{}));
      ASSERT_EQ(vec(b2.lengths()), (std::vector<index_t>{R, A, S, C}));
      for_each_index(b2.lengths(), [&](const multi_index<4>& i) { ASSERT_EQ(b2.offset(i), i[1] * C + i[3]) << str(i); });
    }
  }
}
