// Which windowed fast path a problem takes (the routes in 32-bit, the views' strides), and its launch;
// false where none applies and the generic kernel runs.
#pragma once
#include "lowering/gpu/window_gather_lanes.hpp"
#include "lowering/gpu/window_single.hpp"

namespace tg {
namespace gpu_window {
// The 32-bit route of a host route, when there is one.
template <int ND, class Route>
struct fast_route_of {
  static constexpr bool on = false;
};
template <int ND, class IdxView>
struct fast_route_of<ND, index_route<ND, IdxView>> {
  static constexpr bool on = gpu_fast::is_strided_v<typename IdxView::desc_type> &&
                             std::is_same_v<std::remove_cv_t<typename IdxView::value_type>, std::int32_t>;
  using type = fast_index;
  // idx must have dy's strides (it is the forward pass's output, so it does).
  static bool make(const index_route<ND, IdxView>& r, const gpu_fast::strides32<2 + ND>& dy, type& f) {
    const auto s = gpu_fast::strides_of(r.idx.desc);
    bool same = s.ok;
    for (int d = 0; d < 2 + ND; ++d) same = same && s.s[d] == dy.s[d];
    f = {r.idx.data};
    return same;
  }
};
template <int ND>
struct fast_route_of<ND, mean_route<ND>> {
  static constexpr bool on = true;
  using type = fast_mean<ND>;
  static bool make(const mean_route<ND>& r, const gpu_fast::strides32<2 + ND>&, type& f) {
    index_t vol = 1;
    f.include_pad = r.count_include_pad;
    for (int d = 0; d < ND; ++d) {
      vol *= r.g[d].win;
      f.in[d] = static_cast<int>(r.g[d].in);
      f.win[d] = static_cast<int>(r.g[d].win);
      f.stride[d] = static_cast<int>(r.g[d].stride);
      f.dilation[d] = static_cast<int>(r.g[d].dilation);
      f.pad_l[d] = static_cast<int>(r.g[d].pad_l);
    }
    f.inv_volume = 1.0f / static_cast<float>(vol);
    return true;
  }
};

// Launches a fast kernel when the views allow one; false: the caller runs the generic kernel.
template <int ND, class DyView, class DxView, class Route>
bool try_fast_gather(gpu_backend& be, const window_geometry<ND>& wg, const DyView& dy, const DxView& dx, const Route& route) {
  using FRo = fast_route_of<ND, Route>;
  using T = std::remove_const_t<typename DxView::value_type>;
  if constexpr (!FRo::on || !gpu_fast::is_strided_v<typename DyView::desc_type> || !gpu_fast::is_strided_v<typename DxView::desc_type> ||
                !std::is_same_v<std::remove_const_t<typename DyView::value_type>, T>) {
    return false;
  } else {
    constexpr int V = gpu_fast::vec_of<T>;
    const auto sx = gpu_fast::strides_of(dx.desc), sy = gpu_fast::strides_of(dy.desc);
    typename FRo::type fr{};
    if (!sx.ok || !sy.ok || !FRo::make(route, sy, fr)) return false;
    const col2im<ND> c2(wg);
    fast_geometry<ND> g{};
    g.N = static_cast<int>(dx.desc.length(0));
    g.C = static_cast<int>(dx.desc.length(1));
    index_t entries = 0, total = g.N * static_cast<index_t>(g.C);
    for (int d = 0; d < ND; ++d) {
      g.in[d] = static_cast<int>(wg[d].in);
      g.out[d] = static_cast<int>(wg[d].out());
      g.dx_s[d] = sx.s[2 + d];
      g.dy_s[d] = sy.s[2 + d];
      entries += wg[d].in;
      total *= wg[d].in;
    }
    g.dx_n = sx.s[0]; g.dx_c = sx.s[1]; g.dy_n = sy.s[0]; g.dy_c = sy.s[1];
    if (total >= (index_t{1} << 31) || total == 0) return false;
    // Every 16-byte access must stay aligned: the base pointers, and every stride it moves by.
    auto multiple = [&](const int* s, int k) { bool ok = true; for (int i = 0; i < k; ++i) ok = ok && s[i] % V == 0; return ok; };
    const unsigned block = 256;
    auto grid = [&](index_t units) {
      const index_t want = (units + block - 1) / block, cap = static_cast<index_t>(be.processors()) * 8;
      return static_cast<unsigned>(want < cap ? want : cap);
    };
    const bool cl_aligned = g.dx_c == 1 && g.dy_c == 1 && g.C % V == 0 && gpu_fast::aligned16(dx.data) && gpu_fast::aligned16(dy.data) &&
                            g.dx_n % V == 0 && g.dy_n % V == 0 && multiple(g.dx_s, ND) && multiple(g.dy_s, ND);
    const bool rows_aligned = g.dx_s[ND - 1] == 1 && g.in[ND - 1] % V == 0 && gpu_fast::aligned16(dx.data) && g.dx_n % V == 0 &&
                              g.dx_c % V == 0 && multiple(g.dx_s, ND - 1);
    if constexpr (std::is_same_v<typename FRo::type, fast_mean<ND>>) {
      bool single = true;
      for (int d = 0; d < ND; ++d) single = single && fr.dilation[d] == 1 && fr.stride[d] >= fr.win[d];
      single = single && (cl_aligned || rows_aligned);  // the divisors below exist only for these two layouts
      single_divs<ND> q{};
      if (single) {
        q.lanes = gpu_fast::fast_div(cl_aligned ? g.C / V : g.in[ND - 1] / V);
        q.C = gpu_fast::fast_div(g.C);
        for (int d = 0; d < ND; ++d) { q.in[d] = gpu_fast::fast_div(g.in[d]); q.stride[d] = gpu_fast::fast_div(fr.stride[d]); }
      }
      if (single && cl_aligned) {
        TG_LAUNCH((mean_single_kernel<ND, T, true>), grid(total / V), block, 0, be.stream, g, fr, q, dy.data, dx.data);
        return true;
      }
      if (single && rows_aligned) {
        TG_LAUNCH((mean_single_kernel<ND, T, false>), grid(total / V), block, 0, be.stream, g, fr, q, dy.data, dx.data);
        return true;
      }
      if constexpr (ND == 3) {
        if (try_mean_box(be, g, fr, cl_aligned, rows_aligned, dy.data, dx.data)) return true;
      }
    }
    if (entries > max_table) return false;
    bool index_aligned = true;
    if constexpr (std::is_same_v<typename FRo::type, fast_index>) index_aligned = gpu_fast::aligned16(fr.idx);
    const unsigned smem = static_cast<unsigned>(entries * sizeof(line32));
    if (cl_aligned && index_aligned) {
      TG_LAUNCH((gather_channels_last_kernel<ND, T, typename FRo::type>), grid(total / V), block, smem, be.stream, g, c2, dy.data, dx.data, fr);
      return true;
    }
    if constexpr (ND == 2 && std::is_same_v<typename FRo::type, fast_index>) {
      if (rows_aligned && try_gather_rows_lanes<T>(be, wg, g, c2, dy.data, dx.data, fr, smem, grid(total / V))) return true;
    }
    if (rows_aligned) {
      TG_LAUNCH((gather_rows_kernel<ND, T, typename FRo::type>), grid(total / V), block, smem, be.stream, g, c2, dy.data, dx.data, fr);
      return true;
    }
    return false;
  }
}
}  // namespace gpu_window
}  // namespace tg
