// The contract of a matrix-core atom: one warp/wave instruction computing D = A*B + C on an
// M x N x K tile, and where each lane keeps its share of A (M x K), B (K x N) and C (M x N).
// Lowering only needs the shape and the three (lane, element) -> tile-coordinate maps, so NVIDIA
// mma and AMD MFMA atoms look the same to it; only `mma()` (device code) is vendor specific.
#pragma once
#include <concepts>
#if defined(__HIP__)
// Debian's clang 15 + ROCm 5.2 does not pre-include HIP's wrapper, so __host__/__device__ (used by
// TG_FN and the atoms) exist only after this header.
#include <hip/hip_runtime.h>
#endif
#include "dsl/config.hpp"

namespace tg::arch {

// A position in an atom's tile. For B, row is k and col is n.
struct frag_coord {
  int row;
  int col;
  friend TG_FN bool operator==(frag_coord a, frag_coord b) { return a.row == b.row && a.col == b.col; }
  friend TG_FN bool operator!=(frag_coord a, frag_coord b) { return !(a == b); }
};

// Element type the atom multiplies (accumulation is fp32 for every atom here).
enum class atom_input { f16, bf16, tf32, f32 };

// Every lane holds the same number of elements, and lanes * per_lane covers each tile exactly
// (checked by tests/arch/atoms_test.cpp for the coordinate maps themselves).
template <class A>
concept matrix_atom = requires(int lane, int i) {
  { A::a_coord(lane, i) } -> std::same_as<frag_coord>;
  { A::b_coord(lane, i) } -> std::same_as<frag_coord>;
  { A::c_coord(lane, i) } -> std::same_as<frag_coord>;
} && A::lanes * A::a_per_lane == A::M * A::K && A::lanes * A::b_per_lane == A::K * A::N &&
                      A::lanes * A::c_per_lane == A::M * A::N;

}  // namespace tg::arch
