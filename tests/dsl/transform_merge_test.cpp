// merge: one upper dimension to N row-major digits, ranks 1-4: the whole domain, the round trip with
// unmerge, and the incremental update (carries and borrows) for single- and multi-digit steps.
#include "dsl/transform/merge.hpp"
#include "dsl/transform/unmerge.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

#include <algorithm>

using namespace tg::test;

static_assert(tg::merge{tg::make_tuple(tg::n_<2>, tg::n_<3>, tg::n_<4>)}.lower({{23}})[2] == 3);
static_assert(tg::merge{tg::make_tuple(tg::n_<2>, tg::n_<3>, tg::n_<4>)}.upper_lengths()[0] == 24);

namespace {
// Brute force: the u-th index of the row-major enumeration of the lower domain. Also checks that
// unmerge with the same lengths inverts it both ways, and the incremental update for the steps that
// cross carries (+-1 and +-each place value and their sums, from every point) besides random pairs.
template <class M, int N = M::n_lower>
void check_merge(const M& m, const std::vector<index_t>& len, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "merge lengths " << ::testing::PrintToString(len));
  std::vector<multi_index<N>> points;
  for_each_index(mi<N>(len), [&](const multi_index<N>& i) { points.push_back(i); });
  const index_t total = index_t(points.size());
  check_transform(m, {total}, [&](const multi_index<1>& u) { return points[u[0]]; }, always, rng);
  if (::testing::Test::HasFatalFailure()) return;

  const tg::unmerge<decltype(m.lengths)> um{m.lengths};
  for (index_t u = 0; u < total; ++u) ASSERT_EQ(um.lower(m.lower({{u}}))[0], u);
  for (const auto& p : points) ASSERT_EQ(vec(m.lower(um.lower(p))), vec(p));

  std::vector<index_t> steps;
  index_t place = 1, sum = 0;
  for (int i = N - 1; i >= 0; --i) {
    steps.push_back(place);
    steps.push_back(place - 1);
    steps.push_back(place + 1);
    sum += place;
    steps.push_back(sum);
    steps.push_back(sum * (len[i] - 1));
    place *= len[i];
  }
  steps.push_back(total - 1);
  for (index_t a = 0; a < total; ++a)
    for (index_t s : steps)
      for (index_t d : {s, -s}) {
        const index_t b = a + d;
        if (b < 0 || b >= total) continue;
        const auto la = m.lower({{a}});
        ASSERT_EQ(vec(la + m.lower_step({{d}}, la, {{b}})), vec(points[b])) << "step " << a << " -> " << b;
      }
}

template <int N>
void random_merges(std::mt19937& rng) {
  for (int rep = 0; rep < 10; ++rep) {
    std::vector<index_t> len(N);
    for (auto& l : len) l = uniform(rng, 1, 6);
    check_merge(tg::merge{tup<N>(len)}, len, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}
}  // namespace

TEST(TransformMerge, RandomRanks1To4WholeDomainRoundTripAndSteps) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_merges<1>(rng);
    if (HasFatalFailure()) return;
    random_merges<2>(rng);
    if (HasFatalFailure()) return;
    random_merges<3>(rng);
    if (HasFatalFailure()) return;
    random_merges<4>(rng);
    if (HasFatalFailure()) return;
  }
}

TEST(TransformMerge, StaticAndMixedLengths) {
  std::mt19937 rng(10);
  check_merge(tg::merge{tg::make_tuple(tg::n_<3>, index_t{4})}, {3, 4}, rng);
  check_merge(tg::merge{tg::make_tuple(index_t{2}, tg::n_<1>, tg::n_<5>)}, {2, 1, 5}, rng);
  check_merge(tg::merge{tg::make_tuple(tg::n_<2>, tg::n_<3>, tg::n_<4>, tg::n_<5>)}, {2, 3, 4, 5}, rng);
  check_merge(tg::merge{tg::make_tuple(tg::n_<1>, index_t{1}, tg::n_<7>, index_t{1})}, {1, 1, 7, 1}, rng);
  check_merge(tg::merge{tg::make_tuple(tg::n_<9>)}, {9}, rng);
}

// The carry chain of a step through every digit: (0, L1-1, L2-1, L3-1) + 1 = (1, 0, 0, 0), and back.
TEST(TransformMerge, StepCrossingEveryCarry) {
  const tg::merge m{tg::make_tuple(index_t{3}, index_t{4}, index_t{5}, index_t{6})};
  const index_t a = 4 * 5 * 6 - 1;
  const auto la = m.lower({{a}});
  EXPECT_EQ(vec(la), (std::vector<index_t>{0, 3, 4, 5}));
  const auto up = m.lower_step({{1}}, la, {{a + 1}});
  EXPECT_EQ(vec(up), (std::vector<index_t>{1, -3, -4, -5}));
  const auto down = m.lower_step({{-1}}, la + up, {{a}});
  EXPECT_EQ(vec(la + up + down), vec(la));
  // A multi-digit step with a carry out of every digit: (0,3,4,5) + (1,1,1,1) digits.
  const index_t d = 4 * 5 * 6 + 5 * 6 + 6 + 1;
  EXPECT_EQ(vec(la + m.lower_step({{d}}, la, {{a + d}})), vec(m.lower({{a + d}})));
  EXPECT_EQ(vec(m.lower({{a + d}})), (std::vector<index_t>{2, 1, 1, 0}));
}

// Lengths whose product passes 2^31: lower and the incremental update take the 64-bit path.
TEST(TransformMerge, LargeIndices64Bit) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    const std::vector<index_t> len{100003, 99991, 7, 3};
    const tg::merge m{tup<4>(len)};
    const index_t total = len[0] * len[1] * len[2] * len[3];
    ASSERT_EQ(m.upper_lengths()[0], total);
    ASSERT_GT(total, index_t{1} << 31);
    auto ref = [&](index_t u) {
      std::vector<index_t> r(4);
      for (int i = 3; i >= 0; --i) r[i] = u % len[i], u /= len[i];
      return r;
    };
    for (int rep = 0; rep < 20000; ++rep) {
      const index_t a = uniform(rng, 0, total - 1), b = rep % 2 ? uniform(rng, 0, total - 1) : std::min(total - 1, a + uniform(rng, 0, 50));
      const auto la = m.lower({{a}});
      ASSERT_EQ(vec(la), ref(a)) << a;
      ASSERT_EQ(vec(la + m.lower_step({{b - a}}, la, {{b}})), ref(b)) << a << " -> " << b;
    }
  }
}

// The worked example of docs/transforms.md: lengths (3, 4, 5), 37 -> (1, 3, 2); a step of +9 has
// digits (0, 1, 4); adding them carries twice and lands on (2, 1, 1) = 46.
TEST(TransformMerge, WorkedExample) {
  const tg::merge m{tg::make_tuple(tg::n_<3>, index_t{4}, index_t{5})};
  const auto a = m.lower({{37}});
  EXPECT_EQ(vec(a), (std::vector<index_t>{1, 3, 2}));
  const auto d = m.lower_step({{9}}, a, {{46}});
  EXPECT_EQ(vec(d), (std::vector<index_t>{1, -2, -1}));
  EXPECT_EQ(vec(a + d), (std::vector<index_t>{2, 1, 1}));
  const auto back = m.lower_step({{-9}}, a + d, {{37}});
  EXPECT_EQ(vec(back), (std::vector<index_t>{-1, 2, 1}));
}
