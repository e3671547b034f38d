// offset: lower = upper + off (off of either sign), over the whole upper domain.
#include "dsl/transform/offset.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

using namespace tg::test;

static_assert(tg::offset{tg::n_<4>, tg::n_<-3>}.lower({{1}})[0] == -2);
static_assert(tg::offset{tg::n_<4>, tg::n_<-3>}.upper_lengths()[0] == 4);

namespace {
// Brute force: the rows [off, off + len) of a lower dimension listed in order.
template <class O>
void check_offset(const O& o, index_t len, index_t off, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "offset len " << len << " off " << off);
  std::vector<index_t> rows;
  for (index_t x = off; x < off + len; ++x) rows.push_back(x);
  check_transform(o, {len}, [&](const multi_index<1>& u) { return multi_index<1>{{rows[u[0]]}}; }, always, rng);
}
}  // namespace

TEST(TransformOffset, RunTimeParametersWholeDomain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 30; ++rep) {
      const index_t len = uniform(rng, 1, 12), off = uniform(rng, -8, 8);
      check_offset(tg::offset{len, off}, len, off, rng);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(TransformOffset, StaticAndMixedParameters) {
  std::mt19937 rng(4);
  check_offset(tg::offset{tg::n_<5>, tg::n_<3>}, 5, 3, rng);
  check_offset(tg::offset{index_t{4}, tg::n_<-2>}, 4, -2, rng);
  check_offset(tg::offset{tg::n_<3>, index_t{0}}, 3, 0, rng);
}
