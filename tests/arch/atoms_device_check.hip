// Device check of the AMD MFMA atoms and of arch/runtime.hpp (HIP back end).
// Each kernel is one wave64: it gathers A and B from global memory through a_coord/b_coord, runs
// the atom's mma once on C, and scatters the result through c_coord; the host compares with
// A*B + C (exact inputs, so bit for bit). Builds for gfx908, gfx90a and gfx940 at once: an atom a
// target lacks compiles to a trap there and the host never launches it on that GPU. Without an
// AMD GPU it exits 77 (ctest SKIP_RETURN_CODE); compiling it is then the check (v_mfma_* in -S).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>
#include "arch/amd_gfx908.hpp"
#include "arch/amd_gfx90a.hpp"
#include "arch/amd_gfx940.hpp"
#include "arch/mfma_amd.hpp"
#include "arch/runtime.hpp"
#include "tests/arch/atom_check_common.hpp"

namespace ta = tg::arch;

// Element i of a fragment (a clang vector, or a scalar for one element per lane).
template <class Frag, class E>
__device__ inline void set_elem(Frag& f, int i, E v) {
  if constexpr (std::is_scalar_v<Frag>) {
    f = v;
  } else {
    f[i] = v;
  }
}

// A (MxK) and B (KxN) row-major in element type E (_Float16, bf16 bits as short, or float);
// C and D (MxN) fp32 row-major.
template <class Atom, class E>
__global__ void mfma_kernel(const E* a, const E* b, const float* c, float* d) {
  if constexpr (ta::mfma_available<Atom>) {
    const int lane = threadIdx.x;
    typename Atom::a_frag fa;
    typename Atom::b_frag fb;
    typename Atom::c_frag acc;
    for (int i = 0; i < Atom::a_per_lane; ++i) {
      const ta::frag_coord x = Atom::a_coord(lane, i);
      set_elem(fa, i, a[x.row * Atom::K + x.col]);
    }
    for (int i = 0; i < Atom::b_per_lane; ++i) {
      const ta::frag_coord x = Atom::b_coord(lane, i);
      set_elem(fb, i, b[x.row * Atom::N + x.col]);
    }
    for (int i = 0; i < Atom::c_per_lane; ++i) {
      const ta::frag_coord x = Atom::c_coord(lane, i);
      acc[i] = c[x.row * Atom::N + x.col];
    }
    Atom::mma(acc, fa, fb);
    for (int i = 0; i < Atom::c_per_lane; ++i) {
      const ta::frag_coord x = Atom::c_coord(lane, i);
      d[x.row * Atom::N + x.col] = acc[i];
    }
  } else {
    __builtin_trap();  // this target has no such instruction; the host does not launch it here
  }
}

namespace {

// The element type the kernel reads, and its encoding from an exact fp32 input.
template <tg::arch::atom_input In>
struct input_encoding;
template <>
struct input_encoding<ta::atom_input::f16> {
  using type = _Float16;
  static type encode(float x) { return static_cast<_Float16>(x); }  // exact for check inputs
};
template <>
struct input_encoding<ta::atom_input::bf16> {
  using type = short;
  static type encode(float x) { return static_cast<short>(ta::check::bf16_bits(x)); }
};
template <>
struct input_encoding<ta::atom_input::f32> {
  using type = float;
  static type encode(float x) { return x; }
};

template <class Atom>
bool check_atom(unsigned seed) {
  using enc = input_encoding<Atom::input>;
  using E = typename enc::type;
  constexpr int M = Atom::M, N = Atom::N, K = Atom::K;
  const auto a = ta::check::exact_values(M * K, seed), b = ta::check::exact_values(K * N, seed + 1),
             c = ta::check::exact_values(M * N, seed + 2);
  std::vector<E> ea(a.size()), eb(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ea[i] = enc::encode(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) eb[i] = enc::encode(b[i]);
  ta::device_buffer<E> da(ea), db(eb);
  ta::device_buffer<float> dc(c), dd(c.size());
  dd.fill_bytes(0xff);  // NaN everywhere: an element the kernel never writes cannot pass
  TG_LAUNCH((mfma_kernel<Atom, E>), dim3(1), dim3(64), 0, nullptr, da.data(), db.data(), dc.data(), dd.data());
  ta::synchronize();
  return ta::check::report(Atom::name, dd.download(), ta::check::reference(a, b, c, M, N, K));
}

template <class Target>
bool check_target_atoms() {
  bool ok = true;
  if constexpr (Target::has_mfma) {
    ok = check_atom<ta::mfma_f32_32x32x8f16>(1) && ok;
    ok = check_atom<ta::mfma_f32_16x16x16f16>(11) && ok;
    ok = check_atom<ta::mfma_f32_32x32x2f32>(21) && ok;
  }
  if constexpr (Target::has_mfma_bf16_1k) {
    ok = check_atom<ta::mfma_f32_32x32x8bf16_1k>(31) && ok;
    ok = check_atom<ta::mfma_f32_16x16x16bf16_1k>(41) && ok;
  }
  if constexpr (Target::has_mfma_bf16_legacy) ok = check_atom<ta::mfma_f32_32x32x4bf16>(51) && ok;
  return ok;
}

}  // namespace

int main() {
  if (ta::device_count() == 0) {
    std::printf("SKIP no %s device\n", ta::runtime_name);
    return 77;
  }
  const ta::device_info d = ta::query_device(ta::current_device());
  std::printf("device: %s (%s), runtime %s, wave %d, LDS/block %zu\n", d.name.c_str(), d.arch.c_str(),
              ta::runtime_name, d.wave_size, d.shared_bytes_per_block);
  const std::string gfx = d.arch.substr(0, d.arch.find(':'));
  bool ok;
  if (gfx == "gfx908") {
    ok = check_target_atoms<ta::amd_gfx908>();
  } else if (gfx == "gfx90a") {
    ok = check_target_atoms<ta::amd_gfx90a>();
  } else if (gfx == "gfx940" || gfx == "gfx941" || gfx == "gfx942") {
    ok = check_target_atoms<ta::amd_gfx940>();
  } else {
    std::printf("SKIP %s has no MFMA atoms described in arch/\n", gfx.c_str());
    return 77;
  }
  std::printf(ok ? "ALL PASS\n" : "SOME FAILED\n");
  return ok ? 0 : 1;
}
