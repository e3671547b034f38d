// fp32 channels-first backward weight on the tf32 tiles as its tensors lie, without feature-last
// copies (a schedule of the GPU lowering, not of the op programs). tf32 wgmma reads K-major tiles
// only, and a batch that writes its weight (dW = dy x im2col(x)^T sums over the output positions) is
// K-major on both sides channels-first: the positions are dy's contiguous axis, and x's at stride 1
// (the plans take the k digit where a k digit and a filter column both step w: boxes::contiguous_digit
// for 32-bit rows). The feature-last copies would make both operands MN-major (the channels
// contiguous) and so keep the GEMM off the tf32 tiles. A filter column that shifts w by one element a
// tap puts x's boxes off the 16-byte boundaries the TMA needs (boxes::corners_aligned), and rows of a
// width that is not a multiple of 4 have no tensor map, so this takes 1x1 layers of such widths (and
// filters dilated and padded in whole 16 bytes along w); where the plans refuse the views (those,
// stride 2), the caller goes on to the copies. On by default (TG_TMA_TF32_CHANNELS_FIRST=0 turns it
// off): ResNet-50's two 56x56 1x1 layers 6.3-6.6x faster than on the copies, at the tf32 tiles'
// precision (relative error against PyTorch about 9e-4 as on the other tf32 paths, 1.4e-5 on the
// copies; section 39).
#pragma once
#include <string>
#include "lowering/feature_last.hpp"
#include "lowering/gemm_tensors.hpp"
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/tma_gemm/launch.hpp"

namespace tg::tma_gemm {
template <class Batch>
bool run_channels_first(gpu_backend& be, const Batch& batch, gemm_epilogue ep, gemm_policy pol, std::string& why) {
  if constexpr (!is_fp32_tensor_batch<Batch>()) {
    return false;
  } else {
    const schedule& s = sm90_schedule();
    if (!s.tf32 || !s.tf32_channels_first) return false;
    // Some tensor the feature-last copies would move, and a batch that writes its weight: the reduction
    // over output positions, whose plans on this path are the ones host-checked and run on a GPU (a
    // forward whose w stride is a multiple of 4 could plan K-major over its filter columns: untested).
    bool channels_first = false, writes_weight = false;
    for (int i = 0; i < Batch::tensor_count; ++i) {
      channels_first = channels_first || moves_to_feature_last(batch.tensors[i]);
      writes_weight = writes_weight || (batch.tensors[i].written && batch.tensors[i].is_weight());
    }
    if (!channels_first || !writes_weight) return false;
    std::string no;
    if (!run(be, batch, ep, pol, no)) return false;
    why = "channels-first on tf32 tiles as they are, " + no;
    return true;
  }
}
}  // namespace tg::tma_gemm
