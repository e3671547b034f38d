// lowering/gpu/split_k.hpp: over a whole domain of grids, split_k_chunks gives the most chunks whose
// blocks fit the slots in one whole wave, never more than `most`, and at least one.
#include "lowering/gpu/split_k.hpp"

#include <gtest/gtest.h>

namespace {
using tg::index_t;

TEST(SplitK, WholeWavesOnly) {
  for (index_t slots : {1, 7, 132, 264, 528})
    for (index_t tiles = 1; tiles <= 600; ++tiles)
      for (index_t most : {0, 1, 3, 15, 648}) {
        const index_t s = tg::split_k_chunks(tiles, slots, most);
        SCOPED_TRACE(::testing::Message() << "tiles " << tiles << " slots " << slots << " most " << most);
        ASSERT_GE(s, 1);
        if (tiles >= slots) {
          ASSERT_EQ(s, 1) << "a grid of a wave or more is not split";
          continue;
        }
        const index_t cap = most > 1 ? most : 1;
        ASSERT_LE(s, cap);
        ASSERT_LE(s * tiles, slots) << "a partial second wave";
        ASSERT_TRUE(s == cap || (s + 1) * tiles > slots) << "one more chunk would still fit";
      }
  // The dense backward-weight case of the design: 18 tiles, two blocks on each of 132 multiprocessors.
  EXPECT_EQ(tg::split_k_chunks(18, 264, 648), 14);
}
}  // namespace
