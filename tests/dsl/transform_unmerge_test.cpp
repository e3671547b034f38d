// unmerge: N upper dimensions to their row-major linear index, ranks 1-4.
#include "dsl/transform/unmerge.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

#include <map>

using namespace tg::test;

static_assert(tg::unmerge{tg::make_tuple(tg::n_<2>, tg::n_<3>, tg::n_<4>)}.lower({{1, 2, 3}})[0] == 23);

namespace {
// Brute force: the position of each upper index in the row-major enumeration of the domain.
template <class U, int N = U::n_upper>
void check_unmerge(const U& u, const std::vector<index_t>& len, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "unmerge lengths " << ::testing::PrintToString(len));
  std::map<std::vector<index_t>, index_t> position;
  index_t counter = 0;
  for_each_index(mi<N>(len), [&](const multi_index<N>& i) { position[vec(i)] = counter++; });
  check_transform(u, len, [&](const multi_index<N>& i) { return multi_index<1>{{position.at(vec(i))}}; }, always, rng);
}

template <int N>
void random_unmerges(std::mt19937& rng) {
  for (int rep = 0; rep < 10; ++rep) {
    std::vector<index_t> len(N);
    for (auto& l : len) l = uniform(rng, 1, 5);
    check_unmerge(tg::unmerge{tup<N>(len)}, len, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}
}  // namespace

TEST(TransformUnmerge, RandomRanks1To4WholeDomain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_unmerges<1>(rng);
    if (HasFatalFailure()) return;
    random_unmerges<2>(rng);
    if (HasFatalFailure()) return;
    random_unmerges<3>(rng);
    if (HasFatalFailure()) return;
    random_unmerges<4>(rng);
    if (HasFatalFailure()) return;
  }
}

TEST(TransformUnmerge, StaticAndMixedLengths) {
  std::mt19937 rng(9);
  check_unmerge(tg::unmerge{tg::make_tuple(tg::n_<3>, index_t{4})}, {3, 4}, rng);
  check_unmerge(tg::unmerge{tg::make_tuple(index_t{2}, tg::n_<1>, tg::n_<5>)}, {2, 1, 5}, rng);
  check_unmerge(tg::unmerge{tg::make_tuple(tg::n_<2>, tg::n_<3>, tg::n_<2>, tg::n_<3>)}, {2, 3, 2, 3}, rng);
  check_unmerge(tg::unmerge{tg::make_tuple(tg::n_<7>)}, {7}, rng);
}
