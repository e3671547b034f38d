// The per-vendor choices of code generation that kernels in the lowering depend on, in one place (the
// lowering has no vendor #if of its own): launch bounds, the shared allocation's alignment, the shared
// tile orientations the cp.async GEMM's register budget allows, and the backend's name.
#pragma once

// Launch bounds. AMD: hipcc otherwise assumes 1024 threads per block and budgets registers for that;
// its second argument is the least waves per SIMD. NVIDIA: nvcc with the same bounds spills some
// kernels, so it gets none unless a kernel names its own.
//   TG_AMD_LAUNCH_BOUNDS(args...)           bounds on AMD, none on NVIDIA
//   TG_VENDOR_LAUNCH_BOUNDS((amd), (nvidia)) each vendor its own parenthesized arguments
#if defined(__HIP__)
#define TG_AMD_LAUNCH_BOUNDS(...) __launch_bounds__(__VA_ARGS__)
#define TG_VENDOR_LAUNCH_BOUNDS(AMD, NVIDIA) __launch_bounds__ AMD
#else
#define TG_AMD_LAUNCH_BOUNDS(...)
#define TG_VENDOR_LAUNCH_BOUNDS(AMD, NVIDIA) __launch_bounds__ NVIDIA
#endif

namespace tg::arch {
#if defined(__HIP__)
inline constexpr const char* backend_name = "gpu(hip)";
// AMD keeps every shared tile [rows][k]: the code of both orientations did not fit the VGPR budget of
// two waves per SIMD (the col2im kernels spilled to scratch).
inline constexpr bool gemm_tile_orientations = false;
// A larger alignment only adds static LDS there (1024 bytes measured).
inline constexpr int gemm_smem_align = 16;
// The sliding-window GEMM's loads in flight, in steps: two took gfx908 to 1392 bytes of scratch.
inline constexpr int sliding_steps_in_flight = 1;
#else
inline constexpr const char* backend_name = "gpu";
inline constexpr bool gemm_tile_orientations = true;
// A whole 128-byte swizzle pattern, where wgmma reads the tiles by descriptor.
inline constexpr int gemm_smem_align = 1024;
// Two steps measured 4-9% faster than one on H200 (performance.md section 22), at 153 registers for 148.
inline constexpr int sliding_steps_in_flight = 2;
#endif
}  // namespace tg::arch
