// fp32 GEMMs on the TMA pipeline's tf32 tiles need both operands K-major: tf32 wgmma has no transposed
// tiles. Where a read weight's rows are the GEMM's reduction (backward data's w: dx = dy x w sums over
// the output channels K, and w's contiguous dimension is C, a row of the GEMM), the batch runs on a copy
// of the weight with its rows innermost (lowering/feature_last.hpp's rows_last_of: G K YX C -> G YX C K;
// a small tensor beside the activations), taken only where the views on the copy have every operand
// K-major. The copy comes from the backend's `k_major` arena (apart from the feature-last copies and the
// packed groups it may run under). A schedule of the GPU lowering, not of the op programs; taken with
// the tf32 tiles (TG_TMA_TF32=0 turns both off). Which tensors move: k_major_plan.hpp (host-tested).
#pragma once
#include <string>
#include "lowering/feature_last.hpp"
#include "lowering/gemm_tensors.hpp"
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/relayout.hpp"
#include "lowering/gpu/tma_gemm/k_major_plan.hpp"
#include "lowering/gpu/tma_gemm/launch.hpp"

namespace tg::tma_gemm {
// Runs the batch on the TMA pipeline over rows-innermost copies of its read weights where that makes an
// fp32 batch's operands K-major (k_major_plan.hpp); false (with why, nothing launched) where it does not
// apply or the pipeline refuses the copies' views (the caller then runs the batch as it is).
template <class Batch>
bool run_on_k_major_weights(gpu_backend& be, const Batch& batch, gemm_epilogue ep, gemm_policy pol, std::string& why) {
  if constexpr (!is_fp32_tensor_batch<Batch>()) {
    return false;
  } else {
    if (!sm90_schedule().tf32) return false;
    k_major_copies<Batch> c = k_major_copies_of(batch);
    if (!c.any) return false;
    std::size_t offset[k_major_copies<Batch>::N] = {}, bytes = 0;
    for (int i = 0; i < c.N; ++i)
      if (c.move[i]) offset[i] = bytes, bytes += (static_cast<std::size_t>(c.tensors[i].desc.size()) * sizeof(float) + 255) / 256 * 256;
    auto* base = static_cast<unsigned char*>(be.k_major->take(bytes, be.stream));  // throws scratch_shortfall, naming the bytes
    for (int i = 0; i < c.N; ++i) {
      if (!c.move[i]) continue;
      c.tensors[i].data = reinterpret_cast<float*>(base + offset[i]);
      const auto& t = batch.tensors[i];
      relayout(be, make_view(c.tensors[i].data, as_rank6(c.tensors[i].desc)), make_view(t.in(), as_rank6(t.desc)));
    }
    if (!run(be, batch.with_tensors(c.tensors), ep, pol, why)) return false;
    why = "the weight copied with its rows innermost (" + std::to_string(bytes) + " bytes of scratch), " + why;
    return true;
  }
}
}  // namespace tg::tma_gemm
