// Windowed reductions for pooling, in gather form: each dx element collects from the windows that
// contain it (found through col2im's classes, no divisibility tests), so no atomics are needed and
// the result is bit-reproducible. Tensors are [N, C, spatial...] views; the window geometry is the
// forward pass's. What a window contributes is a "route":
//   argmax_route   dy goes to the window's argmax, recomputed from x (ties: first; NaN: wins)
//   index_route    dy goes to the input position stored by the forward pass
//   mean_route     dy / divisor goes to every valid position of the window
#pragma once
#include "dsl/compose/col2im.hpp"
#include "dsl/compose/window.hpp"
#include "dsl/index_space.hpp"
#include "dsl/tensor_view.hpp"

namespace tg {
struct window_max {
  float value;
  index_t tap;  // row-major tap index of the winner; -1 when the window holds only padding
};

// The forward result of one window: its maximum and the flat input position of the winner
// (-1 when the window lies entirely in padding, as PyTorch).
template <int ND>
TG_FN index_t winner_position(const window_geometry<ND>& g, const multi_index<ND>& ho, index_t tap) {
  if (tap < 0) return -1;
  multi_index<ND> taps{}, in{}, hi{};
  TG_UNROLL for (int d = 0; d < ND; ++d) { taps[d] = g[d].win; in[d] = g[d].in; }
  const multi_index<ND> t = unflatten(tap, taps);
  TG_UNROLL for (int d = 0; d < ND; ++d) hi[d] = ho[d] * g[d].stride + t[d] * g[d].dilation - g[d].pad_l;
  return flatten(hi, in);
}

template <int ND>
TG_FN bool next_tap(multi_index<2 + 2 * ND>& i, const multi_index<ND>& taps) {
  bool carry = true;
  TG_UNROLL for (int d = ND - 1; d >= 0; --d) {
    if (carry) {
      carry = ++i[2 + ND + d] >= taps[d];
      if (carry) i[2 + ND + d] = 0;
    }
  }
  return !carry;
}

// Max over one window of the [N, C, out..., taps...] window view. PyTorch's rule: a value wins if it
// is greater than the current one or is NaN, so ties keep the first and NaN is the maximum; padding
// never takes part.
template <int ND, class XWin>
TG_FN window_max max_of_window(const XWin& xw, index_t n, index_t c, const multi_index<ND>& ho, const multi_index<ND>& taps) {
  window_max best{-__builtin_huge_valf(), -1};  // -inf: a window of padding only (dilation > 1) has no maximum
  multi_index<2 + 2 * ND> i{};
  i[0] = n; i[1] = c;
  TG_UNROLL for (int d = 0; d < ND; ++d) { i[2 + d] = ho[d]; i[2 + ND + d] = 0; }
  index_t t = 0;
  do {
    if (xw.desc.is_valid(i)) {
      const float v = to_float(xw.data[xw.desc.offset(i)]);
      if (best.tap < 0 || v > best.value || v != v) best = {v, t};
    }
    ++t;
  } while (next_tap<ND>(i, taps));
  return best;
}

template <int ND, class XWin>
struct argmax_route {
  XWin xw;  // window view of x: [N, C, out..., taps...]
  multi_index<ND> taps;
  TG_FN float weight(index_t n, index_t c, const multi_index<ND>& ho, index_t tap, const multi_index<ND>&) const {
    return max_of_window<ND>(xw, n, c, ho, taps).tap == tap ? 1.0f : 0.0f;
  }
};

template <int ND, class IdxView>
struct index_route {
  IdxView idx;                // [N, C, out...] int32: flat input position (row-major over the spatial dims)
  multi_index<ND> in_lengths;
  TG_FN float weight(index_t n, index_t c, const multi_index<ND>& ho, index_t, const multi_index<ND>& hi) const {
    multi_index<2 + ND> i{};
    i[0] = n; i[1] = c;
    TG_UNROLL for (int d = 0; d < ND; ++d) i[2 + d] = ho[d];
    return idx.data[idx.desc.offset(i)] == flatten(hi, in_lengths) ? 1.0f : 0.0f;
  }
};

template <int ND>
struct mean_route {
  window_geometry<ND> g;
  bool count_include_pad;  // divisor: whole window volume (PyTorch default) or valid positions only
  TG_FN float weight(index_t, index_t, const multi_index<ND>& ho, index_t, const multi_index<ND>&) const {
    index_t div = 1;
    if (count_include_pad) {
      TG_UNROLL for (int d = 0; d < ND; ++d) div *= g[d].win;
      return 1.0f / static_cast<float>(div);
    }
    TG_UNROLL for (int d = 0; d < ND; ++d) div *= g[d].taps_inside(ho[d]);
    return div > 0 ? 1.0f / static_cast<float>(div) : 0.0f;
  }
};

// The gather lines of one dx element, one per spatial dimension (col2im_dim::line_of).
template <int ND>
struct gather_lines {
  typename col2im_dim::gather_line d[ND];
};
template <int ND>
TG_FN gather_lines<ND> lines_of(const col2im<ND>& c2, const multi_index<ND>& hi) {
  gather_lines<ND> l{};
  TG_UNROLL for (int d = 0; d < ND; ++d) l.d[d] = c2.dim[d].line_of(hi[d]);
  return l;
}

// dx element (n, c, hi...) of the gather: the sum over its windows, in a fixed order. The lines
// carry all the index arithmetic that needs divisions, so a kernel may take them from a table.
template <int ND, class DyView, class Route>
TG_FN float gather_one(const col2im<ND>& c2, const gather_lines<ND>& line, const DyView& dy, const Route& route,
                       index_t n, index_t c, const multi_index<ND>& hi) {
  multi_index<ND> taps{}, j{};
  bool none = false;
  TG_UNROLL for (int d = 0; d < ND; ++d) {
    taps[d] = line.d[d].taps;
    j[d] = 0;
    none = none || taps[d] == 0;
  }
  if (none) return 0.0f;
  float acc = 0.0f;
  do {
    multi_index<2 + ND> o{};
    multi_index<ND> ho{};
    o[0] = n; o[1] = c;
    bool inside = true;
    index_t tap = 0;
    TG_UNROLL for (int d = 0; d < ND; ++d) {
      ho[d] = line.d[d].out0 - j[d] * line.d[d].out_step;
      inside = inside && ho[d] >= 0 && ho[d] < c2.dim[d].out;
      o[2 + d] = ho[d];
      tap = tap * c2.dim[d].win + line.d[d].tap0 + line.d[d].tap_step * j[d];
    }
    if (inside) {
      const float w = route.weight(n, c, ho, tap, hi);
      if (w != 0.0f) acc += to_float(dy.data[dy.desc.offset(o)]) * w;
    }
  } while (next_index(j, taps));
  return acc;
}
}  // namespace tg
