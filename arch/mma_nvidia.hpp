// NVIDIA warp-level tensor-core atoms (PTX `mma.sync`, sm_80 and newer): shape, per-lane fragment
// layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16 / mma.m16n8k8") and the instruction itself.
//
// Fragment order: element i of a lane's A/B fragment is the i-th element "low to high" of the PTX
// operand vector, so for 16-bit inputs element i sits in 32-bit register i/2, low half when i is
// even (see pack_b16x2). For tf32 each element is one 32-bit register. C/D: c[i] is element i.
// A is row-major and B column-major in the instruction's sense (`.row.col`); the coordinate maps
// already say which (row, col) each register holds, so memory layout is the caller's choice.
#pragma once
#include <cstdint>
#include "arch/atom.hpp"

// mma.sync.m16n8k16 (f16/bf16) and m16n8k8 (tf32) need sm_80. A device pass for an older GPU does
// not see `mma()` at all, so a kernel using it fails to compile there instead of misbehaving.
#if defined(__CUDACC__) && !defined(__HIP__) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800)
#define TG_NV_MMA_SYNC 1
#endif

namespace tg::arch {

// Two 16-bit patterns (f16 or bf16 bits) in one 32-bit operand register, `lo` in bits 0..15.
TG_FN std::uint32_t pack_b16x2(std::uint16_t lo, std::uint16_t hi) {
  return static_cast<std::uint32_t>(lo) | (static_cast<std::uint32_t>(hi) << 16);
}

namespace detail {
// Every m16n8 fragment is organised by quads: lanes 4g..4g+3 share rows g and g+8 of A/C and
// column g of B; the lane's place in its quad picks the columns (A, C) or k rows (B).
TG_FN int quad(int lane) { return lane >> 2; }
TG_FN int in_quad(int lane) { return lane & 3; }

// Layout shared by mma.m16n8k16 with .f16 and with .bf16 inputs.
struct m16n8k16_b16_layout {
  static constexpr int M = 16, N = 8, K = 16, lanes = 32;
  static constexpr int a_per_lane = 8, b_per_lane = 4, c_per_lane = 4;
  static constexpr int a_regs = 4, b_regs = 2;  // 32-bit registers holding a/b (two elements each)
  // a0,a1: (g, 2t..2t+1); a2,a3: row g+8; a4..a7: the same with k + 8.
  static TG_FN frag_coord a_coord(int lane, int i) {
    return {quad(lane) + 8 * ((i >> 1) & 1), 2 * in_quad(lane) + (i & 1) + 8 * (i >> 2)};
  }
  // b0,b1: k = 2t..2t+1; b2,b3: k + 8; n = g.
  static TG_FN frag_coord b_coord(int lane, int i) { return {2 * in_quad(lane) + (i & 1) + 8 * (i >> 1), quad(lane)}; }
  // c0,c1: (g, 2t..2t+1); c2,c3: row g+8.
  static TG_FN frag_coord c_coord(int lane, int i) { return {quad(lane) + 8 * (i >> 1), 2 * in_quad(lane) + (i & 1)}; }
};
}  // namespace detail

// D(f32 16x8) = A(f16 16x16) * B(f16 16x8) + C(f32).
struct mma_m16n8k16_f16 : detail::m16n8k16_b16_layout {
  static constexpr atom_input input = atom_input::f16;
  static constexpr const char* name = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
#if defined(TG_NV_MMA_SYNC)
  // c: accumulator in place; a, b: packed f16 pairs in a_coord/b_coord order.
  static __device__ inline void mma(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
  }
#endif
};

// D(f32 16x8) = A(bf16 16x16) * B(bf16 16x8) + C(f32); same fragment layout as the f16 atom.
struct mma_m16n8k16_bf16 : detail::m16n8k16_b16_layout {
  static constexpr atom_input input = atom_input::bf16;
  static constexpr const char* name = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
#if defined(TG_NV_MMA_SYNC)
  static __device__ inline void mma(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
  }
#endif
};

// D(f32 16x8) = A(tf32 16x8) * B(tf32 8x8) + C(f32). Inputs are fp32 values rounded to tf32
// (10-bit mantissa, round to nearest, ties away: cvt.rna.tf32.f32) before the multiply.
struct mma_m16n8k8_tf32 {
  static constexpr int M = 16, N = 8, K = 8, lanes = 32;
  static constexpr int a_per_lane = 4, b_per_lane = 2, c_per_lane = 4;
  static constexpr int a_regs = 4, b_regs = 2;
  static constexpr atom_input input = atom_input::tf32;
  static constexpr const char* name = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32";
  // a0: (g, t), a1: (g+8, t), a2: (g, t+4), a3: (g+8, t+4) -- rows alternate first, unlike f16.
  static TG_FN frag_coord a_coord(int lane, int i) {
    return {detail::quad(lane) + 8 * (i & 1), detail::in_quad(lane) + 4 * (i >> 1)};
  }
  // b0: k = t, b1: k = t+4; n = g.
  static TG_FN frag_coord b_coord(int lane, int i) { return {detail::in_quad(lane) + 4 * i, detail::quad(lane)}; }
  static TG_FN frag_coord c_coord(int lane, int i) {
    return {detail::quad(lane) + 8 * (i >> 1), 2 * detail::in_quad(lane) + (i & 1)};
  }
#if defined(TG_NV_MMA_SYNC)
  // fp32 -> tf32 bit pattern in a 32-bit register (low 13 bits zero), as the instruction expects.
  static __device__ inline std::uint32_t to_tf32(float x) {
    std::uint32_t r = 0;
#if defined(__CUDA_ARCH__)
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
#endif
    return r;
  }
  // a, b: tf32 bit patterns (to_tf32) in a_coord/b_coord order.
  static __device__ inline void mma(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__)
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
  }
  // Convenience: fp32 fragments, rounded to tf32 here.
  static __device__ inline void mma(float (&c)[4], const float (&a)[4], const float (&b)[2]) {
    const std::uint32_t ta[4] = {to_tf32(a[0]), to_tf32(a[1]), to_tf32(a[2]), to_tf32(a[3])};
    const std::uint32_t tb[2] = {to_tf32(b[0]), to_tf32(b[1])};
    mma(c, ta, tb);
  }
#endif
};

static_assert(matrix_atom<mma_m16n8k16_f16> && matrix_atom<mma_m16n8k16_bf16> && matrix_atom<mma_m16n8k8_tf32>);

}  // namespace tg::arch
