// Views whose top stage is separable (group_dims: each transform reads one top dimension). That stage
// holds all the merge divisions of a GEMM or row view, so kernels evaluate it per top dimension (once
// per tile row, per k, per block row) and per element only combine the parts and walk the stages
// below it. Used by the GEMM tile loads and the row kernels.
#pragma once
#include <type_traits>
#include "dsl/tensor_view.hpp"

namespace tg {
template <class View>
struct split_view {
  using chain_t = typename View::desc_type::adaptor_type;
  using top_t = typename chain_t::template stage_t<0>;
  static constexpr bool on = top_t::separable && top_t::always_valid && chain_t::n_stages > 1;
  static constexpr int n1 = top_t::n_lower;  // the level below the top stage
  using parts = multi_index<n1>;
  using elem = std::remove_const_t<typename View::value_type>;
};

// The top stage at one top index: with all but one coordinate zero, the part of that dimension.
template <class View>
TG_HD inline typename split_view<View>::parts top_part(const View& v, const multi_index<View::rank>& at) {
  return get<0>(v.desc.chain.stages).lower(at);
}

// The level-1 index of an element from the parts: component j comes from the top dimension it
// depends on (lower_source, compile-time); part(d, j) is component j of dimension d's part.
template <class View, class Part>
TG_HD inline typename split_view<View>::parts combine_parts(const Part& part) {
  constexpr auto src = split_view<View>::top_t::lower_source();
  typename split_view<View>::parts l{};
  TG_UNROLL for (int j = 0; j < split_view<View>::n1; ++j) l[j] = part(src[j], j);
  return l;
}

template <class View, class Part>
TG_HD inline typename split_view<View>::elem load_split(const View& v, const Part& part) {
  const auto l = combine_parts<View>(part);
  const auto& ch = v.desc.chain;
  return ch.template valid_from<1>(l) ? v.data[ch.template bottom_from<1>(l)[0]] : from_float<typename split_view<View>::elem>(0.0f);
}

template <class View, class Part>
TG_HD inline void store_split(const View& v, const Part& part, typename split_view<View>::elem x) {
  const auto l = combine_parts<View>(part);
  const auto& ch = v.desc.chain;
  if (ch.template valid_from<1>(l)) v.data[ch.template bottom_from<1>(l)[0]] = x;
}
}  // namespace tg

namespace tg {
// Affine split views: the top stage is separable and every stage below it is affine, so the offset of
// an element and the coordinates its guards (pads) test are sums of one part per top dimension:
//   offset(g, r, k) = row(g, r).off + col(k).off,   guard_i(g, r, k) = row(g, r).guard[i] + col(k).guard[i],
// with the group folded into the row part and the k part taken relative to the origin. Kernels
// tabulate the parts per tile row and per k, then an element costs two table reads and an add per
// guard. `run` marks an entry that starts V elements which are one run of memory at the top level:
// they differ in one level-1 component only, by one per step, and their offsets by one per step.
template <class View>
struct affine_split {
  using chain = typename View::desc_type::adaptor_type;
  static constexpr bool on = split_view<View>::on && chain::template affine_from<1>();
  static constexpr int n_guards = chain::template guards_from<1>();
  struct entry {
    index_t off;
    int guard[n_guards > 0 ? n_guards : 1];
    int run;
  };
  // BK consecutive k entries from k0 (a GEMM k-tile) summarised: `uniform` when all lie below K, share
  // the first one's guards and each lies `step` further in memory than the one before. Then element
  // (row entry r, k0 + j) is at r.off + off + j * step and valid iff the guards of (r, first) hold:
  // one test per tile row, no k entry per element (channels-last convolutions: a k-tile inside one
  // filter position).
  struct alignas(16) k_tile {  // whole 16-byte pieces: the GEMM copies them ahead asynchronously
    index_t off, step;
    int guard[n_guards > 0 ? n_guards : 1];
    int uniform;
  };
};

namespace detail {
// The level-1 index of `at` restricted to the components that come from top dimensions d0 or d1.
template <class View>
TG_HD inline typename split_view<View>::parts only_from(const View& v, const multi_index<View::rank>& at, int d0, int d1) {
  constexpr auto src = split_view<View>::top_t::lower_source();
  const auto full = top_part(v, at);
  typename split_view<View>::parts l{};
  TG_UNROLL for (int j = 0; j < split_view<View>::n1; ++j) l[j] = src[j] == d0 || src[j] == d1 ? full[j] : 0;
  return l;
}
template <class View>
TG_HD inline typename affine_split<View>::entry entry_at(const View& v, const typename split_view<View>::parts& l) {
  using A = affine_split<View>;
  typename A::entry e{};
  e.off = v.desc.chain.template bottom_from<1>(l)[0];
  index_t g[A::n_guards > 0 ? A::n_guards : 1];
  v.desc.chain.template guard_coords<1>(l, g);
  TG_UNROLL for (int i = 0; i < A::n_guards; ++i) e.guard[i] = static_cast<int>(g[i]);
  return e;
}
}  // namespace detail

// Entry of coordinate x along top dimension `dim` (1: rows, with the group g folded in; 2: k,
// relative to the origin) of a [G, rows, K] view; run: whether x .. x+V-1 is one memory run.
template <int V, class View>
TG_HD inline typename affine_split<View>::entry affine_entry(const View& v, index_t g, int dim, index_t x) {
  using A = affine_split<View>;
  auto at = [&](index_t y) { return dim == 1 ? multi_index<3>{{g, y, 0}} : multi_index<3>{{0, 0, y}}; };
  const int other = dim == 1 ? 0 : dim;
  const auto l0 = detail::only_from(v, at(x), dim, other);
  auto e = detail::entry_at(v, l0);
  e.run = 0;
  if (V > 1 && x % V == 0) {  // only aligned entries start pieces (a run of one element is never asked for)
    const auto l1 = detail::only_from(v, at(x + V - 1), dim, other);
    int moved = 0;
    bool by_run = true;
    TG_UNROLL for (int j = 0; j < split_view<View>::n1; ++j) {
      const index_t d = l1[j] - l0[j];
      moved += d != 0 ? 1 : 0;
      by_run = by_run && (d == 0 || d == V - 1);
    }
    e.run = moved == 1 && by_run && detail::entry_at(v, l1).off - e.off == V - 1;
  }
  if (dim == 2) {  // relative to the origin, whose offset and guards the row entries carry
    const auto z = detail::entry_at(v, typename split_view<View>::parts{});
    e.off -= z.off;
    TG_UNROLL for (int i = 0; i < A::n_guards; ++i) e.guard[i] -= z.guard[i];
  }
  return e;
}

// Whether group g of a [G, rows, K] view lies g elements after group 0 with the same guards, for
// every g: then the groups of one (row, k) are a run of memory, padding or not together (channels-last
// depthwise). Offsets and guards are sums of a group part and a row part, so row 0 tells for all rows.
template <class View>
TG_HD inline bool unit_groups(const View& v) {
  using A = affine_split<View>;
  const auto e0 = affine_entry<1>(v, 0, 1, 0);
  for (index_t g = 1; g < v.desc.length(0); ++g) {
    const auto e = affine_entry<1>(v, g, 1, 0);
    if (e.off - e0.off != g) return false;
    TG_UNROLL for (int i = 0; i < A::n_guards; ++i) if (e.guard[i] != e0.guard[i]) return false;
  }
  return true;
}

// Whether the guards (pads) of row part r plus k part k hold: the element is not padding.
template <class View, class KPart>
TG_HD inline bool affine_valid(const View& v, const typename affine_split<View>::entry& r, const KPart& k) {
  using A = affine_split<View>;
  index_t g[A::n_guards > 0 ? A::n_guards : 1];
  TG_UNROLL for (int i = 0; i < A::n_guards; ++i) g[i] = static_cast<index_t>(r.guard[i] + k.guard[i]);
  return v.desc.chain.template guards_valid<1>(g);
}

// The element (row entry r, k entry k): its offset, or -1 where a guard fails (padding).
template <class View>
TG_HD inline index_t affine_offset(const View& v, const typename affine_split<View>::entry& r, const typename affine_split<View>::entry& k) {
  return affine_valid(v, r, k) ? r.off + k.off : -1;
}

// affine_valid with one part fixed, worked out once: for a k_tile kt (a GPU fill or drain, once per
// tile) guard i of row entry r holds iff (unsigned)(r.guard[i] + bias[i]) < count[i], bias folding in
// the fixed part's guards and the guard's box start (guard_boxes); the same with a row entry fixed and
// the k entries varying (the small-M GEMM, once per row). An element's validity then costs an add and
// a compare per guard, in 32 bits (entries hold guard coordinates as int already), with no read of
// the view.
template <class View>
struct affine_tile_guards {
  static constexpr int n = affine_split<View>::n_guards > 0 ? affine_split<View>::n_guards : 1;
  int bias[n];
  unsigned count[n];
  template <class Part>  // affine_split<View>::k_tile or ::entry
  TG_HD affine_tile_guards(const View& v, const Part& fixed) {
    index_t first[n], cnt[n];
    v.desc.chain.template guard_boxes<1>(first, cnt);
    TG_UNROLL for (int i = 0; i < affine_split<View>::n_guards; ++i) {
      bias[i] = static_cast<int>(fixed.guard[i] - first[i]);
      count[i] = static_cast<unsigned>(cnt[i]);
    }
  }
  template <class Entry>
  TG_HD bool holds(const Entry& r) const {
    bool ok = true;
    TG_UNROLL for (int i = 0; i < affine_split<View>::n_guards; ++i) ok = ok && static_cast<unsigned>(r.guard[i] + bias[i]) < count[i];
    return ok;
  }
};

// The k_tile line through entries f (at j = 0) and s (at j = 1), not yet tested for uniformity.
template <class View>
TG_HD inline typename affine_split<View>::k_tile affine_k_line(const typename affine_split<View>::entry& f, const typename affine_split<View>::entry& s) {
  using A = affine_split<View>;
  typename A::k_tile t{};
  t.off = f.off;
  t.step = s.off - f.off;
  TG_UNROLL for (int i = 0; i < A::n_guards; ++i) t.guard[i] = f.guard[i];
  return t;
}

// Whether entry e is the j-th point of the line t: its guards are the line's, its offset j steps on.
template <class View>
TG_HD inline bool on_k_line(const typename affine_split<View>::entry& e, const typename affine_split<View>::k_tile& t, index_t j) {
  bool on = e.off == t.off + j * t.step;
  TG_UNROLL for (int i = 0; i < affine_split<View>::n_guards; ++i) on = on && e.guard[i] == t.guard[i];
  return on;
}

// Whether entry b is entry a moved by `step` (offset and each of the NG guards): consecutive k entries
// along an output row, or filter taps one k step apart (the sliding-window pipeline).
template <class Entry, int NG>
TG_HD constexpr bool moved_by(const Entry& a, const Entry& b, const Entry& step) {
  bool same = b.off - a.off == step.off;
  for (int i = 0; i < NG; ++i) same = same && b.guard[i] - a.guard[i] == step.guard[i];
  return same;
}

// The k_tile of entries ks[k0 .. k0 + BK) (entries of k < K only are read).
template <int BK, class View>
TG_HD inline typename affine_split<View>::k_tile affine_k_tile(const typename affine_split<View>::entry* ks, index_t k0, index_t K) {
  auto t = affine_k_line<View>(ks[k0], ks[k0 + 1 < K ? k0 + 1 : k0]);
  bool same = k0 + BK <= K;
  for (int j = 1; same && j < BK; ++j) same = on_k_line<View>(ks[k0 + j], t, j);
  t.uniform = same;
  return t;
}
}  // namespace tg
