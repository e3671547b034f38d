// The GPU GEMM: which pipeline runs a batch. GEMMs of one column per group with the groups one element
// apart (channels-last depthwise) take the depthwise pipeline (gemm_depthwise.hpp) on every GPU, and
// single GEMMs of one row per group with the groups one element apart (channels-last depthwise
// backward weight) the sliding-window pipeline (gemm_sliding.hpp). Narrow groups (2-32 channels) run
// packed into block-diagonal groups of 64 channels (group_packing.hpp). On an
// sm_90a GPU, 16-bit GEMMs whose operands are TMA boxes (channels-last convolutions:
// lowering/gpu/boxes.hpp) take the warp-specialized TMA pipeline (lowering/gpu/tma_gemm/), and so do
// fp32 ones with K-major operands (tf32 tiles; TG_TMA_TF32=0 turns them off); everything else (AMD,
// sm_80, fp32 read MN-major, views that are not boxes) the cp.async pipeline of gemm.hpp. Channels-first tensors go through channels-last copies first (feature_last.hpp).
// TG_GEMM_PIPELINE=cp_async forces the latter (A/B runs).
#pragma once
#include <cstdlib>
#include <cstring>
#include <string>
#include "lowering/gpu/feature_last.hpp"
#include "lowering/gpu/gemm.hpp"
#include "lowering/gpu/gemm_depthwise.hpp"
#include "lowering/gpu/gemm_sliding.hpp"
#include "lowering/gpu/group_packing.hpp"
#include "lowering/gpu/path_report.hpp"
#if defined(__CUDACC__) && !defined(__HIP__)
#include "lowering/gpu/staged_gather.hpp"
#include "lowering/gpu/staged_sliding.hpp"
#include "lowering/gpu/tma_gemm/channels_first_tf32.hpp"
#include "lowering/gpu/tma_gemm/k_major_weights.hpp"
#include "lowering/gpu/tma_gemm/launch.hpp"
#endif

namespace tg {
template <class Batch>
void gemm(gpu_backend& be, const Batch& batch, gemm_epilogue ep = {}, gemm_policy pol = {}) {
  // TG_GEMM_PIPELINE=cp_async: the cp.async pipeline for every batch (A/B runs), read once.
  static const bool cp_async_only = [] {
    const char* env = std::getenv("TG_GEMM_PIPELINE");
    return env && std::strcmp(env, "cp_async") == 0;
  }();
  std::string why = "TG_GEMM_PIPELINE=cp_async";
#if defined(__CUDACC__) && !defined(__HIP__)
  // fp32 channels-first that the tf32 tiles read K-major as it lies (backward weight at stride 1).
  if (!cp_async_only && tma_gemm::run_channels_first(be, batch, ep, pol, why)) {
    report_gemm_path(why);
    return;
  }
#endif
  // Channels-first tensors: the GEMM on channels-last copies (the same batch type: no new instantiation).
  if (gemm_on_feature_last_copies(be, batch, ep, [&](const Batch& copies) { gemm(be, copies, ep, pol); })) return;
  // One column per group, groups one element apart (channels-last depthwise forward and backward data):
  // no matrix-core tile fits. On sm_90 windows of A staged by the TMA, the taps summed over shared
  // memory; elsewhere (or where that does not plan) the depthwise gather from global memory.
  std::string why_gather = "HIP build";
#if defined(__CUDACC__) && !defined(__HIP__)
  if (!cp_async_only && gpu_gemm::launch_staged_gather(be, batch, ep, why_gather)) {
    report_gemm_path(why_gather);
    return;
  }
#endif
  if (!cp_async_only && gpu_gemm::launch_depthwise(be, batch, ep, why)) {
    report_gemm_path(why + " (staged gather not taken: " + why_gather + ")");
    return;
  }
  // One row per group, groups one element apart, one long reduction (channels-last depthwise backward
  // weight): on sm_90 tiles of dy and x staged by the TMA, the filter taps sliding over shared memory;
  // elsewhere (or where that does not plan) each thread's taps slide along the output row in registers.
  std::string why_staged = "HIP build";
#if defined(__CUDACC__) && !defined(__HIP__)
  if (!cp_async_only && gpu_gemm::launch_staged_sliding(be, batch, ep, pol, why_staged)) {
    report_gemm_path(why_staged);
    return;
  }
#endif
  std::string why_sliding;
  if (!cp_async_only && gpu_gemm::launch_sliding(be, batch, ep, pol, why_sliding)) {
    report_gemm_path(why_sliding + " (staged sliding not taken: " + why_staged + ")");
    return;
  }
  // A few channels per group: p groups as one of p times the channels, its weight block-diagonal (the
  // same batch type again: no new instantiation).
  if (!cp_async_only && gemm_on_packed_groups(be, batch, ep, [&](const Batch& packed) { gemm(be, packed, ep, pol); })) return;
#if defined(__CUDACC__) && !defined(__HIP__)
  // fp32 with a weight read MN-major (backward data): on a rows-innermost copy of the weight (tf32 tiles).
  if (!cp_async_only && tma_gemm::run_on_k_major_weights(be, batch, ep, pol, why)) {
    report_gemm_path(why);
    return;
  }
  if (!cp_async_only && tma_gemm::run(be, batch, ep, pol, why)) {
    report_gemm_path(why);
    return;
  }
#else
  if (!cp_async_only) why = "HIP build";
#endif
  report_gemm_path("cp_async gemm (TMA pipeline not taken: " + why + ")");
  gemm_cp_async(be, batch, ep, pol);
}
}  // namespace tg
