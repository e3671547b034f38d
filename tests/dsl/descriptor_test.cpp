// Descriptors: naive, packed and ordered offsets and element space, chains of 3-4 stages of transforms
// against brute force over their whole domain, reorder, 64-bit offsets, and the compile-time id checks.
#include "dsl/coordinate.hpp"
#include "dsl/descriptor.hpp"
#include "dsl/transforms.hpp"

#include <gtest/gtest.h>
#include <range/v3/view/cartesian_product.hpp>
#include <range/v3/view/iota.hpp>

#include "support.hpp"

#include <algorithm>
#include <set>

using namespace tg::test;

// The stage checker rejects dropped and duplicated ids (a failing stage_of does not compile; its
// predicate is checked here directly).
static_assert(tg::detail::is_partition<3, tg::seq<0, 2>, tg::seq<1>>());
static_assert(tg::detail::is_partition<3, tg::seq<2>, tg::seq<>, tg::seq<1, 0>>());
static_assert(!tg::detail::is_partition<3, tg::seq<0, 0>, tg::seq<1>>());     // duplicated, 2 missing
static_assert(!tg::detail::is_partition<3, tg::seq<0, 1>, tg::seq<1, 2>>());  // duplicated
static_assert(!tg::detail::is_partition<2, tg::seq<0>>());                     // missing
static_assert(!tg::detail::is_partition<2, tg::seq<0, 2>>());                  // out of range

// Descriptors with static lengths are usable at compile time.
constexpr auto kPacked = tg::make_packed_descriptor(tg::make_tuple(tg::n_<2>, tg::n_<3>, tg::n_<4>));
static_assert(kPacked.offset({{1, 2, 3}}) == 23 && kPacked.element_space == 24 && kPacked.size() == 24);
static_assert(decltype(kPacked)::rank == 3 && decltype(kPacked)::always_valid);

namespace {
template <int N>
void random_naive(std::mt19937& rng) {
  for (int rep = 0; rep < 10; ++rep) {
    std::vector<index_t> len(N), stride(N);
    for (int i = 0; i < N; ++i) len[i] = uniform(rng, 1, 5), stride[i] = uniform(rng, -9, 9);
    SCOPED_TRACE(::testing::Message() << "naive lengths " << ::testing::PrintToString(len) << " strides "
                                      << ::testing::PrintToString(stride));
    const auto d = tg::make_naive_descriptor(tup<N>(len), tup<N>(stride));
    static_assert(decltype(d)::rank == N);
    ASSERT_EQ(vec(d.lengths()), len);
    index_t lo = 0, hi = 0, count = 0;
    for_each_index(d.lengths(), [&](const multi_index<N>& i) {
      index_t want = 0;
      for (int k = 0; k < N; ++k) want += i[k] * stride[k];
      ASSERT_EQ(d.offset(i), want) << str(i);
      ASSERT_TRUE(d.is_valid(i));
      lo = std::min(lo, want), hi = std::max(hi, want), ++count;
    });
    ASSERT_EQ(d.element_space, hi - lo + 1);
    ASSERT_EQ(d.size(), count);
  }
}

template <int N>
void random_packed(std::mt19937& rng) {
  for (int rep = 0; rep < 10; ++rep) {
    std::vector<index_t> len(N);
    for (auto& l : len) l = uniform(rng, 1, 5);
    SCOPED_TRACE(::testing::Message() << "packed lengths " << ::testing::PrintToString(len));
    const auto d = tg::make_packed_descriptor(tup<N>(len));
    ASSERT_EQ(vec(d.lengths()), len);
    index_t counter = 0;
    for_each_index(d.lengths(), [&](const multi_index<N>& i) { ASSERT_EQ(d.offset(i), counter++) << str(i); });
    ASSERT_EQ(d.element_space, counter);
    ASSERT_EQ(d.size(), counter);
    for (int k = 0; k < N; ++k) ASSERT_EQ(d.length(k), len[k]);
  }
}
}  // namespace

TEST(Descriptor, NaiveOffsetsAndElementSpace) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_naive<1>(rng);
    if (HasFatalFailure()) return;
    random_naive<2>(rng);
    if (HasFatalFailure()) return;
    random_naive<3>(rng);
    if (HasFatalFailure()) return;
    random_naive<4>(rng);
    if (HasFatalFailure()) return;
  }
  // Static and run-time lengths and strides mixed.
  const auto d = tg::make_naive_descriptor(tg::make_tuple(tg::n_<2>, index_t{3}, tg::n_<4>), tg::make_tuple(index_t{20}, tg::n_<-5>, tg::n_<1>));
  EXPECT_EQ(d.element_space, 1 + 20 + 10 + 3);
  for_each_index(d.lengths(), [&](const multi_index<3>& i) { ASSERT_EQ(d.offset(i), 20 * i[0] - 5 * i[1] + i[2]); });
}

TEST(Descriptor, PackedOffsetsAreTheRowMajorCounter) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_packed<1>(rng);
    if (HasFatalFailure()) return;
    random_packed<2>(rng);
    if (HasFatalFailure()) return;
    random_packed<3>(rng);
    if (HasFatalFailure()) return;
    random_packed<4>(rng);
    if (HasFatalFailure()) return;
  }
  const auto d = tg::make_packed_descriptor(tg::make_tuple(index_t{3}, tg::n_<1>, tg::n_<5>));
  index_t counter = 0;
  for_each_index(d.lengths(), [&](const multi_index<3>& i) { ASSERT_EQ(d.offset(i), counter++); });
  EXPECT_EQ(d.element_space, 15);
}

// Chain of four stages on a packed NHWC tensor: pad (H, W) -> embed (ho, y), (wo, x) -> merge
// M = (n, ho, wo), K = (y, x, c) -> slice of M. Brute force decodes m and k by division.
TEST(Descriptor, PadEmbedMergeSliceChain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 40; ++rep) {
      const index_t N = uniform(rng, 1, 3), H = uniform(rng, 1, 6), W = uniform(rng, 1, 6), C = uniform(rng, 1, 3);
      const index_t Y = uniform(rng, 1, 3), X = uniform(rng, 1, 3), sh = uniform(rng, 1, 3), sw = uniform(rng, 1, 3);
      const index_t dh = uniform(rng, 1, 3), dw = uniform(rng, 1, 3), ph0 = uniform(rng, 0, 2), ph1 = uniform(rng, 0, 2),
                    pw0 = uniform(rng, 0, 2), pw1 = uniform(rng, 0, 2);
      const index_t Ho = tg::floor_div(H + ph0 + ph1 - dh * (Y - 1) - 1, sh) + 1, Wo = tg::floor_div(W + pw0 + pw1 - dw * (X - 1) - 1, sw) + 1;
      if (Ho < 1 || Wo < 1) continue;
      const index_t M = N * Ho * Wo, K = Y * X * C, m0 = uniform(rng, 0, M - 1), m1 = uniform(rng, m0 + 1, M);
      SCOPED_TRACE(::testing::Message() << "N" << N << " H" << H << " W" << W << " C" << C << " Y" << Y << " X" << X << " s" << sh << "," << sw
                                        << " d" << dh << "," << dw << " p" << ph0 << "," << ph1 << "," << pw0 << "," << pw1 << " M[" << m0
                                        << "," << m1 << ")");
      using E2 = tg::embed<tg::tuple<index_t, index_t>, tg::tuple<index_t, index_t>>;
      const auto x = tg::make_packed_descriptor(tg::make_tuple(N, H, W, C));
      const auto padded = tg::transform(
          x, tg::make_tuple(tg::pass_through{N}, tg::pad{H, ph0, ph1}, tg::pad{W, pw0, pw1}, tg::pass_through{C}),
          tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}, tg::seq<3>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}, tg::seq<3>{}));
      const auto win = tg::transform(padded,
                                     tg::make_tuple(tg::pass_through{N}, E2{tg::make_tuple(Ho, Y), tg::make_tuple(sh, dh)},
                                                    E2{tg::make_tuple(Wo, X), tg::make_tuple(sw, dw)}, tg::pass_through{C}),
                                     tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}, tg::seq<3>{}),
                                     tg::make_tuple(tg::seq<0>{}, tg::seq<1, 3>{}, tg::seq<2, 4>{}, tg::seq<5>{}));  // [n, ho, wo, y, x, c]
      const auto gemm = tg::transform(win, tg::make_tuple(tg::merge{tg::make_tuple(N, Ho, Wo)}, tg::merge{tg::make_tuple(Y, X, C)}),
                                      tg::make_tuple(tg::seq<0, 1, 2>{}, tg::seq<3, 4, 5>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}));
      const auto sliced = tg::transform(gemm, tg::make_tuple(tg::slice{m0, m1}, tg::pass_through{K}), tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}),
                                        tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}));
      static_assert(decltype(sliced)::adaptor_type::n_stages == 5 && !decltype(sliced)::always_valid);
      ASSERT_EQ(vec(sliced.lengths()), (std::vector<index_t>{m1 - m0, K}));
      ASSERT_EQ(sliced.element_space, N * H * W * C);
      for (auto [mm, k] : ranges::views::cartesian_product(ranges::views::iota(index_t{0}, m1 - m0), ranges::views::iota(index_t{0}, K))) {
        const index_t m = m0 + mm, n = m / (Ho * Wo), ho = m / Wo % Ho, wo = m % Wo;
        const index_t y = k / (X * C), xx = k / C % X, c = k % C;
        const index_t hi = ho * sh + y * dh - ph0, wi = wo * sw + xx * dw - pw0;
        const bool valid = hi >= 0 && hi < H && wi >= 0 && wi < W;
        ASSERT_EQ(sliced.is_valid({{mm, k}}), valid) << "m " << m << " k " << k;
        if (valid) {
          ASSERT_EQ(sliced.offset({{mm, k}}), ((n * H + hi) * W + wi) * C + c) << "m " << m << " k " << k;
        }
      }
    }
  }
}

// Naive base with strides of either sign -> unmerge (split the columns) -> xor_swizzle on
// (row, low column part) -> merge with its lower ids out of order (M = (l1, r)).
TEST(Descriptor, NaiveUnmergeXorMergeChain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 40; ++rep) {
      const index_t R = uniform(rng, 1, 9), L1 = uniform(rng, 1, 4), L2 = index_t{1} << uniform(rng, 0, 3);
      const index_t L = L1 * L2, s0 = uniform(rng, -1, 1) * (L + uniform(rng, 0, 3)), s1 = uniform(rng, 0, 1) ? 1 : -1;
      SCOPED_TRACE(::testing::Message() << "R" << R << " L1 " << L1 << " L2 " << L2 << " strides " << s0 << "," << s1);
      const auto base = tg::make_naive_descriptor(tg::make_tuple(R, L), tg::make_tuple(s0, s1));
      const auto split = tg::transform(base, tg::make_tuple(tg::pass_through{R}, tg::unmerge{tg::make_tuple(L1, L2)}),
                                       tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1, 2>{}));
      const auto swz = tg::transform(split, tg::make_tuple(tg::xor_swizzle{R, L2}, tg::pass_through{L1}),
                                     tg::make_tuple(tg::seq<0, 2>{}, tg::seq<1>{}), tg::make_tuple(tg::seq<0, 2>{}, tg::seq<1>{}));
      const auto top = tg::transform(swz, tg::make_tuple(tg::merge{tg::make_tuple(L1, R)}, tg::pass_through{L2}),
                                     tg::make_tuple(tg::seq<1, 0>{}, tg::seq<2>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}));
      ASSERT_EQ(vec(top.lengths()), (std::vector<index_t>{L1 * R, L2}));
      std::set<index_t> offsets;
      for (index_t m = 0; m < L1 * R; ++m)
        for (index_t l2 = 0; l2 < L2; ++l2) {
          const index_t l1 = m / R, r = m % R, col = l1 * L2 + (l2 ^ (r % L2));
          ASSERT_EQ(top.offset({{m, l2}}), r * s0 + col * s1) << m << "," << l2;
          ASSERT_TRUE(top.is_valid({{m, l2}}));
          offsets.insert(top.offset({{m, l2}}));
        }
      if (s0 != 0) {
        ASSERT_EQ(index_t(offsets.size()), R * L) << "the chain is a bijection onto the base";
      }
    }
  }
}

// freeze + offset, then pad + insert, then merge over (inserted, c): [A, B, C] packed ->
// [p in B - o + 3 (padded 1 left, 2 right), m = (r, c)].
TEST(Descriptor, FreezeOffsetPadInsertMergeChain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 40; ++rep) {
      const index_t A = uniform(rng, 1, 4), B = uniform(rng, 2, 6), C = uniform(rng, 1, 4), R = uniform(rng, 1, 3);
      const index_t a0 = uniform(rng, 0, A - 1), o = uniform(rng, 0, B - 1), Bp = B - o;
      SCOPED_TRACE(::testing::Message() << "A" << A << " B" << B << " C" << C << " R" << R << " a0 " << a0 << " o " << o);
      const auto x = tg::make_packed_descriptor(tg::make_tuple(A, B, C));
      const auto s1 = tg::transform(x, tg::make_tuple(tg::freeze{a0}, tg::offset{Bp, o}, tg::pass_through{C}),
                                    tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}), tg::make_tuple(tg::seq<>{}, tg::seq<0>{}, tg::seq<1>{}));
      const auto s2 = tg::transform(s1, tg::make_tuple(tg::pad{Bp, tg::n_<1>, tg::n_<2>}, tg::insert(R), tg::pass_through{C}),
                                    tg::make_tuple(tg::seq<0>{}, tg::seq<>{}, tg::seq<1>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}));
      const auto s3 = tg::transform(s2, tg::make_tuple(tg::pass_through{Bp + 3}, tg::merge{tg::make_tuple(R, C)}),
                                    tg::make_tuple(tg::seq<0>{}, tg::seq<1, 2>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}));
      ASSERT_EQ(vec(s3.lengths()), (std::vector<index_t>{Bp + 3, R * C}));
      for (auto [p, m] : ranges::views::cartesian_product(ranges::views::iota(index_t{0}, Bp + 3), ranges::views::iota(index_t{0}, R * C))) {
        const bool valid = p >= 1 && p < 1 + Bp;
        ASSERT_EQ(s3.is_valid({{p, m}}), valid) << p << "," << m;
        if (valid) {
          ASSERT_EQ(s3.offset({{p, m}}), (a0 * B + p - 1 + o) * C + m % C) << p << "," << m;
        }
      }
    }
  }
}

namespace {
// reorder(d, Order): new dimension i is old dimension Order[i].
template <class D, int... Order>
void check_reorder(const D& d, tg::seq<Order...> o) {
  SCOPED_TRACE(::testing::Message() << "order " << ::testing::PrintToString(std::vector<int>{Order...}));
  constexpr int N = sizeof...(Order);
  const int order[N] = {Order...};
  const auto r = tg::reorder(d, o);
  static_assert(decltype(r)::rank == N);
  for (int i = 0; i < N; ++i) ASSERT_EQ(r.length(i), d.length(order[i]));
  ASSERT_EQ(r.element_space, d.element_space);
  for_each_index(r.lengths(), [&](const multi_index<N>& i) {
    multi_index<N> old{};
    for (int k = 0; k < N; ++k) old[order[k]] = i[k];
    ASSERT_EQ(r.is_valid(i), d.is_valid(old)) << str(i);
    if (d.is_valid(old)) {
      ASSERT_EQ(r.offset(i), d.offset(old)) << str(i);
    }
  });
}
}  // namespace

TEST(Descriptor, Reorder) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    const index_t a = uniform(rng, 1, 4), b = uniform(rng, 1, 4), c = uniform(rng, 1, 4), e = uniform(rng, 1, 4);
    const auto d = tg::make_packed_descriptor(tg::make_tuple(a, b, c, e));
    check_reorder(d, tg::seq<0, 1, 2, 3>{});
    check_reorder(d, tg::seq<3, 2, 1, 0>{});
    check_reorder(d, tg::seq<0, 2, 3, 1>{});  // NCHW -> NHWC
    check_reorder(d, tg::seq<1, 3, 0, 2>{});
    const auto n = tg::make_naive_descriptor(tg::make_tuple(a, b, c), tg::make_tuple(uniform(rng, -5, 5), uniform(rng, -5, 5), tg::n_<1>));
    check_reorder(n, tg::seq<2, 0, 1>{});
    check_reorder(n, tg::seq<1, 2, 0>{});
    // Reordering a view with padding keeps its validity.
    const auto p = tg::transform(n, tg::make_tuple(tg::pad{a, index_t{1}, index_t{2}}, tg::pass_through{b}, tg::pad{c, index_t{0}, index_t{1}}),
                                 tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}));
    check_reorder(p, tg::seq<2, 1, 0>{});
    check_reorder(tg::reorder(p, tg::seq<1, 2, 0>{}), tg::seq<2, 0, 1>{});  // and back
    if (HasFatalFailure()) return;
  }
}

// A layout as a physical order: order[0] is the slowest logical dimension in memory. The offset of a
// logical index is the row-major position of its permuted index (i[order[0]], i[order[1]], ...).
TEST(Descriptor, OrderedDescriptorIsThePermutedPackedLayout) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 20; ++rep) {
      multi_index<4> len{};
      for (int k = 0; k < 4; ++k) len[k] = uniform(rng, 1, 5);
      tg::array<int, 4> order{{0, 1, 2, 3}};
      std::shuffle(order.data, order.data + 4, rng);
      SCOPED_TRACE(::testing::Message() << "lengths " << str(len) << " order " << order[0] << order[1] << order[2] << order[3]);
      const auto d = tg::make_ordered_descriptor(len, order);
      ASSERT_EQ(vec(d.lengths()), vec(len));
      ASSERT_EQ(d.element_space, len[0] * len[1] * len[2] * len[3]);
      std::set<index_t> seen;
      for_each_index(len, [&](const multi_index<4>& i) {
        index_t want = 0;
        for (int p = 0; p < 4; ++p) want = want * len[order[p]] + i[order[p]];
        ASSERT_EQ(d.offset(i), want) << str(i);
        seen.insert(want);
      });
      ASSERT_EQ(index_t(seen.size()), d.element_space);
    }
  }
}

// Offsets past 2^31: a packed [5, 70000, 70000] tensor (never allocated), its dimensions grouped into
// one, and a coordinate walking over it with large jumps.
TEST(Descriptor, LargeTensor64BitOffsets) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    const index_t A = 5, B = 70000, C = 70000, total = A * B * C;
    const auto x = tg::make_packed_descriptor(tg::make_tuple(A, B, C));
    ASSERT_EQ(x.element_space, total);
    const auto flat = tg::transform(x, tg::make_tuple(tg::merge{tg::make_tuple(A, B, C)}), tg::make_tuple(tg::seq<0, 1, 2>{}),
                                    tg::make_tuple(tg::seq<0>{}));
    ASSERT_EQ(flat.length(0), total);
    const auto naive = tg::make_naive_descriptor(tg::make_tuple(A, B, C), tg::make_tuple(index_t{1}, A * C, A));  // B slowest, then C, then A
    for (int rep = 0; rep < 2000; ++rep) {
      const index_t a = uniform(rng, 0, A - 1), b = uniform(rng, 0, B - 1), c = uniform(rng, 0, C - 1);
      ASSERT_EQ(x.offset({{a, b, c}}), (a * B + b) * C + c);
      ASSERT_EQ(naive.offset({{a, b, c}}), b * A * C + c * A + a);
      const index_t u = uniform(rng, 0, total - 1);
      ASSERT_EQ(flat.offset({{u}}), u);
    }
    auto coord = tg::make_coordinate(flat, {{0}});
    index_t at = 0;
    for (int rep = 0; rep < 2000; ++rep) {
      const index_t to = rep % 2 ? uniform(rng, 0, total - 1) : std::clamp<index_t>(at + uniform(rng, -100000, 100000), 0, total - 1);
      tg::move(flat, coord, {{to - at}});
      at = to;
      ASSERT_EQ(coord.offset(), at);
      ASSERT_EQ(vec(coord.hidden), vec(tg::make_coordinate(flat, {{at}}).hidden));
    }
  }
}

// An empty tensor (a zero length) addresses no element: its element space is 0, not negative.
// (A naive descriptor computes 1 + sum((len - 1) * |stride|), which is 1 - |stride| for a length 0.)
TEST(Descriptor, EmptyNaiveTensorHasNoElementSpace) {
  EXPECT_EQ(tg::make_packed_descriptor(tg::make_tuple(index_t{0}, index_t{3})).element_space, 0);
  EXPECT_EQ(tg::make_naive_descriptor(tg::make_tuple(index_t{0}), tg::make_tuple(index_t{5})).element_space, 0);
  EXPECT_EQ(tg::make_naive_descriptor(tg::make_tuple(index_t{4}, index_t{0}), tg::make_tuple(index_t{1}, index_t{4})).element_space, 0);
  EXPECT_EQ(tg::make_naive_descriptor(tg::make_tuple(index_t{2}, index_t{0}), tg::make_tuple(index_t{10}, index_t{1})).element_space, 0);
  EXPECT_EQ(tg::make_ordered_descriptor(multi_index<2>{{0, 7}}, tg::array<int, 2>{{1, 0}}).element_space, 0);
}
