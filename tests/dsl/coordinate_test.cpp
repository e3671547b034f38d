// Coordinates: moving a coordinate (each level updated incrementally by lower_step) equals making it
// from scratch at the new point, over random walks on multi-stage chains; is_valid(desc, coord) equals
// desc.is_valid(top).
#include "dsl/coordinate.hpp"
#include "dsl/descriptor.hpp"
#include "dsl/transforms.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

using namespace tg::test;

TEST(Coordinate, MakeCoordinateHoldsEveryLevel) {
  const auto x = tg::make_packed_descriptor(tg::make_tuple(index_t{2}, index_t{3}, index_t{4}));
  const auto g = tg::transform(x, tg::make_tuple(tg::merge{tg::make_tuple(index_t{2}, index_t{3})}, tg::pad{index_t{4}, index_t{1}, index_t{0}}),
                               tg::make_tuple(tg::seq<0, 1>{}, tg::seq<2>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}));
  const auto c = tg::make_coordinate(g, {{4, 3}});
  // Levels: top (4, 3) | (1, 1, 2) | offset 1 * 12 + 1 * 4 + 2.
  EXPECT_EQ(vec(c.hidden), (std::vector<index_t>{4, 3, 1, 1, 2, 18}));
  EXPECT_EQ(c.offset(), 18);
  EXPECT_TRUE(tg::is_valid(g, c));
  EXPECT_FALSE(tg::is_valid(g, tg::make_coordinate(g, {{4, 0}})));
}

// pad -> embed -> merge (a convolution's GEMM view built by hand) on an NCHW tensor.
TEST(Coordinate, RandomWalkPadEmbedMerge) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 40; ++rep) {
      const index_t N = uniform(rng, 1, 3), C = uniform(rng, 1, 3), H = uniform(rng, 2, 7), W = uniform(rng, 2, 7);
      const index_t Y = uniform(rng, 1, 3), X = uniform(rng, 1, 3), s = uniform(rng, 1, 3), dl = uniform(rng, 1, 2), p = uniform(rng, 0, 2);
      const index_t Ho = tg::floor_div(H + 2 * p - dl * (Y - 1) - 1, s) + 1, Wo = tg::floor_div(W + 2 * p - dl * (X - 1) - 1, s) + 1;
      if (Ho < 1 || Wo < 1) continue;
      using E2 = tg::embed<tg::tuple<index_t, index_t>, tg::tuple<index_t, index_t>>;
      const auto x = tg::make_packed_descriptor(tg::make_tuple(N, C, H, W));
      const auto padded = tg::transform(
          x, tg::make_tuple(tg::pass_through{N}, tg::pass_through{C}, tg::pad{H, p, p}, tg::pad{W, p, p}),
          tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}, tg::seq<3>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}, tg::seq<3>{}));
      const auto win = tg::transform(padded,
                                     tg::make_tuple(tg::pass_through{N}, tg::pass_through{C}, E2{tg::make_tuple(Ho, Y), tg::make_tuple(s, dl)},
                                                    E2{tg::make_tuple(Wo, X), tg::make_tuple(s, dl)}),
                                     tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}, tg::seq<3>{}),
                                     tg::make_tuple(tg::seq<0>{}, tg::seq<3>{}, tg::seq<1, 4>{}, tg::seq<2, 5>{}));  // [n, ho, wo, c, y, x]
      const auto gemm = tg::transform(win, tg::make_tuple(tg::merge{tg::make_tuple(N, Ho, Wo)}, tg::merge{tg::make_tuple(C, Y, X)}),
                                      tg::make_tuple(tg::seq<0, 1, 2>{}, tg::seq<3, 4, 5>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}));
      random_walk(gemm, rng);
      if (HasFatalFailure()) return;
    }
  }
}

// naive (negative strides) -> unmerge -> xor_swizzle -> merge with lower ids out of order.
TEST(Coordinate, RandomWalkUnmergeXorMerge) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 40; ++rep) {
      const index_t R = uniform(rng, 1, 9), L1 = uniform(rng, 1, 4), L2 = index_t{1} << uniform(rng, 0, 3), L = L1 * L2;
      const auto base = tg::make_naive_descriptor(tg::make_tuple(R, L), tg::make_tuple(-L, index_t{-1}));
      const auto split = tg::transform(base, tg::make_tuple(tg::pass_through{R}, tg::unmerge{tg::make_tuple(L1, L2)}),
                                       tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1, 2>{}));
      const auto swz = tg::transform(split, tg::make_tuple(tg::xor_swizzle{R, L2}, tg::pass_through{L1}),
                                     tg::make_tuple(tg::seq<0, 2>{}, tg::seq<1>{}), tg::make_tuple(tg::seq<0, 2>{}, tg::seq<1>{}));
      const auto top = tg::transform(swz, tg::make_tuple(tg::merge{tg::make_tuple(L1, R)}, tg::pass_through{L2}),
                                     tg::make_tuple(tg::seq<1, 0>{}, tg::seq<2>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}));
      random_walk(top, rng);
      if (HasFatalFailure()) return;
    }
  }
}

// freeze, offset, pad with static sides, insert, and a merge over the inserted dimension.
TEST(Coordinate, RandomWalkFreezePadInsertMerge) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 40; ++rep) {
      const index_t A = uniform(rng, 1, 4), B = uniform(rng, 2, 6), C = uniform(rng, 1, 4), R = uniform(rng, 1, 3);
      const index_t a0 = uniform(rng, 0, A - 1), o = uniform(rng, 0, B - 1), Bp = B - o;
      const auto x = tg::make_packed_descriptor(tg::make_tuple(A, B, C));
      const auto s1 = tg::transform(x, tg::make_tuple(tg::freeze{a0}, tg::offset{Bp, o}, tg::pass_through{C}),
                                    tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}), tg::make_tuple(tg::seq<>{}, tg::seq<0>{}, tg::seq<1>{}));
      const auto s2 = tg::transform(s1, tg::make_tuple(tg::pad{Bp, tg::n_<1>, tg::n_<2>}, tg::insert(R), tg::pass_through{C}),
                                    tg::make_tuple(tg::seq<0>{}, tg::seq<>{}, tg::seq<1>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}));
      const auto s3 = tg::transform(s2, tg::make_tuple(tg::merge{tg::make_tuple(index_t{Bp + 3}, R, C)}),
                                    tg::make_tuple(tg::seq<0, 1, 2>{}), tg::make_tuple(tg::seq<0>{}));
      random_walk(s3, rng);
      if (HasFatalFailure()) return;
    }
  }
}

// Static lengths in the merge: the step's digits fold at compile time, the result must not change.
TEST(Coordinate, RandomWalkStaticMerge) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    const auto x = tg::make_packed_descriptor(tg::make_tuple(tg::n_<3>, tg::n_<4>, tg::n_<5>, tg::n_<2>));
    const auto m = tg::transform(x, tg::make_tuple(tg::merge{tg::make_tuple(tg::n_<3>, tg::n_<4>)}, tg::merge{tg::make_tuple(tg::n_<5>, tg::n_<2>)}),
                                 tg::make_tuple(tg::seq<0, 1>{}, tg::seq<2, 3>{}), tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}));
    random_walk(m, rng, 2000);
    if (HasFatalFailure()) return;
  }
}
