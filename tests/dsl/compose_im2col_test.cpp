// im2col: x [G, N, C, in...] as the GEMM view [G, M = (N, out...), K = (taps..., C)], against the naive
// loop over (g, n, out..., taps..., c), 1D/2D/3D with groups, in packed, GNHWC, NHWGC and random layouts.
#include "dsl/compose/im2col.hpp"
#include "dsl/coordinate.hpp"

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
template <int N, int... I>
auto tup(const multi_index<N>& m, std::integer_sequence<int, I...>) { return tg::make_tuple(m[I]...); }
template <int N>
auto tup(const multi_index<N>& m) { return tup(m, std::make_integer_sequence<int, N>{}); }

// Strides of a tensor with logical lengths `len` stored densely in the physical order `perm`
// (perm[0] slowest): the way a layout (NCHW, NHWC, NHWGC...) becomes strides.
template <int N>
multi_index<N> strides_for(const multi_index<N>& len, const std::vector<int>& perm) {
  multi_index<N> s{};
  index_t acc = 1;
  for (int p = N - 1; p >= 0; --p) s[perm[p]] = acc, acc *= len[perm[p]];
  return s;
}
std::vector<int> random_perm(int n, std::mt19937& rng) {
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
tg::window_dim random_dim(std::mt19937& rng, index_t max_in, index_t max_win = 4, index_t max_sd = 3) {
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
std::string describe(const tg::window_dim& w) {
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

// Random walk of a coordinate over the top domain of d (jumps, unit steps, short steps): the moved
// coordinate must equal a fresh one at every step, and agree with d on validity and offset.
template <class D>
void random_walk(const D& d, std::mt19937& rng, int moves = 200) {
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
    ASSERT_EQ(vec(c.hidden), vec(tg::make_coordinate(d, top).hidden)) << "after moving to " << str(top);
    ASSERT_EQ(tg::is_valid(d, c), d.is_valid(top)) << "at " << str(top);
    if (d.is_valid(top)) {
      ASSERT_EQ(c.offset(), d.offset(top)) << "at " << str(top);
    }
  }
}
}  // namespace

namespace {
// Brute force: for every (g, n, out..., taps..., c), the GEMM element (g, m = (n, out...), k = (taps..., c))
// is x[g, n, c, hi...] with hi = ho * stride + tap * dilation - pad_l, or invalid when some hi is
// outside [0, in). x is canonical [G, N, C, in...] stored in the physical order perm.
template <int NDim>
void check_im2col(const tg::window_geometry<NDim>& g, index_t G, index_t N, index_t C, const std::vector<int>& perm, std::mt19937& rng) {
  constexpr int R = 3 + NDim;
  SCOPED_TRACE(::testing::Message() << "G " << G << " N " << N << " C " << C << " layout " << ::testing::PrintToString(perm) << " geometry "
                                    << describe(g));
  multi_index<R> xlen{};
  xlen[0] = G, xlen[1] = N, xlen[2] = C;
  for (int d = 0; d < NDim; ++d) xlen[3 + d] = g[d].in;
  const auto xstride = strides_for(xlen, perm);
  const auto x = tg::make_naive_descriptor(tup(xlen), tup(xstride));
  const auto a = tg::im2col(x, g);
  static_assert(decltype(a)::rank == 3);
  index_t outs = 1, taps = 1;
  for (int d = 0; d < NDim; ++d) outs *= g[d].out(), taps *= g[d].win;
  ASSERT_EQ(vec(a.lengths()), (std::vector<index_t>{G, N * outs, taps * C}));

  // Loop order (g, n, out..., taps..., c) is exactly (g, m, k) in row-major order.
  multi_index<3 + 2 * NDim> loop{};
  loop[0] = G, loop[1] = N;
  for (int d = 0; d < NDim; ++d) loop[2 + d] = g[d].out(), loop[2 + NDim + d] = g[d].win;
  loop[2 + 2 * NDim] = C;
  index_t counter = 0;
  const index_t M = N * outs, K = taps * C;
  for_each_index(loop, [&](const multi_index<3 + 2 * NDim>& i) {
    const index_t gg = counter / (M * K), m = counter / K % M, k = counter % K;
    ++counter;
    multi_index<R> xi{};
    xi[0] = i[0], xi[1] = i[1], xi[2] = i[2 + 2 * NDim];
    bool valid = true;
    for (int d = 0; d < NDim; ++d) {
      const index_t hi = i[2 + d] * g[d].stride + i[2 + NDim + d] * g[d].dilation - g[d].pad_l;
      valid = valid && hi >= 0 && hi < g[d].in;
      xi[3 + d] = hi;
    }
    ASSERT_EQ(a.is_valid({{gg, m, k}}), valid) << "g " << gg << " m " << m << " k " << k << " loop " << str(i);
    if (valid) {
      ASSERT_EQ(a.offset({{gg, m, k}}), dot(xi, xstride)) << "g " << gg << " m " << m << " k " << k << " loop " << str(i);
    }
  });
  if (!::testing::Test::HasFatalFailure()) {
    SCOPED_TRACE("coordinate walk");
    random_walk(a, rng, 150);
  }
}

// Layouts of x [G, N, C, spatial...] by physical order: GNC<spatial> (packed canonical),
// GN<spatial>C (CK's GNHWC), N<spatial>GC (NHWGC), and one random order.
template <int NDim>
std::vector<std::vector<int>> layouts(std::mt19937& rng) {
  std::vector<int> gnc{0, 1, 2}, gnsc{0, 1}, nsgc{1};
  for (int d = 0; d < NDim; ++d) gnc.push_back(3 + d), gnsc.push_back(3 + d), nsgc.push_back(3 + d);
  gnsc.push_back(2);
  nsgc.push_back(0), nsgc.push_back(2);
  return {gnc, gnsc, nsgc, random_perm(3 + NDim, rng)};
}

template <int NDim>
void random_im2cols(std::mt19937& rng, index_t max_in, int reps) {
  for (int rep = 0; rep < reps; ++rep) {
    tg::window_geometry<NDim> g{};
    for (int d = 0; d < NDim; ++d) g[d] = random_dim(rng, max_in);
    const index_t G = uniform(rng, 1, 3), N = uniform(rng, 1, 2), C = uniform(rng, 1, 3);
    for (const auto& perm : layouts<NDim>(rng)) {
      check_im2col(g, G, N, C, perm, rng);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}
}  // namespace

TEST(ComposeIm2col, Random1DGrouped) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_im2cols<1>(rng, 14, 100);
    if (HasFatalFailure()) return;
  }
}

TEST(ComposeIm2col, Random2DGrouped) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_im2cols<2>(rng, 8, 40);
    if (HasFatalFailure()) return;
  }
}

TEST(ComposeIm2col, Random3DGrouped) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_im2cols<3>(rng, 5, 12);
    if (HasFatalFailure()) return;
  }
}

// The seed problem's shape, scaled down: 3x3, stride 2, padding 1, odd input (71 -> 9 here), NHWGC.
TEST(ComposeIm2col, SeedLikeStride2Pad1) {
  tg::window_geometry<2> g{};
  g[0] = tg::window_dim{9, 3, 2, 1, 1, 1};
  g[1] = tg::window_dim{9, 3, 2, 1, 1, 1};
  std::mt19937 rng(12);
  check_im2col(g, 2, 2, 4, {1, 3, 4, 0, 2}, rng);
}

// The worked example of docs/transforms.md: x [G 1, N 1, C 2, H 4, W 4], 3x3, stride 1, padding 1:
// A = [1, 16, 18]; (g 0, m 5, k 13) is (n 0, ho 1, wo 1) x (y 2, x 0, c 1): x[0, 0, 1, 2, 0].
TEST(ComposeIm2col, WorkedExample) {
  tg::window_geometry<2> g{};
  g[0] = g[1] = tg::window_dim{4, 3, 1, 1, 1, 1};
  const auto x = tg::make_packed_descriptor(tg::make_tuple(index_t{1}, index_t{1}, index_t{2}, index_t{4}, index_t{4}));
  const auto a = tg::im2col(x, g);
  EXPECT_EQ(vec(a.lengths()), (std::vector<index_t>{1, 16, 18}));
  EXPECT_TRUE(a.is_valid({{0, 5, 13}}));
  EXPECT_EQ(a.offset({{0, 5, 13}}), x.offset({{0, 0, 1, 2, 0}}));
  // (m 0, k 0) is (ho 0, wo 0) x (y 0, x 0): hi = wi = -1, in the padding.
  EXPECT_FALSE(a.is_valid({{0, 0, 0}}));
}
