// group_dims: merging listed dimensions into one (row-major), against decoding by division over the whole
// domain, on strided and padded views; the top stage's first_lower_of names each group's slowest one.
#include "dsl/compose/group_dims.hpp"
#include "dsl/transforms.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

#include <type_traits>

using namespace tg::test;

static_assert(std::is_same_v<tg::seq_range<2, 5>, tg::seq<2, 3, 4>>);
static_assert(std::is_same_v<tg::seq_range<3, 3>, tg::seq<>>);
static_assert(std::is_same_v<tg::seq_cat<tg::seq<1>, tg::seq_range<3, 5>>, tg::seq<1, 3, 4>>);

namespace {
// Brute force: new dimension i is the row-major index over the old dimensions of group i (listed
// order, last fastest); decoding it gives the old index.
template <class D, class... G>
void check_group(const D& d, G... groups) {
  constexpr int R = D::rank, NG = sizeof...(G);
  const std::vector<std::vector<int>> gs{[]<int... I>(tg::seq<I...>) { return std::vector<int>{I...}; }(groups)...};
  const auto old_len = d.lengths();
  const auto v = tg::group_dims(d, groups...);
  static_assert(decltype(v)::rank == NG);
  multi_index<NG> want{};
  for (int i = 0; i < NG; ++i) {
    want[i] = 1;
    for (int o : gs[i]) want[i] *= old_len[o];
  }
  ASSERT_EQ(vec(v.lengths()), vec(want));
  // The top stage names each group's slowest dimension (its merge's first digit).
  using top = typename std::remove_cvref_t<decltype(v)>::adaptor_type::template stage_t<0>;
  for (int i = 0; i < NG; ++i) EXPECT_EQ(top::first_lower_of(i), gs[i][0]) << "group " << i;
  EXPECT_EQ(top::first_lower_of(NG), -1) << "no transform reads a dimension past the last";
  for_each_index(want, [&](const multi_index<NG>& top) {
    multi_index<R> old{};
    for (int i = 0; i < NG; ++i) {
      index_t rest = top[i];
      for (int k = int(gs[i].size()) - 1; k >= 0; --k) old[gs[i][k]] = rest % old_len[gs[i][k]], rest /= old_len[gs[i][k]];
    }
    ASSERT_EQ(v.is_valid(top), d.is_valid(old)) << str(top);
    if (d.is_valid(old)) {
      ASSERT_EQ(v.offset(top), d.offset(old)) << str(top);
    }
  });
}
}  // namespace

TEST(ComposeGroupDims, MergesListedDimensionsRowMajor) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 5; ++rep) {
      const multi_index<4> len{{uniform(rng, 1, 4), uniform(rng, 1, 4), uniform(rng, 1, 4), uniform(rng, 1, 4)}};
      const multi_index<4> st{{uniform(rng, -30, 30), uniform(rng, -9, 9), uniform(rng, -3, 3), 1}};
      SCOPED_TRACE(::testing::Message() << "lengths " << str(len) << " strides " << str(st));
      const auto d = tg::make_naive_descriptor(tg::make_tuple(len[0], len[1], len[2], len[3]), tg::make_tuple(st[0], st[1], st[2], st[3]));
      check_group(d, tg::seq<0, 2>{}, tg::seq<1>{}, tg::seq<3>{});
      check_group(d, tg::seq<3, 0>{}, tg::seq<2, 1>{});
      check_group(d, tg::seq<0, 1, 2, 3>{});
      check_group(d, tg::seq<2>{}, tg::seq<3>{}, tg::seq<0>{}, tg::seq<1>{});  // a plain reorder
      check_group(d, tg::seq<1, 3, 2>{}, tg::seq<0>{});
      // On a view with padding: validity is carried through.
      const auto p = tg::transform(d, tg::make_tuple(tg::pass_through{len[0]}, tg::pad{len[1], index_t{1}, index_t{2}}, tg::pass_through{len[2]},
                                                     tg::pad{len[3], index_t{2}, index_t{0}}),
                                   tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}, tg::seq<3>{}),
                                   tg::make_tuple(tg::seq<0>{}, tg::seq<1>{}, tg::seq<2>{}, tg::seq<3>{}));
      check_group(p, tg::seq<0, 1>{}, tg::seq<2, 3>{});
      check_group(p, tg::seq<3, 1, 0>{}, tg::seq<2>{});
      if (HasFatalFailure()) return;
    }
  }
}
