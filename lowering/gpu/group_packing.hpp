// Narrow groups on the matrix cores (a schedule of the GPU lowering, not of the op programs): a
// grouped convolution with a few channels per group runs as one with p times fewer, p times wider
// groups whose weight is block-diagonal (lowering/group_packing.hpp has the layouts and the choice).
// The activations are re-viewed in place; the weight is a scratch copy from the backend's `packs`
// arena, zeroed and given the weight's blocks on its diagonal (relayout), and where the GEMM writes it
// (backward weight) its diagonal blocks are copied back. Zero weights multiply the other groups of a
// pack, so a non-finite activation (Inf, NaN) reaches the outputs of every group of its pack in the
// forward and backward data (0 x Inf = NaN); backward weight discards those products.
// TG_GROUP_PACKING=0 turns it off; TG_GROUP_PACK_WIDTH sets the packed width (A/B runs).
#pragma once
#include <cstdlib>
#include <cstring>
#include <string>
#include "lowering/gemm.hpp"
#include "lowering/gemm_tensors.hpp"
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/path_report.hpp"
#include "lowering/gpu/relayout.hpp"
#include "lowering/group_packing.hpp"

namespace tg {
// The packed groups' width in channels: one 128-byte k-tile row of 16-bit channels per tap, the TMA
// pipeline's narrowest tile (read once).
inline index_t group_pack_width() {
  static const index_t w = [] {
    const char* e = std::getenv("TG_GROUP_PACKING");
    if (e && std::strcmp(e, "0") == 0) return index_t{0};
    const char* v = std::getenv("TG_GROUP_PACK_WIDTH");
    return v ? static_cast<index_t>(std::atoll(v)) : index_t{64};
  }();
  return w;
}

// Runs `run(batch with p groups packed)` where the batch's groups are narrow; false (nothing done)
// otherwise.
template <class Batch, class Run>
bool gemm_on_packed_groups(gpu_backend& be, const Batch& batch, gemm_epilogue ep, const Run& run) {
  if constexpr (!has_gemm_tensors<Batch>::value) {
    return false;
  } else {
    constexpr int N = Batch::tensor_count;
    using tensor = typename Batch::tensor;
    using T = std::remove_pointer_t<decltype(tensor::data)>;
    if (group_pack_width() < 4) return false;
    const group_pack pk = choose_group_pack(batch.tensors, group_pack_width());
    if (pk.groups < 2) return false;
    array<tensor, N> packed = packed_tensors(batch.tensors, pk.groups);
    int wi = 0;
    for (int i = 0; i < N; ++i)
      if (batch.tensors[i].is_weight()) wi = i;
    const tensor& w = batch.tensors[wi];
    const std::size_t bytes = static_cast<std::size_t>(packed[wi].desc.element_space) * sizeof(T);
    packed[wi].data = static_cast<T*>(be.packs->take(bytes, be.stream));  // throws scratch_shortfall, naming the bytes
    const weight_diagonal diag = diagonal_of(w.desc, w.group_dim, w.rows_dim, w.feature_dim, pk.groups);
    const auto on_w = make_view(w.data, weight_view_desc(diag));
    const auto on_packed = make_view(packed[wi].data, diagonal_view_desc(diag));
    if (!w.written || ep.op == epilogue_op::accumulate) {  // the GEMM reads it (accumulate reads the old values)
      arch::zero_bytes_async(packed[wi].data, bytes, be.stream);
      relayout(be, on_packed, make_view(w.in(), weight_view_desc(diag)));
    }
    report_gemm_path("groups packed " + std::to_string(pk.groups) + " at a time (a block-diagonal weight of " + std::to_string(bytes) +
                     " bytes of scratch): " + std::to_string(w.desc.length(w.group_dim) / pk.groups) + " groups of " +
                     std::to_string(packed[wi].desc.length(w.rows_dim)) + " x " + std::to_string(packed[wi].desc.length(w.feature_dim)) +
                     " channels");
    run(batch.with_tensors(packed));
    if (w.written) relayout(be, on_w, make_view(static_cast<const T*>(packed[wi].data), diagonal_view_desc(diag)));
    return true;
  }
}
}  // namespace tg
