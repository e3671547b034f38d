// The order in which a GEMM walks its reduction (a schedule choice, as Halide's reorder): position kp
// of the walk reads reduction index k = (kp % outer) * inner + kp / outer, which makes the reduction's
// outermost merged coordinate (a convolution's image n) the fastest. Why: backward weight on
// channels-last tensors reduces over (n, out...), and with the output position fastest every k moves
// the im2col operand's padding guards, so none of its k-tiles is uniform (affine_k_tile) and each
// 16-byte piece of its fill pays a k entry; with n fastest, a k-tile of BK images at one output
// position shares its guards and steps by one image, so both operands fill as uniform tiles. Any
// bijection of the reduction gives the same sum (up to the rounding order), so the op program does not
// see the choice.
#pragma once
#include "dsl/tensor_view.hpp"
#include "lowering/gpu/split_view.hpp"

namespace tg {
struct k_order {
  index_t outer = 1, inner = 0;  // the identity while outer <= 1
  TG_HD bool identity() const { return outer <= 1; }
  TG_HD index_t operator()(index_t kp) const { return outer > 1 ? (kp % outer) * inner + kp / outer : kp; }
};

// The length of the outermost coordinate that top dimension 2 (k) of an affine split [G, rows, K] view
// merges (a merge's first digit: its value at k is k / (K / length)), or 0 where k is not such a merge.
template <class View>
index_t outer_k_length(const View& v) {
  using S = split_view<View>;
  constexpr auto src = S::top_t::lower_source();
  const index_t K = v.desc.length(2);
  if (K < 2) return 0;
  auto part = [&](index_t k) { return top_part(v, multi_index<View::rank>{{0, 0, k}}); };
  const auto last = part(K - 1);
  for (int j = 0; j < S::n1; ++j) {
    if (src[j] != 2) continue;
    const index_t len = last[j] + 1;
    if (len < 2 || len == K || K % len != 0) continue;
    const index_t inner = K / len;
    if (part(inner - 1)[j] == 0 && part(inner)[j] == 1 && part(K - inner)[j] == len - 1) return len;
  }
  return 0;
}

// The reduction order for a single GEMM of operands a and b (both affine splits over the same K) whose
// rows are the contiguous dimension of memory in both (so neither fill reads along k and nothing is
// lost by leaving k's memory order): the outermost merged coordinate first, when both views merge the
// same one and it spans whole k-tiles of BK; else the identity.
template <int BK, class ViewA, class ViewB>
k_order reduction_order(const ViewA& a, const ViewB& b) {
  const index_t K = a.desc.length(2), la = outer_k_length(a);
  if (la == 0 || la % BK != 0 || la != outer_k_length(b) || b.desc.length(2) != K) return {};
  return {la, K / la};
}
}  // namespace tg
