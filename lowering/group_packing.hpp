// The layout arithmetic of packing narrow groups (host-testable; the GPU lowering that uses it is
// lowering/gpu/group_packing.hpp). A grouped convolution with a few channels per group (ResNeXt's 4-32)
// is a batch of GEMMs a few columns wide, which no matrix-core tile fills. p adjacent groups make one
// group of p times the channels whose weight is block-diagonal: an activation is the same memory seen
// with G/p groups of p * C/G channels (its groups must be adjacent along the channels, NHWGC), the
// weight a scratch copy [G/p, p * rows, p * features, ...], zero off its p diagonal blocks. The multiply
// does p times the work, on the matrix cores; backward weight computes the whole packed weight and keeps
// its diagonal.
#pragma once
#include <string>
#include "dsl/descriptor.hpp"
#include "lowering/feature_last.hpp"
#include "lowering/gpu/order.hpp"

namespace tg {
// How many groups make one packed group (1: no packing, `why` says why not).
struct group_pack {
  int groups = 1;
  std::string why;
};

namespace detail {
// A weight's dimensions other than its groups, rows and features (a convolution's filter taps), merged
// where both layouts allow into at most two (length, stride in w, stride in the packed copy) runs,
// outermost first; false where they do not fit in two.
struct weight_rest {
  int count = 0;
  index_t len[2] = {1, 1}, w_stride[2] = {1, 1}, packed_stride[2] = {1, 1};
};
template <class Desc>
bool merge_rest(const Desc& w, const Desc& packed, int g, int r, int f, weight_rest& out) {
  constexpr int R = Desc::rank;
  const array<int, R> order = memory_order(w);
  out = {};
  index_t len = 1, ws = 1, ps = 1;
  bool open = false;
  for (int i = 0; i < R; ++i) {
    const int d = order[i];
    if (d == g || d == r || d == f || w.length(d) == 1) continue;
    const index_t l = w.length(d), s = stride_of(w, d), s2 = stride_of(packed, d);
    if (open && ws == l * s && ps == l * s2) {  // d continues the run: one dimension of len * l
      len *= l, ws = s, ps = s2;
      continue;
    }
    if (open) {
      if (out.count == 2) return false;
      out.len[out.count] = len, out.w_stride[out.count] = ws, out.packed_stride[out.count] = ps, ++out.count;
    }
    len = l, ws = s, ps = s2, open = true;
  }
  if (open) {
    if (out.count == 2) return false;
    out.len[out.count] = len, out.w_stride[out.count] = ws, out.packed_stride[out.count] = ps, ++out.count;
  }
  return true;
}
inline auto rank6_of(const multi_index<6>& len, const multi_index<6>& str) {
  return make_naive_descriptor(as_tuple(len, iota<6>{}), as_tuple(str, iota<6>{}));
}
}  // namespace detail

// An activation [.., groups, .., features, ..] seen with groups / p groups of p times the features
// (the same memory: groups adjacent along the features).
template <class Desc>
Desc packed_activation(const Desc& d, int group_dim, int feature_dim, int p) {
  constexpr int R = Desc::rank;
  multi_index<R> len{}, str{};
  for (int i = 0; i < R; ++i) len[i] = d.length(i), str[i] = stride_of(d, i);
  len[group_dim] /= p, str[group_dim] *= p, len[feature_dim] *= p;
  return make_naive_descriptor(as_tuple(len, iota<R>{}), as_tuple(str, iota<R>{}));
}

// The packed weight's descriptor: [groups / p, p * rows, p * features, ...], packed in w's memory order.
template <class Desc>
Desc packed_weight(const Desc& w, int group_dim, int rows_dim, int feature_dim, int p) {
  multi_index<Desc::rank> len = w.lengths();
  len[group_dim] /= p, len[rows_dim] *= p, len[feature_dim] *= p;
  return make_ordered_descriptor(len, memory_order(w));
}

// The weight's elements as [groups / p, p, rows, features, rest, rest] (rank 6, relayout's form) in w
// (group j of pack q is group q * p + j), and where they lie on the packed copy's diagonal (block j:
// rows and features from j * rows, j * features). The packed copy is packed_weight(w, ...).
struct weight_diagonal {
  multi_index<6> len{}, w_stride{}, packed_stride{};
  bool ok = false;
};
template <class Desc>
weight_diagonal diagonal_of(const Desc& w, int group_dim, int rows_dim, int feature_dim, int p) {
  weight_diagonal r;
  const Desc packed = packed_weight(w, group_dim, rows_dim, feature_dim, p);
  detail::weight_rest rest;
  if (!detail::merge_rest(w, packed, group_dim, rows_dim, feature_dim, rest)) return r;
  const index_t rows = w.length(rows_dim), feats = w.length(feature_dim);
  const index_t sr = stride_of(packed, rows_dim), sf = stride_of(packed, feature_dim);
  r.len = {w.length(group_dim) / p, p, rows, feats, rest.len[0], rest.len[1]};
  r.w_stride = {p * stride_of(w, group_dim), stride_of(w, group_dim), stride_of(w, rows_dim), stride_of(w, feature_dim), rest.w_stride[0],
                rest.w_stride[1]};
  r.packed_stride = {stride_of(packed, group_dim), rows * sr + feats * sf, sr, sf, rest.packed_stride[0], rest.packed_stride[1]};
  r.ok = true;
  return r;
}
inline auto weight_view_desc(const weight_diagonal& d) { return detail::rank6_of(d.len, d.w_stride); }
inline auto diagonal_view_desc(const weight_diagonal& d) { return detail::rank6_of(d.len, d.packed_stride); }

// The packing of a batch's tensors (gemm_tensor, lowering/gemm_tensors.hpp) for a matrix-core width:
// the most groups p, a divisor of G, with p times the widest per-group dimension of the weight at most
// `width`. None where the batch has no grouped weight, a group has one channel on either side (depthwise:
// its own pipelines), the groups are wide already, an activation's groups are not adjacent along its
// features, or the weight's other dimensions do not fit relayout's rank 6.
template <class Tensor, int N>
group_pack choose_group_pack(const array<Tensor, N>& ts, index_t width) {
  group_pack r;
  auto no = [&](const std::string& why) {
    r.why = why;
    return r;
  };
  int weight = -1;
  for (int i = 0; i < N; ++i)
    if (ts[i].is_weight()) {
      if (weight >= 0) return no("two weights");
      weight = i;
    }
  if (weight < 0) return no("no grouped weight");
  const Tensor& w = ts[weight];
  const index_t G = w.desc.length(w.group_dim), rows = w.desc.length(w.rows_dim), feats = w.desc.length(w.feature_dim);
  if (G < 2) return no("one group");
  if (rows < 2 || feats < 2) return no("a group of one channel (depthwise)");
  const index_t widest = rows > feats ? rows : feats;
  if (2 * widest > width) return no("groups of " + std::to_string(widest) + " channels are wide enough");
  int p = 1;
  for (index_t q = 2; q <= G && q * widest <= width; ++q)
    if (G % q == 0) p = static_cast<int>(q);
  if (p < 2) return no("no divisor of the " + std::to_string(G) + " groups packs them");
  for (int i = 0; i < N; ++i) {
    if (i == weight) continue;
    const Tensor& t = ts[i];
    if (t.group_dim < 0 || t.desc.length(t.group_dim) != G) return no("tensor " + std::to_string(i) + " has no groups");
    if (stride_of(t.desc, t.group_dim) != t.desc.length(t.feature_dim) * stride_of(t.desc, t.feature_dim))
      return no("tensor " + std::to_string(i) + "'s groups are not adjacent along its channels");
  }
  if (!diagonal_of(w.desc, w.group_dim, w.rows_dim, w.feature_dim, p).ok) return no("the weight's other dimensions do not fit rank 6");
  r.groups = p;
  return r;
}

// The batch's tensors with p groups packed: activations re-viewed in place, the weight's descriptor the
// packed copy's (its pointer is the caller's to set).
template <class Tensor, int N>
array<Tensor, N> packed_tensors(const array<Tensor, N>& ts, int p) {
  array<Tensor, N> out = ts;
  for (int i = 0; i < N; ++i) {
    const Tensor& t = ts[i];
    out[i].desc = t.is_weight() ? packed_weight(t.desc, t.group_dim, t.rows_dim, t.feature_dim, p)
                                : packed_activation(t.desc, t.group_dim, t.feature_dim, p);
  }
  return out;
}
}  // namespace tg
