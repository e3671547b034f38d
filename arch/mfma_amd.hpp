// AMD CDNA matrix-core atoms (MFMA, wave64): shape, per-lane fragment layouts and the instruction.
//
// Every atom here is a single-block MFMA (one M x N x K product per instruction). The layouts are
// those of AMD's Matrix Instruction Calculator for gfx9 (CDNA1-3), with no CBSZ/ABID/BLGP:
//   A[i][k]: lane = i + M * (k / kp), element k % kp     (kp = K*M/64 elements of A per lane)
//   B[k][j]: lane = j + N * (k / kp), element k % kp
//   D[i][j]: lane = j + N * ((i / 4) % G), element 4 * (i / (4*G)) + i % 4   (G = 64 / N)
// Element e of a 16-bit fragment is VGPR e/2, bits [16*(e%2), 16*(e%2)+15], which is exactly the
// order of the clang vector types below; fp32 elements are one VGPR each.
//
// Availability (checked with llvm-mc-15 and clang-15):
//   f16 32x32x8 / 16x16x16 and f32 32x32x2: gfx908, gfx90a, gfx940
//   bf16 32x32x8_1k / 16x16x16_1k (4 bf16 per lane): gfx90a, gfx940 (gfx940 spells them _bf16)
//   bf16 32x32x4 (2 bf16 per lane, the CDNA1 form): gfx908, gfx90a; removed on gfx940
#pragma once
#include "arch/atom.hpp"

// Which atoms have mma() in this compilation pass: all of them in the host pass (kernel bodies
// are only parsed there), only the target's own in a device pass, so using a missing instruction
// is a compile error for that target. Kernels that must build for several targets test these.
#if defined(__HIP__)
#if defined(__HIP_DEVICE_COMPILE__)
#if defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define TG_MFMA_BASE 1
#endif
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define TG_MFMA_BF16_1K 1
#endif
#if defined(__gfx908__) || defined(__gfx90a__)
#define TG_MFMA_BF16_LEGACY 1
#endif
#else
#define TG_MFMA_BASE 1
#define TG_MFMA_BF16_1K 1
#define TG_MFMA_BF16_LEGACY 1
#endif
#endif

namespace tg::arch {

#if defined(__HIP__)
// Operand types of the clang builtins (clang 15: bf16 operands are passed as 16-bit integers).
namespace amd {
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef short bf16x2 __attribute__((ext_vector_type(2)));
typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef float f32x16 __attribute__((ext_vector_type(16)));
}  // namespace amd
#endif

// True where the atom's mma() (and its fragment types) exist in this compilation pass, so one
// template kernel can build for several targets: `if constexpr (mfma_available<Atom>)`.
template <class A>
concept mfma_available = requires { typename A::c_frag; };

namespace detail {
// Layout of a single-block wave64 MFMA with square output (M == N), see the header comment.
template <int M_, int N_, int K_>
struct mfma_layout {
  static_assert(M_ == N_ && 64 % M_ == 0 && (K_ * M_) % 64 == 0, "single-block square MFMA only");
  static constexpr int M = M_, N = N_, K = K_, lanes = 64;
  static constexpr int a_per_lane = M * K / 64, b_per_lane = K * N / 64, c_per_lane = M * N / 64;
  static constexpr int k_groups = 64 / M;  // lanes i, i+M, i+2M, ... hold successive k slices
  static TG_FN frag_coord a_coord(int lane, int i) { return {lane % M, a_per_lane * (lane / M) + i}; }
  static TG_FN frag_coord b_coord(int lane, int i) { return {b_per_lane * (lane / N) + i, lane % N}; }
  // Output rows come in runs of 4 per register group; the k_groups lane groups interleave them.
  static TG_FN frag_coord c_coord(int lane, int i) {
    return {4 * k_groups * (i / 4) + 4 * (lane / N) + i % 4, lane % N};
  }
};
}  // namespace detail

struct mfma_f32_32x32x8f16 : detail::mfma_layout<32, 32, 8> {
  static constexpr atom_input input = atom_input::f16;
  static constexpr const char* name = "v_mfma_f32_32x32x8f16";
#if defined(TG_MFMA_BASE)
  using a_frag = amd::f16x4;
  using b_frag = amd::f16x4;
  using c_frag = amd::f32x16;
  static __device__ inline void mma(c_frag& acc, const a_frag& a, const b_frag& b) {
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, acc, 0, 0, 0);
  }
#endif
};

struct mfma_f32_16x16x16f16 : detail::mfma_layout<16, 16, 16> {
  static constexpr atom_input input = atom_input::f16;
  static constexpr const char* name = "v_mfma_f32_16x16x16f16";
#if defined(TG_MFMA_BASE)
  using a_frag = amd::f16x4;
  using b_frag = amd::f16x4;
  using c_frag = amd::f32x4;
  static __device__ inline void mma(c_frag& acc, const a_frag& a, const b_frag& b) {
    acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, acc, 0, 0, 0);
  }
#endif
};

// bf16 with 4 elements per lane ("_1k"): same layout as the f16 atom of the same shape.
struct mfma_f32_32x32x8bf16_1k : detail::mfma_layout<32, 32, 8> {
  static constexpr atom_input input = atom_input::bf16;
  static constexpr const char* name = "v_mfma_f32_32x32x8bf16_1k";
#if defined(TG_MFMA_BF16_1K)
  using a_frag = amd::bf16x4;  // bf16 bit patterns
  using b_frag = amd::bf16x4;
  using c_frag = amd::f32x16;
  static __device__ inline void mma(c_frag& acc, const a_frag& a, const b_frag& b) {
    acc = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, acc, 0, 0, 0);
  }
#endif
};

struct mfma_f32_16x16x16bf16_1k : detail::mfma_layout<16, 16, 16> {
  static constexpr atom_input input = atom_input::bf16;
  static constexpr const char* name = "v_mfma_f32_16x16x16bf16_1k";
#if defined(TG_MFMA_BF16_1K)
  using a_frag = amd::bf16x4;
  using b_frag = amd::bf16x4;
  using c_frag = amd::f32x4;
  static __device__ inline void mma(c_frag& acc, const a_frag& a, const b_frag& b) {
    acc = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, acc, 0, 0, 0);
  }
#endif
};

// The CDNA1 bf16 form: 2 bf16 per lane, K = 4, single block (the two-block one is 32x32x2bf16).
// It is gfx908's only 32x32 bf16 MFMA; gfx90a keeps it, gfx940 dropped it for the _1k forms.
struct mfma_f32_32x32x4bf16 : detail::mfma_layout<32, 32, 4> {
  static constexpr atom_input input = atom_input::bf16;
  static constexpr const char* name = "v_mfma_f32_32x32x4bf16";
#if defined(TG_MFMA_BF16_LEGACY)
  using a_frag = amd::bf16x2;
  using b_frag = amd::bf16x2;
  using c_frag = amd::f32x16;
  static __device__ inline void mma(c_frag& acc, const a_frag& a, const b_frag& b) {
    acc = __builtin_amdgcn_mfma_f32_32x32x4bf16(a, b, acc, 0, 0, 0);
  }
#endif
};

// fp32: one element of A and B per lane, K = 2, single block (32x32x1f32 is the two-block form).
struct mfma_f32_32x32x2f32 : detail::mfma_layout<32, 32, 2> {
  static constexpr atom_input input = atom_input::f32;
  static constexpr const char* name = "v_mfma_f32_32x32x2f32";
#if defined(TG_MFMA_BASE)
  using a_frag = float;
  using b_frag = float;
  using c_frag = amd::f32x16;
  static __device__ inline void mma(c_frag& acc, a_frag a, b_frag b) {
    acc = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, acc, 0, 0, 0);
  }
#endif
};

static_assert(matrix_atom<mfma_f32_32x32x8f16> && matrix_atom<mfma_f32_16x16x16f16> &&
              matrix_atom<mfma_f32_32x32x8bf16_1k> && matrix_atom<mfma_f32_16x16x16bf16_1k> &&
              matrix_atom<mfma_f32_32x32x4bf16> && matrix_atom<mfma_f32_32x32x2f32>);

}  // namespace tg::arch
