// freeze: no upper dimension, lower fixed at 'at'; alone and as a plane selection inside a descriptor.
#include "dsl/coordinate.hpp"
#include "dsl/descriptor.hpp"
#include "dsl/transform/freeze.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

using namespace tg::test;

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
