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
// merges (the merge's first digit, named by the top stage: first_lower_of), or 0 where it is 1 or the
// whole of K (nothing to reorder). A merge's digits are all at their largest at its last index.
template <class View>
index_t outer_k_length(const View& v) {
  constexpr int j = split_view<View>::top_t::first_lower_of(2);
  const index_t K = v.desc.length(2);
  if constexpr (j < 0) {
    return 0;
  } else {
    if (K < 2) return 0;
    const index_t len = top_part(v, multi_index<View::rank>{{0, 0, K - 1}})[j] + 1;
    return len > 1 && len < K && K % len == 0 ? len : 0;
  }
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
