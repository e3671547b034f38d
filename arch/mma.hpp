// One matrix-core step on element arrays: c += a * b, with a, b and c held per lane in the order of
// the atom's a_coord / b_coord / c_coord. Kernels in lowering/ stage operands as tilegrad element
// types (half_t, bf16_t, float) and call this; the packing into registers or vector types of each
// vendor's instruction stays here. default_atom<E> is the per-target choice of atom for an element type.
#pragma once
#include "arch/mfma_amd.hpp"
#include "arch/mma_nvidia.hpp"
#include "dsl/numeric.hpp"

namespace tg::arch {
#if defined(__HIP__)
// AMD, wave64. bf16: the 4-element _1k form where it exists, the CDNA1 form on gfx908.
template <class E> struct default_atom_t;
template <> struct default_atom_t<half_t> { using type = mfma_f32_32x32x8f16; };
template <> struct default_atom_t<float> { using type = mfma_f32_32x32x2f32; };
#if defined(__HIP_DEVICE_COMPILE__) && defined(__gfx908__)
template <> struct default_atom_t<bf16_t> { using type = mfma_f32_32x32x4bf16; };
#else
template <> struct default_atom_t<bf16_t> { using type = mfma_f32_32x32x8bf16_1k; };
#endif
#else
// NVIDIA, warp32: mma.sync (sm_80 and sm_90); fp32 operands go through tf32.
template <class E> struct default_atom_t;
template <> struct default_atom_t<half_t> { using type = mma_m16n8k16_f16; };
template <> struct default_atom_t<bf16_t> { using type = mma_m16n8k16_bf16; };
template <> struct default_atom_t<float> { using type = mma_m16n8k8_tf32; };
#endif
template <class E>
using default_atom = typename default_atom_t<E>::type;

#if defined(TG_NV_MMA_SYNC)
template <class Atom, class E>
__device__ inline void mma(float (&c)[Atom::c_per_lane], const E (&a)[Atom::a_per_lane], const E (&b)[Atom::b_per_lane]) {
  if constexpr (Atom::input == atom_input::tf32) {
    Atom::mma(c, a, b);
  } else {
    std::uint32_t ra[Atom::a_per_lane / 2], rb[Atom::b_per_lane / 2];
    for (int i = 0; i < Atom::a_per_lane / 2; ++i) ra[i] = pack_b16x2(a[2 * i].bits, a[2 * i + 1].bits);
    for (int i = 0; i < Atom::b_per_lane / 2; ++i) rb[i] = pack_b16x2(b[2 * i].bits, b[2 * i + 1].bits);
    Atom::mma(c, ra, rb);
  }
}
#endif

#if defined(__HIP__)
template <class Atom, class E>
__device__ inline void mma(float (&c)[Atom::c_per_lane], const E (&a)[Atom::a_per_lane], const E (&b)[Atom::b_per_lane]) {
  if constexpr (mfma_available<Atom>) {
    typename Atom::a_frag fa;
    typename Atom::b_frag fb;
    typename Atom::c_frag fc;
    for (int i = 0; i < Atom::a_per_lane; ++i) {
      if constexpr (Atom::input == atom_input::f16) fa[i] = __builtin_bit_cast(_Float16, a[i].bits);
      else if constexpr (Atom::input == atom_input::bf16) fa[i] = static_cast<short>(a[i].bits);
      else fa = a[i];
    }
    for (int i = 0; i < Atom::b_per_lane; ++i) {
      if constexpr (Atom::input == atom_input::f16) fb[i] = __builtin_bit_cast(_Float16, b[i].bits);
      else if constexpr (Atom::input == atom_input::bf16) fb[i] = static_cast<short>(b[i].bits);
      else fb = b[i];
    }
    for (int i = 0; i < Atom::c_per_lane; ++i) fc[i] = c[i];
    Atom::mma(fc, fa, fb);
    for (int i = 0; i < Atom::c_per_lane; ++i) c[i] = fc[i];
  }
}
#endif
}  // namespace tg::arch
