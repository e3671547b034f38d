// embed: lower = sum(up[i] * coef[i]), ranks 1-4, coefficients of both signs, static and run-time.
#include "dsl/transform/embed.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

using namespace tg::test;

static_assert(tg::embed{tg::make_tuple(tg::n_<3>, tg::n_<4>), tg::make_tuple(tg::n_<-2>, tg::n_<5>)}.lower({{2, 3}})[0] == 11);

namespace {
// Brute force: the lower index as repeated addition (up[i] copies of coef[i]), no multiplication.
template <int N>
multi_index<1> ref_embed(const multi_index<N>& up, const std::vector<index_t>& coefs) {
  index_t l = 0;
  for (int i = 0; i < N; ++i)
    for (index_t k = 0; k < up[i]; ++k) l += coefs[i];
  return {{l}};
}

template <int N>
void random_embeds(std::mt19937& rng) {
  for (int rep = 0; rep < 15; ++rep) {
    std::vector<index_t> len(N), coef(N);
    for (int i = 0; i < N; ++i) len[i] = uniform(rng, 1, 5), coef[i] = uniform(rng, -7, 7);
    SCOPED_TRACE(::testing::Message() << "embed rank " << N << " lengths " << ::testing::PrintToString(len) << " coefs "
                                      << ::testing::PrintToString(coef));
    const tg::embed e{tup<N>(len), tup<N>(coef)};
    check_transform(e, len, [&](const multi_index<N>& u) { return ref_embed<N>(u, coef); }, always, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}
}  // namespace

TEST(TransformEmbed, RandomRanks1To4WithNegativeCoefficients) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_embeds<1>(rng);
    if (HasFatalFailure()) return;
    random_embeds<2>(rng);
    if (HasFatalFailure()) return;
    random_embeds<3>(rng);
    if (HasFatalFailure()) return;
    random_embeds<4>(rng);
    if (HasFatalFailure()) return;
  }
}

TEST(TransformEmbed, StaticAndMixedParameters) {
  std::mt19937 rng(8);
  {
    const tg::embed e{tg::make_tuple(tg::n_<3>, index_t{4}), tg::make_tuple(index_t{-2}, tg::n_<5>)};
    check_transform(e, {3, 4}, [](const multi_index<2>& u) { return ref_embed<2>(u, {-2, 5}); }, always, rng);
  }
  {
    // A sliding window: (ho, k) -> ho * stride + k * dilation, stride 2, dilation 3.
    const tg::embed e{tg::make_tuple(tg::n_<5>, tg::n_<3>), tg::make_tuple(tg::n_<2>, tg::n_<3>)};
    check_transform(e, {5, 3}, [](const multi_index<2>& u) { return ref_embed<2>(u, {2, 3}); }, always, rng);
  }
  {
    // Strides of a reversed NHWC tensor: negative everywhere.
    const tg::embed e{tg::make_tuple(index_t{2}, tg::n_<3>, index_t{2}, tg::n_<4>),
                      tg::make_tuple(tg::n_<-24>, index_t{-8}, tg::n_<-4>, index_t{-1})};
    check_transform(e, {2, 3, 2, 4}, [](const multi_index<4>& u) { return ref_embed<4>(u, {-24, -8, -4, -1}); }, always, rng);
  }
  {
    // A zero coefficient broadcasts its dimension.
    const tg::embed e{tg::make_tuple(tg::n_<4>, index_t{3}), tg::make_tuple(tg::n_<0>, index_t{1})};
    check_transform(e, {4, 3}, [](const multi_index<2>& u) { return ref_embed<2>(u, {0, 1}); }, always, rng);
  }
}
