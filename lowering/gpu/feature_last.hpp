// Channels-first GEMMs on channels-last copies (a schedule of the GPU lowering, not of the op programs):
// where a batch's tensors keep their feature dimension (a convolution's channels) strided, the GEMM
// pipelines fetch one element per channel step, and no 16-byte copy or TMA box fits. This runs such a
// GEMM as relayout (the strided tensors read into feature-last scratch copies) -> the GEMM on the copies
// (the fast channels-last plans) -> relayout of the written tensor back. The copies live in the
// backend's second arena (`copies`), taken in one piece so that the GEMM's own scratch cannot move them;
// a problem whose copies do not fit in device memory fails before anything runs, naming the bytes.
// TG_FEATURE_LAST=0 turns it off (A/B runs).
#pragma once
#include <cstdlib>
#include <cstring>
#include <string>
#include "lowering/feature_last.hpp"
#include "lowering/gemm.hpp"
#include "lowering/gemm_tensors.hpp"
#include "lowering/gpu/backend.hpp"
#include "lowering/gpu/path_report.hpp"
#include "lowering/gpu/relayout.hpp"

namespace tg {
inline bool feature_last_enabled() {
  static const bool on = [] {
    const char* e = std::getenv("TG_FEATURE_LAST");
    return !(e && std::strcmp(e, "0") == 0);
  }();
  return on;
}

// Runs `run(batch on the copies)` when some tensor's feature dimension is strided; false (nothing done)
// otherwise.
template <class Batch, class Run>
bool gemm_on_feature_last_copies(gpu_backend& be, const Batch& batch, gemm_epilogue ep, const Run& run) {
  if constexpr (!has_gemm_tensors<Batch>::value) {
    return false;
  } else {
    constexpr int N = Batch::tensor_count;
    using tensor = typename Batch::tensor;
    using T = std::remove_pointer_t<decltype(tensor::data)>;
    if (!feature_last_enabled()) return false;
    array<tensor, N> moved = batch.tensors;
    bool move[N] = {}, any = false;
    std::size_t offset[N] = {}, bytes = 0;
    for (int i = 0; i < N; ++i) {
      const tensor& t = batch.tensors[i];
      move[i] = moves_to_feature_last(t);
      any = any || move[i];
      if (!move[i]) continue;
      moved[i].desc = feature_last_of(t);
      offset[i] = bytes;
      bytes += (static_cast<std::size_t>(t.desc.size()) * sizeof(T) + 255) / 256 * 256;
    }
    if (!any) return false;
    auto* base = static_cast<unsigned char*>(be.copies->take(bytes, be.stream));  // throws scratch_shortfall, naming the bytes
    std::string line = "feature-last copies (" + std::to_string(bytes) + " bytes of scratch) of tensor";
    for (int i = 0; i < N; ++i) {
      if (!move[i]) continue;
      line += " " + std::to_string(i);
      moved[i].data = reinterpret_cast<T*>(base + offset[i]);
      const tensor& t = batch.tensors[i];
      if (!t.written || ep.op == epilogue_op::accumulate)  // the GEMM reads it (accumulate reads the old C)
        relayout(be, make_view(moved[i].data, as_rank6(moved[i].desc)), make_view(t.in(), as_rank6(t.desc)));
    }
    report_gemm_path(line + ": the GEMM runs channels-last");
    run(batch.with_tensors(moved));
    for (int i = 0; i < N; ++i)
      if (move[i] && batch.tensors[i].written)
        relayout(be, make_view(batch.tensors[i].data, as_rank6(batch.tensors[i].desc)), make_view(moved[i].in(), as_rank6(moved[i].desc)));
    return true;
  }
}
}  // namespace tg
