// Device check of the NVIDIA tensor-core atoms and of arch/runtime.hpp (CUDA back end).
// Each kernel is one warp: it gathers A and B from global memory through a_coord/b_coord, runs the
// atom's mma once on C, and scatters the result through c_coord; the host compares with A*B + C.
// Inputs are exact in every format, so a correct layout matches bit for bit. On a GPU-less machine
// it exits 77 (ctest SKIP_RETURN_CODE). Build: nvcc -std=c++20 -arch=sm_90 -I<repo> (sm_80 or newer).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>
#include "arch/mma_nvidia.hpp"
#include "arch/nvidia_sm80.hpp"
#include "arch/nvidia_sm90.hpp"
#include "arch/runtime.hpp"
#include "tests/arch/atom_check_common.hpp"

namespace ta = tg::arch;

// 16-bit atoms: A (MxK) and B (KxN) row-major as f16/bf16 bit patterns; C, D (MxN) fp32 row-major.
template <class Atom>
__global__ void mma_b16_kernel(const std::uint16_t* a, const std::uint16_t* b, const float* c, float* d) {
  const int lane = threadIdx.x;
  std::uint32_t ra[Atom::a_regs], rb[Atom::b_regs];
  float acc[Atom::c_per_lane];
  for (int r = 0; r < Atom::a_regs; ++r) {
    const ta::frag_coord lo = Atom::a_coord(lane, 2 * r), hi = Atom::a_coord(lane, 2 * r + 1);
    ra[r] = ta::pack_b16x2(a[lo.row * Atom::K + lo.col], a[hi.row * Atom::K + hi.col]);
  }
  for (int r = 0; r < Atom::b_regs; ++r) {
    const ta::frag_coord lo = Atom::b_coord(lane, 2 * r), hi = Atom::b_coord(lane, 2 * r + 1);
    rb[r] = ta::pack_b16x2(b[lo.row * Atom::N + lo.col], b[hi.row * Atom::N + hi.col]);
  }
  for (int i = 0; i < Atom::c_per_lane; ++i) {
    const ta::frag_coord x = Atom::c_coord(lane, i);
    acc[i] = c[x.row * Atom::N + x.col];
  }
  Atom::mma(acc, ra, rb);
  for (int i = 0; i < Atom::c_per_lane; ++i) {
    const ta::frag_coord x = Atom::c_coord(lane, i);
    d[x.row * Atom::N + x.col] = acc[i];
  }
}

// tf32 atom: fp32 inputs, rounded to tf32 by the atom.
__global__ void mma_tf32_kernel(const float* a, const float* b, const float* c, float* d) {
  using Atom = ta::mma_m16n8k8_tf32;
  const int lane = threadIdx.x;
  float fa[Atom::a_per_lane], fb[Atom::b_per_lane], acc[Atom::c_per_lane];
  for (int i = 0; i < Atom::a_per_lane; ++i) {
    const ta::frag_coord x = Atom::a_coord(lane, i);
    fa[i] = a[x.row * Atom::K + x.col];
  }
  for (int i = 0; i < Atom::b_per_lane; ++i) {
    const ta::frag_coord x = Atom::b_coord(lane, i);
    fb[i] = b[x.row * Atom::N + x.col];
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
}

namespace {

template <class Atom>
bool check_b16_atom(std::uint16_t (*encode)(float), unsigned seed) {
  constexpr int M = Atom::M, N = Atom::N, K = Atom::K;
  const auto a = ta::check::exact_values(M * K, seed), b = ta::check::exact_values(K * N, seed + 1),
             c = ta::check::exact_values(M * N, seed + 2);
  std::vector<std::uint16_t> a16(a.size()), b16(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a16[i] = encode(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b16[i] = encode(b[i]);
  ta::device_buffer<std::uint16_t> da(a16), db(b16);
  ta::device_buffer<float> dc(c), dd(c.size());
  dd.fill_bytes(0xff);  // NaN everywhere: an element the kernel never writes cannot pass
  TG_LAUNCH(mma_b16_kernel<Atom>, dim3(1), dim3(32), 0, nullptr, da.data(), db.data(), dc.data(), dd.data());
  ta::synchronize();
  return ta::check::report(Atom::name, dd.download(), ta::check::reference(a, b, c, M, N, K));
}

bool check_tf32_atom(unsigned seed) {
  using Atom = ta::mma_m16n8k8_tf32;
  constexpr int M = Atom::M, N = Atom::N, K = Atom::K;
  const auto a = ta::check::exact_values(M * K, seed), b = ta::check::exact_values(K * N, seed + 1),
             c = ta::check::exact_values(M * N, seed + 2);
  ta::device_buffer<float> da(a), db(b), dc(c), dd(c.size());
  dd.fill_bytes(0xff);
  ta::stream s;
  ta::event start, stop;
  start.record(s.get());
  TG_LAUNCH(mma_tf32_kernel, dim3(1), dim3(32), 0, s.get(), da.data(), db.data(), dc.data(), dd.data());
  stop.record(s.get());
  const float ms = ta::elapsed_ms(start, stop);
  std::vector<float> got;
  dd.download(got, s.get());
  s.synchronize();
  std::printf("     (tf32 kernel %.3f ms on a stream)\n", ms);
  return ta::check::report(Atom::name, got, ta::check::reference(a, b, c, M, N, K));
}

// The target description must agree with what the runtime reports for the GPU at hand.
template <class Target>
bool check_target(const ta::device_info& d) {
  const bool ok = d.wave_size == Target::wave_size && d.max_threads_per_block == Target::max_threads_per_block &&
                  d.shared_bytes_per_block_optin == std::size_t(Target::lds_bytes_per_block) &&
                  d.shared_bytes_per_multiprocessor == std::size_t(Target::lds_bytes_per_cu) &&
                  d.registers_per_block == Target::registers_per_block;
  std::printf("%s %s description: warp %d, threads/block %d, smem/block opt-in %zu, smem/SM %zu, regs/block %d\n",
              ok ? "PASS" : "FAIL", Target::name, d.wave_size, d.max_threads_per_block, d.shared_bytes_per_block_optin,
              d.shared_bytes_per_multiprocessor, d.registers_per_block);
  return ok;
}

// Runtime errors must come back as exceptions naming the call site.
bool check_runtime_errors() {
  bool ok = true;
  try {
    TG_LAUNCH(mma_tf32_kernel, dim3(1), dim3(4096), 0, nullptr, nullptr, nullptr, nullptr, nullptr);  // > 1024 threads
    ok = false;
    std::printf("FAIL launch with 4096 threads did not throw\n");
  } catch (const std::runtime_error& e) {
    const bool named = std::string(e.what()).find("atoms_device_check.cu:") != std::string::npos;
    ok = ok && named;
    std::printf("%s launch error: %s\n", named ? "PASS" : "FAIL", e.what());
  }
  try {
    ta::set_device(1 << 20);
    ok = false;
    std::printf("FAIL set_device(2^20) did not throw\n");
  } catch (const std::runtime_error& e) {
    std::printf("PASS TG_CHECK error: %s\n", e.what());
  }
  ta::device_buffer<int> moved(16);
  moved.fill_bytes(0);
  ta::device_buffer<int> target = std::move(moved);
  const auto zeros = target.download();
  const bool move_ok = moved.data() == nullptr && moved.size() == 0 && target.size() == 16 &&
                       zeros == std::vector<int>(16, 0);
  std::printf("%s device_buffer move + fill_bytes + download\n", move_ok ? "PASS" : "FAIL");
  return ok && move_ok;
}

}  // namespace

int main() {
  if (ta::device_count() == 0) {
    std::printf("SKIP no %s device\n", ta::runtime_name);
    return 77;
  }
  const ta::device_info d = ta::query_device(ta::current_device());
  std::printf("device: %s (%s), runtime %s\n", d.name.c_str(), d.arch.c_str(), ta::runtime_name);
  bool ok = true;
  if (d.arch == "sm_90") ok = check_target<ta::nvidia_sm90>(d) && ok;
  if (d.arch == "sm_80") ok = check_target<ta::nvidia_sm80>(d) && ok;
  ok = check_b16_atom<ta::mma_m16n8k16_f16>(ta::check::f16_bits, 1) && ok;
  ok = check_b16_atom<ta::mma_m16n8k16_bf16>(ta::check::bf16_bits, 11) && ok;
  ok = check_tf32_atom(21) && ok;
  ok = check_runtime_errors() && ok;
  std::printf(ok ? "ALL PASS\n" : "SOME FAILED\n");
  return ok ? 0 : 1;
}
