// relayout on the GPU. Two plain strided tensors of one element type (ordered descriptors: any
// permutation of dimensions) take the fast paths of relayout_strided.hpp: 16-byte words on both sides,
// through a shared-memory tile where the contiguous dimensions differ. Everything else (conversions,
// padded or transformed views, odd sizes) takes the generic kernel: a thread per destination element
// in the destination's memory order (coalesced stores), the source gathered through its descriptor.
#pragma once
#include <stdexcept>
#include <string>
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/order.hpp"
#include "lowering/gpu/path_report.hpp"
#include "lowering/gpu/relayout_strided.hpp"
#include "lowering/gpu/strided.hpp"
#include "lowering/relayout.hpp"

namespace tg {
namespace gpu_relayout {
template <class DstView, class SrcView>
__global__ void generic_kernel(DstView dst, SrcView src, multi_index<DstView::rank> len, array<int, DstView::rank> order) {
  index_t total = 1;
  for (int d = 0; d < DstView::rank; ++d) total *= len[d];
  for (index_t l = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; l < total; l += static_cast<index_t>(gridDim.x) * blockDim.x)
    copy_element(dst, src, index_in_order(l, len, order));
}

template <class T>
__global__ void __launch_bounds__(relayout_fast::block) rows_kernel(relayout_fast::plan p, const T* src, T* dst) {
  const int n = static_cast<int>(p.units);
  for (int u = blockIdx.x * relayout_fast::block + threadIdx.x; u < n; u += gridDim.x * relayout_fast::block) relayout_fast::copy_word(p, src, dst, u);
}

template <class T>
__global__ void __launch_bounds__(relayout_fast::block) transpose_kernel(relayout_fast::plan p, const T* src, T* dst) {
  using G = relayout_fast::geometry<T>;
  __shared__ T tile[G::smem_elems];
  const int n = static_cast<int>(p.units);
  if (!p.s_words) {  // element source side
    for (int u = blockIdx.x; u < n; u += gridDim.x) {
      const relayout_fast::tile_at at = relayout_fast::locate_tile(p, u, G::S);
      __syncthreads();  // the previous tile's stores have read the shared tile
      relayout_fast::load_elements(p, at, src, tile, threadIdx.x);
      __syncthreads();
      relayout_fast::store_tile(p, at, tile, dst, threadIdx.x);
    }
    return;
  }
  // Word source side, one tile ahead: the next tile's loads are in flight while this one is stored.
  relayout_fast::tile_words<T> w;
  int u = blockIdx.x;
  if (u >= n) return;
  relayout_fast::tile_at at = relayout_fast::locate_tile(p, u, G::S);
  relayout_fast::fetch_words(p, at, src, threadIdx.x, w);
  for (; u < n; u += gridDim.x) {
    __syncthreads();  // the previous tile's stores have read the shared tile
    relayout_fast::put_words(w, tile, threadIdx.x);
    __syncthreads();
    const relayout_fast::tile_at here = at;
    if (u + static_cast<int>(gridDim.x) < n) {
      at = relayout_fast::locate_tile(p, u + static_cast<int>(gridDim.x), G::S);
      relayout_fast::fetch_words(p, at, src, threadIdx.x, w);
    }
    relayout_fast::store_tile(p, here, tile, dst, threadIdx.x);
  }
}

// The fast path's plan, or kind::none with the reason.
template <class DstView, class SrcView>
relayout_fast::plan plan_of(const DstView& dst, const SrcView& src, std::string& why) {
  using TD = std::remove_const_t<typename DstView::value_type>;
  using TS = std::remove_const_t<typename SrcView::value_type>;
  constexpr int R = DstView::rank;
  if constexpr (!std::is_same_v<TD, TS>) {
    why = "an element-type conversion";
    return {};
  } else if constexpr (!gpu_fast::is_strided_v<typename DstView::desc_type> || !gpu_fast::is_strided_v<typename SrcView::desc_type>) {
    why = "a view that is not plain strided";
    return {};
  } else {
    const auto s32 = gpu_fast::strides_of(src.desc), d32 = gpu_fast::strides_of(dst.desc);  // origin 0, offsets < 2^31
    if (!s32.ok || !d32.ok) {
      why = "an offset past 2^31 or an origin other than the pointer";
      return {};
    }
    index_t len[R > 0 ? R : 1], ss[R > 0 ? R : 1], ds[R > 0 ? R : 1];
    for (int d = 0; d < R; ++d) len[d] = dst.desc.length(d), ss[d] = s32.s[d], ds[d] = d32.s[d];
    const bool aligned = gpu_fast::aligned16(src.data) && gpu_fast::aligned16(dst.data);
    relayout_fast::plan p = relayout_fast::make_plan<R>(len, ss, ds, src.desc.element_space, dst.desc.element_space, aligned,
                                                         static_cast<int>(sizeof(TD)), why);
    return p;
  }
}
}  // namespace gpu_relayout

template <class DstView, class SrcView>
void relayout(gpu_backend& be, const DstView& dst, const SrcView& src) {
  using T = std::remove_const_t<typename DstView::value_type>;
  constexpr int R = DstView::rank;
  if (!same_shape(dst, src)) throw std::invalid_argument("relayout: the source and destination views differ in shape");
  multi_index<R> len{};
  index_t total = 1;
  for (int d = 0; d < R; ++d) len[d] = dst.desc.length(d), total *= len[d];
  if (total == 0) return;
  std::string why;
  const relayout_fast::plan p = gpu_relayout::plan_of(dst, src, why);
  if constexpr (std::is_same_v<T, std::remove_const_t<typename SrcView::value_type>>) {  // the fast paths copy bits
    const int procs = be.processors();
    if (p.k == relayout_fast::kind::rows) {
      const long long blocks = (p.units + relayout_fast::block - 1) / relayout_fast::block, cap = 16LL * procs;
      TG_LAUNCH((gpu_relayout::rows_kernel<T>), static_cast<unsigned>(blocks < cap ? blocks : cap), relayout_fast::block, 0, be.stream, p,
                static_cast<const T*>(src.data), dst.data);
      report_relayout_path("relayout rows: 16-byte words along the shared contiguous dimension");
      return;
    }
    if (p.k == relayout_fast::kind::transpose) {  // persistent: the resident blocks, each walking tiles
      static const int resident = arch::resident_blocks(&gpu_relayout::transpose_kernel<T>, relayout_fast::block, 0);
      const long long cap = static_cast<long long>(resident) * procs;
      TG_LAUNCH((gpu_relayout::transpose_kernel<T>), static_cast<unsigned>(p.units < cap ? p.units : cap), relayout_fast::block, 0, be.stream,
                p, static_cast<const T*>(src.data), dst.data);
      report_relayout_path("relayout transpose: shared-memory tiles, 16-byte words on both sides");
      return;
    }
  }
  TG_LAUNCH((gpu_relayout::generic_kernel<DstView, SrcView>), grid_for(total, 256), 256, 0, be.stream, dst, src, len, memory_order(dst.desc));
  report_relayout_path("relayout generic: a thread per element (" + why + ")");
}
}  // namespace tg
