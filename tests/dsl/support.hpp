// Test support shared by the tests in tests/dsl (not numeric_test.cpp): seeds, index-space helpers,
// the brute-force transform checker, random window geometries and the coordinate random walk.
//
// Everything here is a template or inline, so that every test file of tg_dsl_tests can include it.
// Include it after the header under test, so that each test still checks that its header compiles
// on its own.
#pragma once

#include "dsl/array.hpp"
#include "dsl/compose/window.hpp"
#include "dsl/coordinate.hpp"
#include "dsl/tuple.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tg::test {
using tg::index_t;
using tg::multi_index;

// Seeds for the randomized sweeps: TG_SEED if set, else a fixed one plus two fresh ones. Each sweep
// runs under SCOPED_TRACE("seed ..."), so a failure names the seed to reproduce it with TG_SEED=<seed>.
inline std::vector<std::uint32_t> seeds() {
  if (const char* s = std::getenv("TG_SEED")) return {static_cast<std::uint32_t>(std::strtoul(s, nullptr, 0))};
  std::random_device rd;
  return {20261121u, rd(), rd()};
}
inline index_t uniform(std::mt19937& rng, index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); }

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

// tup(m): a multi_index as a tuple of run-time lengths (or strides); tup<N>(v): the first N of a vector.
template <int N, int... I>
auto tup(const multi_index<N>& m, std::integer_sequence<int, I...>) { return tg::make_tuple(m[I]...); }
template <int N>
auto tup(const multi_index<N>& m) { return tup(m, std::make_integer_sequence<int, N>{}); }
template <int... I>
auto tup(const std::vector<index_t>& v, std::integer_sequence<int, I...>) { return tg::make_tuple(v[I]...); }
template <int N>
auto tup(const std::vector<index_t>& v) { return tup(v, std::make_integer_sequence<int, N>{}); }

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
// The ref_valid of a transform that is valid everywhere.
inline constexpr auto always = [](const auto&) { return true; };

// Strides of a tensor with logical lengths `len` stored densely in the physical order `perm`
// (perm[0] slowest): the way a layout (NCHW, NHWC, NHWGC...) becomes strides. perm must be a
// permutation of [0, N): anything else throws std::invalid_argument (in every build type), since a
// short one would read past its end and give garbage strides (issue 21).
template <int N>
multi_index<N> strides_for(const multi_index<N>& len, const std::vector<int>& perm) {
  std::vector<bool> seen(N, false);
  bool ok = perm.size() == std::size_t(N);
  for (std::size_t p = 0; ok && p < perm.size(); ++p) {
    ok = perm[p] >= 0 && perm[p] < N && !seen[perm[p]];
    if (ok) seen[perm[p]] = true;
  }
  if (!ok)
    throw std::invalid_argument("strides_for: " + ::testing::PrintToString(perm) + " is not a permutation of the " + std::to_string(N) +
                                " dimensions of the tensor");
  multi_index<N> s{};
  index_t acc = 1;
  for (int p = N - 1; p >= 0; --p) s[perm[p]] = acc, acc *= len[perm[p]];
  return s;
}
inline std::vector<int> random_perm(int n, std::mt19937& rng) {
  std::vector<int> p(n);
  for (int i = 0; i < n; ++i) p[i] = i;
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}
template <int N>
index_t dot(const multi_index<N>& a, const multi_index<N>& b) {
  index_t r = 0;
  for (int i = 0; i < N; ++i) r += a[i] * b[i];
  return r;
}

// A random window along one dimension: input 1..max_in, window 1..max_win, stride and dilation
// 1..max_sd, padding 0..3 on each side chosen independently; only geometries with an output.
inline tg::window_dim random_dim(std::mt19937& rng, index_t max_in, index_t max_win = 4, index_t max_sd = 3) {
  for (;;) {
    tg::window_dim w;
    w.in = uniform(rng, 1, max_in);
    w.win = uniform(rng, 1, max_win);
    w.stride = uniform(rng, 1, max_sd);
    w.dilation = uniform(rng, 1, max_sd);
    w.pad_l = uniform(rng, 0, 3);
    w.pad_r = uniform(rng, 0, 3);
    if (w.out() >= 1) return w;
  }
}
inline std::string describe(const tg::window_dim& w) {
  std::ostringstream o;
  o << "{in " << w.in << " win " << w.win << " s " << w.stride << " d " << w.dilation << " pad " << w.pad_l << "," << w.pad_r << " out "
    << w.out() << "}";
  return o.str();
}
template <int NDim>
std::string describe(const tg::window_geometry<NDim>& g) {
  std::string s;
  for (int d = 0; d < NDim; ++d) s += describe(g[d]);
  return s;
}

// A random walk over the top domain of d: each move is a random jump, a unit step along one
// dimension, or a step of a few units (as a tile window moving along K). After every move the
// incrementally updated coordinate must equal one made from scratch at the new point, level by
// level, and its offset and validity must match the descriptor's.
template <class D>
void random_walk(const D& d, std::mt19937& rng, int moves = 300) {
  constexpr int N = D::rank;
  const auto len = d.lengths();
  for (int i = 0; i < N; ++i)
    if (len[i] <= 0) return;
  auto random_point = [&] {
    multi_index<N> p{};
    for (int i = 0; i < N; ++i) p[i] = uniform(rng, 0, len[i] - 1);
    return p;
  };
  multi_index<N> top = random_point();
  auto c = tg::make_coordinate(d, top);
  for (int mv = 0; mv < moves; ++mv) {
    multi_index<N> next = top;
    const int kind = int(uniform(rng, 0, 2)), dim = int(uniform(rng, 0, N - 1));
    if (kind == 0) {
      next = random_point();
    } else {
      const index_t amount = kind == 1 ? 1 : uniform(rng, 2, 8);
      next[dim] += uniform(rng, 0, 1) ? amount : -amount;
      if (next[dim] < 0 || next[dim] >= len[dim]) next = top;
    }
    tg::move(d, c, next - top);
    top = next;
    const auto fresh = tg::make_coordinate(d, top);
    ASSERT_EQ(vec(c.top()), vec(top));
    ASSERT_EQ(vec(c.hidden), vec(fresh.hidden)) << "after moving to " << str(top);
    ASSERT_EQ(tg::is_valid(d, c), d.is_valid(top)) << "at " << str(top);
    if (d.is_valid(top)) {
      ASSERT_EQ(c.offset(), d.offset(top)) << "at " << str(top);
    }
  }
}
}  // namespace tg::test
