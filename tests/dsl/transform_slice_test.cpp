// slice: the sub-range [begin, end) of a lower dimension, over the whole upper domain.
#include "dsl/transform/slice.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

using namespace tg::test;

static_assert(tg::slice{tg::n_<2>, tg::n_<6>}.upper_lengths()[0] == 4);
static_assert(tg::slice{tg::n_<2>, tg::n_<6>}.lower({{3}})[0] == 5);

namespace {
// Brute force: walk a lower dimension of length `total` and keep the positions in [begin, end).
template <class S>
void check_slice(const S& s, index_t total, index_t begin, index_t end, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "slice [" << begin << ", " << end << ") of " << total);
  std::vector<index_t> kept;
  for (index_t x = 0; x < total; ++x)
    if (x >= begin && x < end) kept.push_back(x);
  check_transform(s, {index_t(kept.size())}, [&](const multi_index<1>& u) { return multi_index<1>{{kept[u[0]]}}; }, always, rng);
}
}  // namespace

TEST(TransformSlice, RunTimeParametersWholeDomain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 30; ++rep) {
      const index_t total = uniform(rng, 1, 15);
      const index_t begin = uniform(rng, 0, total - 1), end = uniform(rng, begin + 1, total);
      check_slice(tg::slice{begin, end}, total, begin, end, rng);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(TransformSlice, StaticAndMixedParameters) {
  std::mt19937 rng(5);
  check_slice(tg::slice{tg::n_<0>, tg::n_<4>}, 4, 0, 4, rng);
  check_slice(tg::slice{index_t{3}, tg::n_<7>}, 9, 3, 7, rng);
  check_slice(tg::slice{tg::n_<5>, index_t{6}}, 6, 5, 6, rng);
}
