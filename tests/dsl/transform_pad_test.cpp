// pad: lower = upper - left over [0, len + left + right), valid inside [left, left + len).
// Checked over the whole domain against an explicitly laid-out padded row.
#include "dsl/transform/pad.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

using namespace tg::test;

// Constexpr use: a pad with static parameters is usable at compile time.
static_assert(tg::pad{tg::n_<4>, tg::n_<1>, tg::n_<2>}.upper_lengths()[0] == 7);
static_assert(!tg::pad{tg::n_<4>, tg::n_<1>, tg::n_<2>}.is_valid({{0}}));
static_assert(tg::pad{tg::n_<4>, tg::n_<1>, tg::n_<2>}.is_valid({{4}}));
static_assert(!tg::pad{tg::n_<4>, tg::n_<1>, tg::n_<2>}.is_valid({{5}}));
static_assert(!tg::pad<>::always_valid);

namespace {
// Brute force: lay the padded row out explicitly ([-1]*left, 0..len-1, [-1]*right); a position is
// valid where it holds an element, and lower is that element (or, in the padding, the distance to
// the first element: negative on the left, len and beyond on the right).
template <class P>
void check_pad(const P& p, index_t len, index_t left, index_t right, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "pad len " << len << " left " << left << " right " << right);
  std::vector<index_t> row;
  for (index_t i = 0; i < left; ++i) row.push_back(-1);
  for (index_t i = 0; i < len; ++i) row.push_back(i);
  for (index_t i = 0; i < right; ++i) row.push_back(-1);
  auto ref_valid = [&](const multi_index<1>& u) { return row[u[0]] >= 0; };
  auto ref_lower = [&](const multi_index<1>& u) -> multi_index<1> {
    if (row[u[0]] >= 0) return {{row[u[0]]}};
    return {{u[0] < left ? -(left - u[0]) : len + (u[0] - left - len)}};
  };
  check_transform(p, {index_t(row.size())}, ref_lower, ref_valid, rng);
}
}  // namespace

TEST(TransformPad, RunTimeParametersWholeDomain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 40; ++rep) {
      const index_t len = uniform(rng, 1, 9), left = uniform(rng, 0, 4), right = uniform(rng, 0, 4);
      check_pad(tg::pad{len, left, right}, len, left, right, rng);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(TransformPad, StaticAndMixedParameters) {
  std::mt19937 rng(1);
  check_pad(tg::pad{tg::n_<5>, tg::n_<2>, tg::n_<0>}, 5, 2, 0, rng);
  check_pad(tg::pad{index_t{3}, tg::n_<1>, index_t{4}}, 3, 1, 4, rng);
  check_pad(tg::pad{tg::n_<1>, index_t{0}, tg::n_<3>}, 1, 0, 3, rng);
  check_pad(tg::pad{tg::n_<6>, tg::n_<0>, tg::n_<0>}, 6, 0, 0, rng);
  check_pad(tg::pad{index_t{2}, index_t{3}, tg::n_<3>}, 2, 3, 3, rng);
}

TEST(TransformPad, PaddingWiderThanTheRow) {
  std::mt19937 rng(2);
  check_pad(tg::pad{index_t{1}, index_t{5}, index_t{7}}, 1, 5, 7, rng);
  check_pad(tg::pad{index_t{2}, index_t{0}, index_t{9}}, 2, 0, 9, rng);
}
