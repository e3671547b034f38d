// Implicit GEMM over descriptor views: C[g, m, n] = epilogue(sum_k A[g, m, k] * B[g, n, k]).
// A, B, C are tensor_views of any chain (im2col, col2im classes, plain matrices), so convolutions
// are GEMMs without materialised matrices. A batch is one or more GEMMs whose views share a type
// (the col2im classes), all run by one launch.
#pragma once
#include <type_traits>
#include "dsl/tensor_view.hpp"

namespace tg {
template <class A, class B, class C>
struct gemm_views {
  A a;  // [G, M, K]
  B b;  // [G, N, K]
  C c;  // [G, M, N]
  TG_FN index_t groups() const { return a.desc.length(0); }
  TG_FN index_t m() const { return a.desc.length(1); }
  TG_FN index_t n() const { return b.desc.length(1); }
  TG_FN index_t k() const { return a.desc.length(2); }
};
template <class A, class B, class C>
TG_FN gemm_views<A, B, C> make_gemm_views(A a, B b, C c) { return {a, b, c}; }

// A batch of one GEMM.
template <class Views>
struct single_gemm {
  static constexpr bool one_gemm = true;
  Views v;
  TG_FN index_t count() const { return 1; }
  TG_FN Views views(index_t) const { return v; }
};
template <class Views>
TG_FN single_gemm<Views> single(Views v) { return {v}; }

// One GEMM (its tile choices differ from a batch's: backward weight's long reductions), by the batch's
// `one_gemm` flag (single_gemm, and tensor_batch of lowering/gemm_tensors.hpp).
template <class Batch, class = void>
struct is_single_gemm : std::false_type {};
template <class Batch>
struct is_single_gemm<Batch, std::enable_if_t<Batch::one_gemm>> : std::true_type {};

enum class epilogue_op { store, accumulate };
struct gemm_epilogue {
  float alpha = 1.0f;
  epilogue_op op = epilogue_op::store;  // store: c = alpha * acc; accumulate: c += alpha * acc
  TG_FN float apply(float acc, float old) const { return op == epilogue_op::store ? alpha * acc : old + alpha * acc; }
};

// Split-K: the K range is cut into k_splits chunks. Deterministic adds the partial sums in chunk
// order (a workspace on the GPU); atomic lets chunks add into C as they finish (faster, not
// bit-reproducible; only with epilogue store into fp32 C).
enum class split_k_mode { deterministic, atomic };
struct gemm_policy {
  int k_splits = 0;  // 0: the backend chooses (the GPU splits when the tiles alone cannot fill it)
  split_k_mode mode = split_k_mode::deterministic;
};
}  // namespace tg
