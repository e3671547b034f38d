// Device check of the warpgroup MMA (arch/wgmma_nvidia.hpp) on the GEMM's shared tiles
// (lowering/gpu/smem_tile.hpp): one warpgroup stages A (64 x 32) and B (32 x N) in shared memory in
// smem_tile_desc's layout, K-major or MN-major, multiplies them with two wgmma k16 steps through
// wgmma_operand's descriptors, and stores D through the accumulator layout the GEMM's epilogue uses
// (mma.m16n8's C layout per n8 block). The host compares with A*B + C; inputs are exact, so a correct
// layout matches bit for bit, and D is poisoned first; and the tf32 atom on fp32 tiles (check_tf32). Needs sm_90a; exits 77 without a GPU or on
// another architecture. Built by tests/CMakeLists.txt for sm_90a.
#include <cstdint>
#include <cstdio>
#include <vector>
#include "arch/mma_nvidia.hpp"
#include "arch/runtime.hpp"
#include "dsl/numeric.hpp"
#include "lowering/gpu/smem_tile.hpp"
#include "tests/arch/atom_check_common.hpp"

namespace ta = tg::arch;
namespace gg = tg::gpu_gemm;

constexpr int M = 64, K = 32;

// The warpgroup's accumulators (N/8 blocks of 4 a thread) from / to a row-major [M][N] matrix, in
// mma.m16n8's C layout per n8 block (wgmma's, the GEMM epilogue's).
template <int N>
__device__ __forceinline__ void load_acc(float (&acc)[N / 8][4], const float* c, int warp, int lane) {
  for (int j = 0; j < N / 8; ++j)
    for (int e = 0; e < 4; ++e) {
      const ta::frag_coord x = ta::mma_m16n8k16_f16::c_coord(lane, e);
      acc[j][e] = c[(warp * 16 + x.row) * N + 8 * j + x.col];
    }
}
template <int N>
__device__ __forceinline__ void store_acc(const float (&acc)[N / 8][4], float* d, int warp, int lane) {
  for (int j = 0; j < N / 8; ++j)
    for (int e = 0; e < 4; ++e) {
      const ta::frag_coord x = ta::mma_m16n8k16_f16::c_coord(lane, e);
      d[(warp * 16 + x.row) * N + 8 * j + x.col] = acc[j][e];
    }
}

// a: [M][K] row-major, b: [K][N] row-major, 16-bit patterns; c, d: [M][N] fp32.
template <int N, bool Bf16, bool AMn, bool BMn>
__global__ void wgmma_kernel(const std::uint16_t* a, const std::uint16_t* b, const float* c, float* d) {
  __shared__ __align__(1024) std::uint16_t as[M * K];
  __shared__ __align__(1024) std::uint16_t bs[K * N];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const auto a_rk = gg::smem_tile_desc<M, K, tg::half_t>();
  const auto a_kr = gg::smem_tile_desc<K, M, tg::half_t>();
  const auto b_nk = gg::smem_tile_desc<N, K, tg::half_t>();
  const auto b_kn = gg::smem_tile_desc<K, N, tg::half_t>();
  for (int e = tid; e < M * K; e += 128) {
    const int m = e / K, k = e % K;
    as[AMn ? a_kr.offset({{k, m}}) : a_rk.offset({{m, k}})] = a[e];
  }
  for (int e = tid; e < K * N; e += 128) {
    const int k = e / N, n = e % N;
    bs[BMn ? b_kn.offset({{k, n}}) : b_nk.offset({{n, k}})] = b[e];
  }
  float acc[N / 8][4];
  load_acc<N>(acc, c, warp, lane);
#if defined(TG_NV_WGMMA) && defined(__CUDA_ARCH__)
  ta::fence_proxy_async_shared();
  __syncthreads();
  const auto a_addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(as)), b_addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(bs));
  ta::wgmma_fence();
  for (int k0 = 0; k0 < K; k0 += 16)
    ta::wgmma_m64k16<N, Bf16, AMn, BMn>(acc, gg::wgmma_operand<M, K, tg::half_t, AMn>(a_addr, 0, k0), gg::wgmma_operand<N, K, tg::half_t, BMn>(b_addr, 0, k0));
  ta::wgmma_commit();
  ta::wgmma_wait<0>();
  ta::wgmma_pin(acc);
#endif
  store_acc<N>(acc, d, warp, lane);
}

// tf32: A (64 x 32) and B (32 x N) of fp32, both K-major (tf32 wgmma takes no other), staged in the
// 128-byte rows of the TMA pipeline's fp32 tiles (lowering/gpu/tma_gemm/plan.hpp: BK 32), multiplied
// with four k8 steps 32 bytes apart. The inputs are exact in tf32, so a correct atom matches bit for bit.
constexpr int K32 = 32;
template <int N>
__global__ void wgmma_tf32_kernel(const float* a, const float* b, const float* c, float* d) {
  __shared__ __align__(1024) float as[M * K32];
  __shared__ __align__(1024) float bs[K32 * N];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const auto a_rk = gg::smem_tile_desc<M, K32, float>();
  const auto b_nk = gg::smem_tile_desc<N, K32, float>();
  for (int e = tid; e < M * K32; e += 128) as[a_rk.offset({{e / K32, e % K32}})] = a[e];
  for (int e = tid; e < K32 * N; e += 128) bs[b_nk.offset({{e % N, e / N}})] = b[e];  // b: [k][n]
  float acc[N / 8][4];
  load_acc<N>(acc, c, warp, lane);
#if defined(TG_NV_WGMMA) && defined(__CUDA_ARCH__)
  ta::fence_proxy_async_shared();
  __syncthreads();
  const auto a_addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(as)), b_addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(bs));
  ta::wgmma_fence();
  for (int k0 = 0; k0 < K32; k0 += 8)
    ta::wgmma_m64k8_tf32<N>(acc, gg::wgmma_operand<M, K32, float, false>(a_addr, 0, k0), gg::wgmma_operand<N, K32, float, false>(b_addr, 0, k0));
  ta::wgmma_commit();
  ta::wgmma_wait<0>();
  ta::wgmma_pin(acc);
#endif
  store_acc<N>(acc, d, warp, lane);
}

// The halos' reads in place: A's HP 128-byte rows (64 elements each) staged whole in the 128-byte-
// swizzled layout, and an m64 x k64 window of it multiplied, its 8-row groups at row p0 + g * pitch,
// which is not where the swizzle pattern starts (the descriptor's base offset stays 0: the swizzle is
// of the address bits). K-major A (lowering/gpu/tma_gemm/halo_kernel.hpp, a tap's m64 block): the rows
// are the window's m, groups pitch rows apart, B K-major. MN-major A (tma_gemm/a_blocks.hpp, a k-halo):
// the rows are k positions of 64 m each, k16 step kk's two groups of 8 at p0 + 2 kk pitch and pitch on
// (the SBO), B MN-major. D = window(A) * B.
constexpr int HP = 8 + 7 * 24 + 2 * 24 + 8;  // rows for taps up to 2 pitches + 2 at the widest pitch
template <bool MnA>
__global__ void wgmma_window_kernel(const std::uint16_t* a, const std::uint16_t* b, float* d, int pitch, int p0) {
  __shared__ __align__(1024) std::uint16_t as[HP * 64];
  __shared__ __align__(1024) std::uint16_t bs[64 * 64];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const auto a_rows = gg::smem_tile_desc<HP, 64, tg::half_t>();
  const auto b_64 = gg::smem_tile_desc<64, 64, tg::half_t>();
  for (int e = tid; e < HP * 64; e += 128) as[a_rows.offset({{e / 64, e % 64}})] = a[e];
  for (int e = tid; e < 64 * 64; e += 128) bs[MnA ? b_64.offset({{e / 64, e % 64}}) : b_64.offset({{e % 64, e / 64}})] = b[e];  // b: [k][n]
  float acc[8][4] = {};
#if defined(TG_NV_WGMMA) && defined(__CUDA_ARCH__)
  ta::fence_proxy_async_shared();
  __syncthreads();
  const auto a_addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(as)), b_addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(bs));
  const auto row = [&](int r) { return a_addr + 128u * static_cast<std::uint32_t>(r); };
  const std::uint32_t sbo = 128u * static_cast<std::uint32_t>(pitch);
  ta::wgmma_fence();
  for (int kk = 0; kk < 4; ++kk) {
    const std::uint64_t da = MnA ? ta::smem_matrix_desc(row(p0 + 2 * kk * pitch), 8192, sbo, ta::smem_swizzle::b128)
                                 : ta::smem_matrix_desc(row(p0), 16, sbo, ta::smem_swizzle::b128) + 2 * kk;
    ta::wgmma_m64k16<64, false, MnA, MnA>(acc, da, gg::wgmma_operand<64, 64, tg::half_t, MnA>(b_addr, 0, 16 * kk));
  }
  ta::wgmma_commit();
  ta::wgmma_wait<0>();
  ta::wgmma_pin(acc);
#endif
  for (int j = 0; j < 8; ++j)
    for (int e = 0; e < 4; ++e) {
      const ta::frag_coord x = ta::mma_m16n8k16_f16::c_coord(lane, e);
      d[(warp * 16 + x.row) * 64 + 8 * j + x.col] = acc[j][e];
    }
}

namespace {
template <bool MnA>
bool check_window(int pitch, int p0, unsigned seed) {
  const auto a = ta::check::exact_values(HP * 64, seed), b = ta::check::exact_values(64 * 64, seed + 1);
  std::vector<std::uint16_t> a16(a.size()), b16(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a16[i] = ta::check::f16_bits(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b16[i] = ta::check::f16_bits(b[i]);
  // The window [m][k]: its row i (m for K-major A, k for MN-major) is halo row p0 + (i / 8) pitch + i % 8.
  std::vector<float> window(64 * 64), zero(64 * 64, 0.0f);
  for (int m = 0; m < 64; ++m)
    for (int k = 0; k < 64; ++k) {
      const int i = MnA ? k : m, col = MnA ? m : k;
      window[m * 64 + k] = a[static_cast<std::size_t>((p0 + (i / 8) * pitch + i % 8) * 64 + col)];
    }
  ta::device_buffer<std::uint16_t> da(a16), db(b16);
  ta::device_buffer<float> dd(64 * 64);
  dd.fill_bytes(0xff);
  TG_LAUNCH(wgmma_window_kernel<MnA>, dim3(1), dim3(128), 0, nullptr, da.data(), db.data(), dd.data(), pitch, p0);
  ta::synchronize();
  char name[96];
  std::snprintf(name, sizeof name, "wgmma %s A window of a halo: groups %d rows apart, first row %d", MnA ? "MN-major" : "K-major", pitch, p0);
  return ta::check::report(name, dd.download(), ta::check::reference(window, b, zero, 64, 64, 64));
}

template <int N, bool Bf16, bool AMn, bool BMn>
bool check(unsigned seed) {
  const auto a = ta::check::exact_values(M * K, seed), b = ta::check::exact_values(K * N, seed + 1), c = ta::check::exact_values(M * N, seed + 2);
  std::vector<std::uint16_t> a16(a.size()), b16(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a16[i] = Bf16 ? ta::check::bf16_bits(a[i]) : ta::check::f16_bits(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b16[i] = Bf16 ? ta::check::bf16_bits(b[i]) : ta::check::f16_bits(b[i]);
  ta::device_buffer<std::uint16_t> da(a16), db(b16);
  ta::device_buffer<float> dc(c), dd(c.size());
  dd.fill_bytes(0xff);
  TG_LAUNCH((wgmma_kernel<N, Bf16, AMn, BMn>), dim3(1), dim3(128), 0, nullptr, da.data(), db.data(), dc.data(), dd.data());
  ta::synchronize();
  char name[96];
  std::snprintf(name, sizeof name, "wgmma m64n%dk16 %s, A %s, B %s", N, Bf16 ? "bf16" : "f16", AMn ? "MN-major" : "K-major", BMn ? "MN-major" : "K-major");
  return ta::check::report(name, dd.download(), ta::check::reference(a, b, c, M, N, K));
}
template <int N>
bool check_tf32(unsigned seed) {
  const auto a = ta::check::exact_values(M * K32, seed), b = ta::check::exact_values(K32 * N, seed + 1), c = ta::check::exact_values(M * N, seed + 2);
  ta::device_buffer<float> da(a), db(b), dc(c), dd(c.size());
  dd.fill_bytes(0xff);
  TG_LAUNCH(wgmma_tf32_kernel<N>, dim3(1), dim3(128), 0, nullptr, da.data(), db.data(), dc.data(), dd.data());
  ta::synchronize();
  char name[96];
  std::snprintf(name, sizeof name, "wgmma m64n%dk8 tf32, A and B K-major", N);
  return ta::check::report(name, dd.download(), ta::check::reference(a, b, c, M, N, K32));
}
}  // namespace

int main() {
  if (ta::device_count() == 0) {
    std::printf("SKIP no %s device\n", ta::runtime_name);
    return 77;
  }
  const ta::device_info d = ta::query_device(ta::current_device());
  if (d.arch != "sm_90") {
    std::printf("SKIP wgmma needs sm_90 (this is %s)\n", d.arch.c_str());
    return 77;
  }
  bool ok = true;
  ok = check<128, false, false, false>(1) && ok;
  ok = check<128, false, false, true>(2) && ok;
  ok = check<128, false, true, false>(3) && ok;
  ok = check<128, false, true, true>(4) && ok;
  ok = check<64, false, false, true>(5) && ok;
  ok = check<64, false, true, false>(6) && ok;
  ok = check<128, true, false, true>(7) && ok;
  ok = check_tf32<64>(11) && ok;
  ok = check_tf32<128>(12) && ok;
  for (int pitch : {10, 24})  // a 3x3 tap's window in an 8-wide tile's halo (10) and a 3-d one's (24 = 8 + 16)
    for (int p0 : {0, 1, 2, pitch, pitch + 1, 2 * pitch + 2}) ok = check_window<false>(pitch, p0, 8 + static_cast<unsigned>(p0)) && ok;
  for (int pitch : {8, 10, 18})  // a k-halo's k-tile rows: 8 wide with no reach, 8 + 2, 16 + 2
    for (int p0 : {0, 1, 3, pitch + 2}) ok = check_window<true>(pitch, p0, 40 + static_cast<unsigned>(p0)) && ok;
  std::printf(ok ? "ALL PASS\n" : "SOME FAILED\n");
  return ok ? 0 : 1;
}
