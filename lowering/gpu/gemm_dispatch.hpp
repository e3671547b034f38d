// The GPU GEMM: which pipeline runs a batch. GEMMs of one column per group with the groups one element
// apart (channels-last depthwise) take the depthwise pipeline (gemm_depthwise.hpp) on every GPU. On an
// sm_90a GPU, 16-bit GEMMs whose operands are TMA boxes (channels-last convolutions:
// lowering/gpu/boxes.hpp) take the warp-specialized TMA pipeline (lowering/gpu/tma_gemm/); everything else (AMD, sm_80, fp32, views that are not boxes) the cp.async
// pipeline of gemm.hpp. Channels-first tensors go through channels-last copies first (feature_last.hpp).
// TG_GEMM_PIPELINE=cp_async forces the latter (A/B runs).
#pragma once
#include <string>
#include "lowering/gpu/feature_last.hpp"
#include "lowering/gpu/gemm.hpp"
#include "lowering/gpu/gemm_depthwise.hpp"
#include "lowering/gpu/path_report.hpp"
#if defined(__CUDACC__) && !defined(__HIP__)
#include "lowering/gpu/tma_gemm/launch.hpp"
#endif

namespace tg {
template <class Batch>
void gemm(gpu_backend& be, const Batch& batch, gemm_epilogue ep = {}, gemm_policy pol = {}) {
  // Channels-first tensors: the GEMM on channels-last copies (the same batch type: no new instantiation).
  if (gemm_on_feature_last_copies(be, batch, ep, [&](const Batch& copies) { gemm(be, copies, ep, pol); })) return;
  // One column per group, groups one element apart (channels-last depthwise): no matrix-core tile fits.
  std::string why;
  if (gpu_gemm::launch_depthwise(be, batch, ep, why)) {
    report_gemm_path(why);
    return;
  }
  why = "HIP build";
#if defined(__CUDACC__) && !defined(__HIP__)
  if (tma_gemm::run(be, batch, ep, pol, why)) {
    report_gemm_path(why);
    return;
  }
#endif
  report_gemm_path("cp_async gemm (TMA pipeline not taken: " + why + ")");
  gemm_cp_async(be, batch, ep, pol);
}
}  // namespace tg
