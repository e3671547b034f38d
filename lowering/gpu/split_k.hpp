// How many chunks split-K cuts a GEMM's reduction into.
#pragma once
#include "dsl/config.hpp"

namespace tg {
// `tiles` blocks per chunk on `slots` places that run at once (resident blocks per multiprocessor x
// multiprocessors, times the waves wanted): as many chunks as fit the slots whole, so that no last
// wave runs partly filled (270 blocks on 264 slots take two block times, 252 take one), and at most
// `most` (each chunk long enough to pay its set-up and its partial sums). At least one.
constexpr index_t split_k_chunks(index_t tiles, index_t slots, index_t most) {
  if (tiles <= 0 || tiles >= slots) return 1;
  const index_t fit = slots / tiles;
  const index_t want = fit < most ? fit : most;
  return want > 1 ? want : 1;
}
}  // namespace tg
