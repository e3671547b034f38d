// The TMA GEMM's shared memory: the stage ring (A and B tiles, each 1024-byte aligned for the 128-byte
// swizzle), the landing slots of the MN-major tf32 tile (plan.hpp: mn_tf32_tile), the consumer warps'
// staging rows of C, the full/empty barrier pairs, a word for the split-K handshake and the landing
// slots' barrier pairs.
#pragma once
#include <cstdint>
#include "arch/mbarrier_nvidia.hpp"
#include "lowering/gpu/tma_gemm/plan.hpp"

namespace tg::tma_gemm {
// The first 1024-byte boundary at or after raw: where the 128-byte swizzle's pattern starts (the launch
// asks for 1024 bytes of slack). An offset added to raw, not a rounded integer made a pointer: the
// compiler then still knows every pointer into the ring is shared memory and emits LDS/STS, where a
// pointer from an integer gets generic accesses (resolved per access, waited on as L1TEX operations).
__device__ inline unsigned char* swizzle_aligned(unsigned char* raw) {
  return raw + ((1024u - (arch::smem_addr(raw) & 1023u)) & 1023u);
}

template <class E, class P>
struct smem {
  unsigned char* base;  // 1024-byte aligned
  __device__ explicit smem(unsigned char* raw) : base(swizzle_aligned(raw)) {}
  __device__ E* a(int stage) const { return reinterpret_cast<E*>(base + stage * P::stage_bytes); }
  __device__ E* b(int stage) const { return reinterpret_cast<E*>(base + stage * P::stage_bytes + P::a_bytes); }
  static constexpr int slot_bytes = (P::stages + P::landing_slots) * P::stage_bytes;
  // Consumer warp w's staging rows of C (epilogue.hpp), after the ring and the landing slots.
  __device__ unsigned char* c_rows(int w) const { return base + slot_bytes + w * P::epi_warp_bytes; }
  __device__ std::uint64_t* full(int stage) const { return reinterpret_cast<std::uint64_t*>(base + slot_bytes + P::epi_bytes) + stage; }
  __device__ std::uint64_t* empty(int stage) const { return full(P::stages) + stage; }
  // One word the consumers share: whether their unit is a split tile's last (split_reduce.hpp).
  __device__ unsigned* last_split() const { return reinterpret_cast<unsigned*>(empty(P::stages)); }
  // Landing slot i (MN-major boxes before their transposition) and its barriers.
  __device__ E* land_a(int i) const { return a(P::stages + i); }
  __device__ E* land_b(int i) const { return b(P::stages + i); }
  __device__ std::uint64_t* land_full(int i) const { return empty(P::stages) + 1 + i; }
  __device__ std::uint64_t* land_empty(int i) const { return land_full(P::landing_slots) + i; }
  // Where the producer's boxes go: the landing slots where the tile has them, else the stages.
  static constexpr int load_slots = P::landing_slots > 0 ? P::landing_slots : P::stages;
  __device__ E* load_a(int i) const { return P::landing_slots > 0 ? land_a(i) : a(i); }
  __device__ E* load_b(int i) const { return P::landing_slots > 0 ? land_b(i) : b(i); }
  __device__ std::uint64_t* load_full(int i) const { return P::landing_slots > 0 ? land_full(i) : full(i); }
  __device__ std::uint64_t* load_empty(int i) const { return P::landing_slots > 0 ? land_empty(i) : empty(i); }
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
