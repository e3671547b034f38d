// pass_through: the identity on one dimension, over its whole domain.
#include "dsl/transform/pass_through.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

using namespace tg::test;

static_assert(tg::pass_through{tg::n_<7>}.upper_lengths()[0] == 7);
static_assert(tg::pass_through{tg::n_<7>}.lower({{5}})[0] == 5);
static_assert(tg::pass_through<>::always_valid && tg::pass_through<>::n_upper == 1 && tg::pass_through<>::n_lower == 1);

namespace {
template <class P>
void check_pass_through(const P& p, index_t len, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "pass_through len " << len);
  // Brute force: the identity, read off a table of the row.
  std::vector<index_t> row;
  for (index_t i = 0; i < len; ++i) row.push_back(i);
  check_transform(p, {len}, [&](const multi_index<1>& u) { return multi_index<1>{{row[u[0]]}}; }, always, rng);
}
}  // namespace

TEST(TransformPassThrough, RunTimeLengthsWholeDomain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 20; ++rep) {
      const index_t len = uniform(rng, 1, 30);
      check_pass_through(tg::pass_through{len}, len, rng);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(TransformPassThrough, StaticLengths) {
  std::mt19937 rng(3);
  check_pass_through(tg::pass_through{tg::n_<1>}, 1, rng);
  check_pass_through(tg::pass_through{tg::n_<16>}, 16, rng);
  check_pass_through(tg::pass_through<>{index_t{9}}, 9, rng);
}
