// replicate / insert: upper dimensions with no lower one (a broadcast); alone and inside a descriptor.
#include "dsl/descriptor.hpp"
#include "dsl/transform/replicate.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

using namespace tg::test;

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
