// Shared by the tests of lowering/gpu: every k-tile summary (affine_split::k_tile) of a GEMM view,
// with the k entries laid out in a walk order (k_order, the identity by default), checked against the
// descriptor over the whole [G, rows, K] domain.
#pragma once
#include <gtest/gtest.h>

#include <vector>

#include "../../dsl/support.hpp"
#include "lowering/gpu/k_order.hpp"
#include "lowering/gpu/split_view.hpp"

namespace tg::test {
constexpr int BK = 4;

// Checks every uniform k-tile of `d` with slot kp holding k entry order(kp): the tile's validity and
// offsets against the descriptor at the reordered k, its guard boxes (the hoisted fill's test) against
// affine_valid, and a row's boxes (the small-M GEMM's test) at every k entry. Returns how many tiles
// were uniform.
template <class Desc>
index_t check_k_tiles(const Desc& d, const tg::k_order& order = {}) {
  const auto v = tg::make_view(static_cast<const float*>(nullptr), d);  // only offsets are computed
  using View = std::remove_cv_t<decltype(v)>;
  using A = tg::affine_split<View>;
  static_assert(A::on, "conv GEMM views are affine splits");
  const index_t G = d.length(0), M = d.length(1), K = d.length(2);
  // An empty view (a col2im class without taps or without rows) has nothing to check and no entries
  // to make: its top stage's merge of the empty dimension would divide by the zero length.
  if (G == 0 || M == 0 || K == 0) return 0;
  std::vector<typename A::entry> ks(K);
  for (index_t kp = 0; kp < K; ++kp) ks[kp] = tg::affine_entry<4>(v, 0, 2, order(kp));
  index_t uniform = 0;
  for (index_t k0 = 0; k0 < K; k0 += BK) {
    const auto t = tg::affine_k_tile<BK, View>(ks.data(), k0, K);
    if (k0 + BK > K) EXPECT_FALSE(t.uniform) << "a partial tile at k0 " << k0;
    if (!t.uniform) continue;
    ++uniform;
    for (index_t g = 0; g < G; ++g)
      for (index_t m = 0; m < M; ++m) {
        const auto r = tg::affine_entry<4>(v, g, 1, m);
        if (tg::affine_tile_guards<View>(v, t).holds(r) != tg::affine_valid(v, r, t)) {
          ADD_FAILURE() << "the tile's guard boxes differ from affine_valid at row " << m << " (tile k0 " << k0 << ")";
          return uniform;
        }
        for (int j = 0; j < BK; ++j) {
          const multi_index<3> i{{g, m, order(k0 + j)}};
          if (tg::affine_valid(v, r, t) != d.is_valid(i)) {
            ADD_FAILURE() << "validity differs at " << str(i) << " (tile k0 " << k0 << ")";
            return uniform;
          }
          if (d.is_valid(i) && r.off + t.off + j * t.step != d.offset(i)) {
            ADD_FAILURE() << "offset " << r.off + t.off + j * t.step << " != " << d.offset(i) << " at " << str(i);
            return uniform;
          }
        }
      }
  }
  // The boxes with a row entry fixed instead (the small-M GEMM's per-row test), over every k entry.
  for (index_t g = 0; g < G; ++g)
    for (index_t m = 0; m < M; ++m) {
      const auto r = tg::affine_entry<4>(v, g, 1, m);
      const tg::affine_tile_guards<View> box(v, r);
      for (index_t k = 0; k < K; ++k)
        if (box.holds(ks[k]) != tg::affine_valid(v, r, ks[k])) {
          ADD_FAILURE() << "the row's guard boxes differ from affine_valid at row " << m << ", k " << k;
          return uniform;
        }
    }
  return uniform;
}
}  // namespace tg::test
