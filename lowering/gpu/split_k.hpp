// How many chunks split-K cuts a GEMM's reduction into.
#pragma once
#include "dsl/config.hpp"

namespace tg {
// `tiles` blocks per chunk on `slots` places that run at once (resident blocks per multiprocessor x
// multiprocessors, times the waves wanted). The fewest chunks (each adds its set-up and a partial sum)
// whose grid fills its waves to 90% (blocks / (waves x slots)): 270 blocks on 264 slots fill two waves
// to 51% and take two block times, 252 fill one to 95%; 288 on 528 fill one to 55%, 1440 fill three to
// 91%. At most `most` (each chunk long enough to pay for itself); where no count up to it fills 90%,
// the best filled. A grid of `slots` blocks or more is not split.
constexpr index_t split_k_chunks(index_t tiles, index_t slots, index_t most) {
  if (tiles <= 0 || slots <= 0 || tiles >= slots) return 1;
  const index_t cap = most > 1 ? most : 1;
  index_t best = 1, best_blocks = 0, best_places = 1;  // fill = blocks / places, compared exactly
  for (index_t s = 1; s <= cap && s * tiles <= 16 * slots; ++s) {
    const index_t blocks = s * tiles, places = (blocks + slots - 1) / slots * slots;
    if (10 * blocks >= 9 * places) return s;
    if (blocks * best_places > best_blocks * places) best = s, best_blocks = blocks, best_places = places;
  }
  return best;
}
}  // namespace tg
