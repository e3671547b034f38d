// The TMA GEMM's shared memory: the stage ring (A and B tiles, each 1024-byte aligned for the 128-byte
// swizzle), the epilogue's staging tiles and row tables, and the full/empty barrier pairs.
#pragma once
#include <cstdint>
#include "lowering/gpu/tma_gemm/plan.hpp"

namespace tg::tma_gemm {
template <class E, class P>
struct smem {
  unsigned char* base;  // 1024-byte aligned
  __device__ explicit smem(unsigned char* raw)
      : base(reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(raw) + 1023) / 1024 * 1024)) {}
  __device__ E* a(int stage) const { return reinterpret_cast<E*>(base + stage * P::stage_bytes); }
  __device__ E* b(int stage) const { return reinterpret_cast<E*>(base + stage * P::stage_bytes + P::a_bytes); }
  __device__ E* staging(int wg) const { return reinterpret_cast<E*>(base + P::stages * P::stage_bytes) + wg * 64 * P::staging_pitch; }
  __device__ long long* rows(int wg) const {  // [64] C offsets (-1: past the tile's edge), then [64] merged m
    return reinterpret_cast<long long*>(base + P::stages * P::stage_bytes + P::staging_bytes) + wg * 128;
  }
  __device__ std::uint64_t* full(int stage) const {
    return reinterpret_cast<std::uint64_t*>(base + P::stages * P::stage_bytes + P::staging_bytes + P::row_bytes) + stage;
  }
  __device__ std::uint64_t* empty(int stage) const { return full(P::stages) + stage; }
};

// A position in the stage ring and the parity of its current phase.
template <int S>
struct ring {
  int stage = 0;
  std::uint32_t phase = 0;
  __device__ void advance() {
    if (++stage == S) stage = 0, phase ^= 1;
  }
};
}  // namespace tg::tma_gemm
