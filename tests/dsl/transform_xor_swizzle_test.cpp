// xor_swizzle: (row, col) -> (row, col ^ (row % cols)), cols a power of two: the whole domain, a
// bijection on each row, and distinct lower columns for a column read over cols consecutive rows.
#include "dsl/transform/xor_swizzle.hpp"

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

static_assert(tg::xor_swizzle{tg::n_<8>, tg::n_<4>}.lower({{5, 2}})[1] == 3);  // 2 xor (5 mod 4)

namespace {
// Brute force: col XOR (row mod cols), with the modulo taken by %, not by the mask. Also checks that
// each row is a permutation of [0, cols) and that a column of any `cols` consecutive rows lands on
// distinct lower columns (the bank-conflict property the swizzle exists for).
template <class X>
void check_xor(const X& x, index_t rows, index_t cols, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "xor_swizzle rows " << rows << " cols " << cols);
  check_transform(x, {rows, cols}, [&](const multi_index<2>& u) { return multi_index<2>{{u[0], u[1] ^ (u[0] % cols)}}; }, always, rng);
  for (index_t r = 0; r < rows; ++r) {
    std::vector<index_t> seen;
    for (index_t c = 0; c < cols; ++c) {
      const auto l = x.lower({{r, c}});
      ASSERT_EQ(l[0], r);
      seen.push_back(l[1]);
    }
    std::sort(seen.begin(), seen.end());
    for (index_t c = 0; c < cols; ++c) ASSERT_EQ(seen[c], c) << "row " << r << " is not a permutation";
  }
  for (index_t c = 0; c < cols; ++c)
    for (index_t r0 = 0; r0 + cols <= rows; ++r0) {
      std::set<index_t> lanes;
      for (index_t r = r0; r < r0 + cols; ++r) lanes.insert(x.lower({{r, c}})[1]);
      ASSERT_EQ(index_t(lanes.size()), cols) << "column " << c << " from row " << r0;
    }
}
}  // namespace

TEST(TransformXorSwizzle, PowerOfTwoWidthsWholeDomain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (index_t cols : {1, 2, 4, 8, 16, 32}) {
      const index_t rows = uniform(rng, 1, 40);
      check_xor(tg::xor_swizzle{rows, cols}, rows, cols, rng);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(TransformXorSwizzle, StaticAndMixedParameters) {
  std::mt19937 rng(11);
  check_xor(tg::xor_swizzle{tg::n_<8>, tg::n_<8>}, 8, 8, rng);
  check_xor(tg::xor_swizzle{index_t{20}, tg::n_<4>}, 20, 4, rng);
  check_xor(tg::xor_swizzle{tg::n_<3>, index_t{16}}, 3, 16, rng);
  check_xor(tg::xor_swizzle{tg::n_<64>, tg::n_<32>}, 64, 32, rng);
}

// The worked example of docs/transforms.md: cols 4, row 5 (5 mod 4 = 1) maps columns 0 1 2 3 to 1 0 3 2.
TEST(TransformXorSwizzle, WorkedExample) {
  const tg::xor_swizzle x{index_t{8}, tg::n_<4>};
  std::vector<index_t> got;
  for (index_t c = 0; c < 4; ++c) got.push_back(x.lower({{5, c}})[1]);
  EXPECT_EQ(got, (std::vector<index_t>{1, 0, 3, 2}));
  // Moving from (5, 3) to (6, 3): lower column 2 -> 3 ^ 2 = 1, so the column step is -1.
  EXPECT_EQ(vec(x.lower_step({{1, 0}}, x.lower({{5, 3}}), {{6, 3}})), (std::vector<index_t>{1, -1}));
}
