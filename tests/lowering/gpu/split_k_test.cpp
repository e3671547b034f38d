// lowering/gpu/split_k.hpp: over a whole domain of grids, split_k_chunks gives the fewest chunks whose
// waves are filled to 90%, else the best filled count, never more than `most`, at least one; grids of
// a wave or more are not split. Checked against a brute-force search with floating-point fills.
#include "lowering/gpu/split_k.hpp"

#include <gtest/gtest.h>

namespace {
using tg::index_t;

double fill(index_t s, index_t tiles, index_t slots) {
  const index_t blocks = s * tiles, waves = (blocks + slots - 1) / slots;
  return static_cast<double>(blocks) / static_cast<double>(waves * slots);
}

TEST(SplitK, FewestChunksThatFillTheirWaves) {
  for (index_t slots : {1, 7, 132, 264, 528})
    for (index_t tiles = 1; tiles <= 600; ++tiles)
      for (index_t most : {0, 1, 3, 15, 648}) {
        const index_t s = tg::split_k_chunks(tiles, slots, most);
        SCOPED_TRACE(::testing::Message() << "tiles " << tiles << " slots " << slots << " most " << most);
        if (tiles >= slots) {
          ASSERT_EQ(s, 1) << "a grid of a wave or more is not split";
          continue;
        }
        const index_t cap = most > 1 ? most : 1;
        ASSERT_GE(s, 1);
        ASSERT_LE(s, cap);
        index_t first = 0, best = 1;  // brute force: the first count that fills 90%, the best filled
        for (index_t c = 1; c <= cap && c * tiles <= 16 * slots; ++c) {
          if (first == 0 && fill(c, tiles, slots) >= 0.9 - 1e-12) first = c;
          if (fill(c, tiles, slots) > fill(best, tiles, slots) + 1e-12) best = c;
        }
        ASSERT_EQ(s, first != 0 ? first : best);
      }
  // The dense backward-weight case of the design: 18 tiles, two blocks on each of 132 multiprocessors
  // (270 blocks would leave a second wave of 6).
  EXPECT_EQ(tg::split_k_chunks(18, 264, 648), 14);
}
}  // namespace
