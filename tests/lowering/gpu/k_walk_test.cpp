// lowering/gpu/tma_gemm/k_walk.hpp: the producer's odometer with the box corners carried along, over
// whole unit ranges of random K digits: at every k-tile the digits are the k-tile's own (its index
// decomposed, last digit fastest) and each carried corner equals the corner worked out anew from them.
#include "lowering/gpu/tma_gemm/k_walk.hpp"

#include <gtest/gtest.h>

#include <random>

namespace {
using namespace tg::tma_gemm;
constexpr int R = 5;

// K-tile t's digits, worked out by division (the odometer's independent reference).
void digits_of(const digits& k, long long t, int (&ck)[nd]) {
  for (int p = nd - 1; p >= 0; --p) {
    ck[p] = static_cast<int>(t % k.tiles[p]) * k.ext[p];
    t /= k.tiles[p];
  }
}
void corner_of(const int (&base)[R], const int (&s)[nd][R], const int (&ck)[nd], int (&x)[R]) {
  for (int a = 0; a < R; ++a) {
    x[a] = base[a];
    for (int p = 0; p < nd; ++p) x[a] += s[p][a] * ck[p];
  }
}

TEST(KWalk, CarriedCornersAreTheKTilesOwn) {
  std::mt19937 rng(38);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 400; ++trial) {
    digits k;
    long long total = 1;
    for (int p = 0; p < nd; ++p) {
      k.ext[p] = pick(0, 3) == 0 ? 1 : pick(1, 64);
      k.tiles[p] = pick(0, 2) == 0 ? 1 : pick(1, 9);
      total *= k.tiles[p];
    }
    int sa[nd][R], sb[nd][R], ba[R], bb[R];
    for (int p = 0; p < nd; ++p)
      for (int a = 0; a < R; ++a) sa[p][a] = pick(-3, 3), sb[p][a] = pick(0, 2) ? 0 : pick(-2, 5);
    for (int a = 0; a < R; ++a) ba[a] = pick(-100, 100), bb[a] = pick(-100, 100);
    const long long kb = std::uniform_int_distribution<long long>(0, total - 1)(rng);
    const long long ke = std::uniform_int_distribution<long long>(kb + 1, total)(rng);
    int ck[nd], xa[R], xb[R];
    digits_of(k, kb, ck);
    corner_of(ba, sa, ck, xa);
    corner_of(bb, sb, ck, xb);
    for (long long t = kb; t < ke; ++t) {
      int want[nd], wa[R], wb[R];
      digits_of(k, t, want);
      corner_of(ba, sa, want, wa);
      corner_of(bb, sb, want, wb);
      for (int p = 0; p < nd; ++p) ASSERT_EQ(ck[p], want[p]) << "trial " << trial << " k-tile " << t << " digit " << p;
      for (int a = 0; a < R; ++a) {
        ASSERT_EQ(xa[a], wa[a]) << "trial " << trial << " k-tile " << t << " A axis " << a;
        ASSERT_EQ(xb[a], wb[a]) << "trial " << trial << " k-tile " << t << " B axis " << a;
      }
      int plain[nd];
      for (int p = 0; p < nd; ++p) plain[p] = ck[p];
      next_k_tile(k, plain);
      next_k_tile(k, sa, sb, ck, xa, xb);
      for (int p = 0; p < nd; ++p) ASSERT_EQ(plain[p], ck[p]) << "the two odometers, trial " << trial;
    }
  }
}
}  // namespace
