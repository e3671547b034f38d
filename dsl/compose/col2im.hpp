// col2im: the backward-data view of a convolution (and the gather form of pooling backward).
//
// dx[hi] collects dy[ho] * w[k] over the pairs with ho * s + k * d = hi + pad_l. Split the positions
// by r = (hi + pad_l) mod s (CK's "tilde" decomposition). With g = gcd(s, d) only residues that are
// multiples of g receive anything; residue class i*d mod s (i in [0, s/g)) takes exactly the taps
// k = i + (s/g) * j, and then ho = H - carry_i - j * (d/g) with H = (hi + pad_l) div s. So each of
// the prod(s/g) tap classes is a dense GEMM with no divisibility test, and the dx slices of the
// classes are disjoint. The s - s/g residues that no tap reaches (only when g > 1) are appended as
// tapless classes, which a GEMM writes as zeros: all classes together cover dx exactly once.
#pragma once
#include "dsl/compose/group_dims.hpp"
#include "dsl/compose/window.hpp"
#include "dsl/transform/offset.hpp"

namespace tg {
struct col2im_dim {
  index_t in = 1, out = 1, win = 1, stride = 1, dilation = 1, pad_l = 0;
  // Derived once (kernels call the accessors per element): g = gcd(stride, dilation), the number of
  // tap classes stride / g, dilation / g, and the inverse of dilation / g modulo stride / g.
  index_t g_ = 1, n_tap_ = 1, d_g_ = 1, inv_ = 0;

  col2im_dim() = default;
  TG_FN explicit col2im_dim(const window_dim& w)
      : in(w.in), out(w.out()), win(w.win), stride(w.stride), dilation(w.dilation), pad_l(w.pad_l) {
    g_ = gcd(stride, dilation);
    n_tap_ = stride / g_;
    d_g_ = dilation / g_;
    inv_ = 0;
    while (n_tap_ > 1 && (inv_ * d_g_) % n_tap_ != 1) ++inv_;  // d/g and s/g are coprime: it exists
  }

  TG_FN index_t g() const { return g_; }
  TG_FN index_t tap_classes() const { return n_tap_; }  // classes that carry taps
  TG_FN index_t classes() const { return stride; }      // all residues of stride
  TG_FN index_t out_step() const { return d_g_; }       // ho decrease per tap step j
  TG_FN index_t residue(index_t i) const {
    if (i < n_tap_) return umod(i * dilation, stride);
    const index_t k = i - n_tap_;  // k-th residue that is not a multiple of g
    return udiv(k, g_ - 1) * g_ + umod(k, g_ - 1) + 1;
  }
  TG_FN index_t carry(index_t i) const { return i < n_tap_ ? udiv(i * dilation, stride) : 0; }
  TG_FN index_t taps(index_t i) const { return (i < n_tap_ && i < win) ? ceil_div(win - i, n_tap_) : 0; }
  TG_FN index_t first(index_t i) const { return ceil_div(pad_l - residue(i), stride); }
  TG_FN index_t rows(index_t i) const {
    const index_t n = floor_div(in - 1 + pad_l - residue(i), stride) - first(i) + 1;
    return n > 0 ? n : 0;
  }
  // Maps of class i: input row of its h-th row, output row and filter tap of its j-th tap.
  TG_FN index_t in_index(index_t i, index_t h) const { return (first(i) + h) * stride + residue(i) - pad_l; }
  TG_FN index_t out_index(index_t i, index_t h, index_t j) const { return first(i) + h - carry(i) - j * d_g_; }
  TG_FN index_t tap_index(index_t i, index_t j) const { return i + n_tap_ * j; }
  // The class and row of input position hi (inverse of in_index).
  TG_FN multi_index<2> locate(index_t hi) const {
    const index_t p = hi + pad_l, r = umod(p, stride);
    const index_t rg = udiv(r, g_), rm = r - rg * g_;
    const index_t i = rm == 0 ? umod(rg * inv_, n_tap_) : n_tap_ + rg * (g_ - 1) + rm - 1;
    return {{i, udiv(p - r, stride) - first(i)}};
  }
  // Where the taps of input position hi are: its first output row (tap j = 0), how far the output
  // row moves per tap, the first filter tap and its step, and the number of taps.
  struct gather_line { index_t out0, out_step, tap0, tap_step, taps; };
  TG_FN gather_line line_of(index_t hi) const {
    const auto ir = locate(hi);
    return {out_index(ir[0], ir[1], 0), d_g_, ir[0], n_tap_, taps(ir[0])};
  }
};

template <int NDim>
struct col2im {
  array<col2im_dim, NDim> dim;

  TG_FN explicit col2im(const window_geometry<NDim>& g) : dim{} { TG_UNROLL for (int d = 0; d < NDim; ++d) dim[d] = col2im_dim(g[d]); }
  TG_FN index_t classes() const { index_t n = 1; TG_UNROLL for (int d = 0; d < NDim; ++d) n *= dim[d].classes(); return n; }
  TG_FN index_t tap_classes() const { index_t n = 1; TG_UNROLL for (int d = 0; d < NDim; ++d) n *= dim[d].tap_classes(); return n; }
  // Class t as one class index per dimension (first dimension slowest).
  TG_FN multi_index<NDim> split(index_t t) const {
    multi_index<NDim> i{};
    TG_UNROLL for (int d = NDim - 1; d >= 0; --d) { i[d] = t % dim[d].classes(); t /= dim[d].classes(); }
    return i;
  }

  // The three GEMM views of class t, for canonical tensors dy [G, N, K, out...], w [G, K, C, taps...]
  // and dx [G, N, C, in...]:  A = dy [G, M = (N, rows...), K = (taps..., K)],
  // B = w [G, N = C, K = (taps..., K)], C = dx [G, M, N]. K is fastest in the reduction, so the
  // channels-last dy is read contiguously along it.
  template <class Ad>
  TG_FN auto dy_view(const descriptor<Ad>& dy, index_t t) const { return dy_view_impl(dy, split(t), iota<3 + NDim>{}); }
  template <class Aw>
  TG_FN auto w_view(const descriptor<Aw>& w, index_t t) const { return w_view_impl(w, split(t), iota<3 + NDim>{}); }
  template <class Ax>
  TG_FN auto dx_view(const descriptor<Ax>& dx, index_t t) const { return dx_view_impl(dx, split(t), iota<3 + NDim>{}); }

 private:
  using spatial = seq_range<3, 3 + NDim>;
  using taps_ids = seq_range<3 + NDim, 3 + 2 * NDim>;

  // dy: [G,N,K,out..] -pad-> -offset-> -embed (row h, tap j) -> [G,N,K,rows..,taps..] -group-> A.
  template <class Ad, int... D>
  TG_FN auto dy_view_impl(const descriptor<Ad>& dy, const multi_index<NDim>& i, seq<D...>) const {
    const auto len = dy.lengths();
    auto padded = transform(dy, tg::make_tuple(pad_for<D>(len, i)...), tg::make_tuple(seq<D>{}...), tg::make_tuple(seq<D>{}...));
    auto shifted = transform(padded, tg::make_tuple(offset_for<D>(len, i)...), tg::make_tuple(seq<D>{}...), tg::make_tuple(seq<D>{}...));
    auto rows_taps = transform(shifted, tg::make_tuple(rows_taps_for<D>(len, i)...), tg::make_tuple(seq<D>{}...),
                               tg::make_tuple(rows_taps_ids<D>()...));
    return group_dims(rows_taps, seq<0>{}, seq_cat<seq<1>, spatial>{}, seq_cat<taps_ids, seq<2>>{});
  }
  // w: [G,K,C,taps..] -offset (+i)-> -embed (j * s/g)-> [G,K,C,taps_i..] -group-> B = [G, C, (taps.., K)].
  template <class Aw, int... D>
  TG_FN auto w_view_impl(const descriptor<Aw>& w, const multi_index<NDim>& i, seq<D...>) const {
    const auto len = w.lengths();
    auto shifted = transform(w, tg::make_tuple(tap_offset_for<D>(len, i)...), tg::make_tuple(seq<D>{}...), tg::make_tuple(seq<D>{}...));
    auto strided = transform(shifted, tg::make_tuple(tap_embed_for<D>(len, i)...), tg::make_tuple(seq<D>{}...), tg::make_tuple(seq<D>{}...));
    return group_dims(strided, seq<0>{}, seq<2>{}, seq_cat<spatial, seq<1>>{});
  }
  // dx: [G,N,C,in..] -offset (base)-> -embed (h * s)-> [G,N,C,rows..] -group-> C = [G, (N, rows..), C].
  template <class Ax, int... D>
  TG_FN auto dx_view_impl(const descriptor<Ax>& dx, const multi_index<NDim>& i, seq<D...>) const {
    const auto len = dx.lengths();
    auto shifted = transform(dx, tg::make_tuple(row_offset_for<D>(len, i)...), tg::make_tuple(seq<D>{}...), tg::make_tuple(seq<D>{}...));
    auto strided = transform(shifted, tg::make_tuple(row_embed_for<D>(len, i)...), tg::make_tuple(seq<D>{}...), tg::make_tuple(seq<D>{}...));
    return group_dims(strided, seq<0>{}, seq_cat<seq<1>, spatial>{}, seq<2>{});
  }

  // Per-dimension pieces; dimensions below 3 pass through.
  template <int D>
  TG_FN index_t dy_pad_left(const multi_index<NDim>& i) const {
    const auto& c = dim[D - 3];
    const index_t lowest = c.out_index(i[D - 3], 0, c.taps(i[D - 3]) - 1);
    return lowest < 0 ? -lowest : 0;
  }
  template <int D, int R>
  TG_FN auto pad_for(const multi_index<R>& len, const multi_index<NDim>& i) const {
    if constexpr (D < 3) { return pass_through<index_t>{len[D]}; } else {
      const auto& c = dim[D - 3];
      const index_t highest = c.out_index(i[D - 3], c.rows(i[D - 3]) - 1, 0);
      const index_t right = highest >= len[D] ? highest - len[D] + 1 : 0;
      return pad<index_t, index_t, index_t>{len[D], dy_pad_left<D>(i), right};
    }
  }
  template <int D, int R>
  TG_FN auto offset_for(const multi_index<R>& len, const multi_index<NDim>& i) const {
    if constexpr (D < 3) { return pass_through<index_t>{len[D]}; } else {
      const auto& c = dim[D - 3];
      return offset<index_t, index_t>{c.rows(i[D - 3]), c.out_index(i[D - 3], 0, 0) + dy_pad_left<D>(i)};
    }
  }
  template <int D, int R>
  TG_FN auto rows_taps_for(const multi_index<R>& len, const multi_index<NDim>& i) const {
    using E = embed<tuple<index_t, index_t>, tuple<index_t, index_t>>;
    if constexpr (D < 3) { return pass_through<index_t>{len[D]}; } else {
      const auto& c = dim[D - 3];
      return E{tg::make_tuple(c.rows(i[D - 3]), c.taps(i[D - 3])), tg::make_tuple(index_t{1}, -c.out_step())};
    }
  }
  template <int D>
  static constexpr auto rows_taps_ids() {
    if constexpr (D < 3) return seq<D>{}; else return seq<D, D + NDim>{};
  }
  template <int D, int R>
  TG_FN auto tap_offset_for(const multi_index<R>& len, const multi_index<NDim>& i) const {
    if constexpr (D < 3) return pass_through<index_t>{len[D]};
    else return offset<index_t, index_t>{len[D], i[D - 3]};
  }
  template <int D, int R>
  TG_FN auto tap_embed_for(const multi_index<R>& len, const multi_index<NDim>& i) const {
    using E = embed<tuple<index_t>, tuple<index_t>>;
    if constexpr (D < 3) return pass_through<index_t>{len[D]};
    else return E{tg::make_tuple(dim[D - 3].taps(i[D - 3])), tg::make_tuple(dim[D - 3].tap_classes())};
  }
  template <int D, int R>
  TG_FN auto row_offset_for(const multi_index<R>& len, const multi_index<NDim>& i) const {
    if constexpr (D < 3) return pass_through<index_t>{len[D]};
    else return offset<index_t, index_t>{len[D], dim[D - 3].in_index(i[D - 3], 0)};
  }
  template <int D, int R>
  TG_FN auto row_embed_for(const multi_index<R>& len, const multi_index<NDim>& i) const {
    using E = embed<tuple<index_t>, tuple<index_t>>;
    if constexpr (D < 3) return pass_through<index_t>{len[D]};
    else return E{tg::make_tuple(dim[D - 3].rows(i[D - 3])), tg::make_tuple(dim[D - 3].stride)};
  }
};
}  // namespace tg
