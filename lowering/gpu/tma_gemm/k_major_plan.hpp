// Which of a batch's tensors the tf32 tiles need copied (host only, host-tested): a read weight whose
// rows are the GEMM's reduction and not innermost (backward data's w: dx = dy x w sums over the output
// channels K, w's contiguous dimension is C), copied with its rows innermost (feature_last.hpp's
// rows_last_of), and only where the views on the copies read every operand K-major, as tf32 wgmma must.
// The launch (k_major_weights.hpp) makes the copies and runs the batch on them.
#pragma once
#include "lowering/feature_last.hpp"
#include "lowering/gemm_tensors.hpp"
#include "lowering/gpu/tma_gemm/class_plan.hpp"

namespace tg::tma_gemm {
// The orientation for the tf32 tiles (orientation_of, 32-element k-tiles) of the batch's first GEMM that
// reads its operands; -1: none does.
template <class Batch>
int batch_orientation(const Batch& batch) {
  for (index_t t = 0; t < batch.count(); ++t) {
    const auto v = batch.views(t);
    if (v.m() > 0 && v.n() > 0 && v.k() > 0) return orientation_of<boxes::row_elems(4)>(v);
  }
  return -1;
}

// The tensors with the copies' descriptors (their data still the originals'), and which ones move; none
// moves where the batch is K-major already, is not boxes, or its copies would not make it K-major.
template <class Batch>
struct k_major_copies {
  static constexpr int N = Batch::tensor_count;
  array<typename Batch::tensor, N> tensors;
  bool move[N] = {};
  bool any = false;
};
template <class Batch>
k_major_copies<Batch> k_major_copies_of(const Batch& batch) {
  k_major_copies<Batch> r{batch.tensors};
  if (batch_orientation(batch) <= 0) return r;
  bool some = false;
  for (int i = 0; i < r.N; ++i) {
    const auto& t = batch.tensors[i];
    r.move[i] = t.is_weight() && !t.written && t.desc.length(t.rows_dim) > 1 && stride_of(t.desc, t.rows_dim) != 1;
    if (r.move[i]) r.tensors[i].desc = rows_last_of(t), some = true;
  }
  r.any = some && batch_orientation(batch.with_tensors(r.tensors)) == 0;
  return r;
}
}  // namespace tg::tma_gemm
