// Which consumer the cp.async GEMM takes on the target being compiled: wgmma from the shared tiles
// (sm_90a, 16-bit atoms, whole warpgroups), ldmatrix + mma.sync (NVIDIA's 16-bit atoms elsewhere), or
// register fragments through load_tile (AMD MFMA, NVIDIA tf32). Each consumer is a file whole for its
// matrix-core family, with one interface: row(i) / col(j) of accumulator block (i, j), multiply(acc,
// a, b) for one k-tile, wait<Pending>(acc), and `async` (a batch left in flight across the next fill).
#pragma once
#include "lowering/gpu/gemm_consumer_fragments.hpp"
#include "lowering/gpu/gemm_consumer_ldmatrix.hpp"
#include "lowering/gpu/gemm_consumer_wgmma.hpp"

namespace tg {
namespace gpu_gemm {
template <class Policy, class E, int Threads>
using gemm_consumer =
    std::conditional_t<wgmma_tile<arch::default_atom<E>, Policy, Threads>, wgmma_consumer<Policy, E, Threads>,
                       std::conditional_t<ldmatrix_fragments<arch::default_atom<E>>, ldmatrix_consumer<Policy, E, Threads>,
                                          fragment_consumer<Policy, E, Threads>>>;
}  // namespace gpu_gemm
}  // namespace tg
