// The contract of a target description (arch/nvidia_sm*.hpp, arch/amd_gfx*.hpp): the numbers
// lowering needs to size tiles and pick instructions, under the same names for both vendors.
// Vendor-specific extras (wgmma, AGPRs, ...) live next to them in each target's struct.
#pragma once
#include <concepts>

namespace tg::arch {

enum class vendor { nvidia, amd };

template <class T>
concept target_description = requires {
  { T::name } -> std::convertible_to<const char*>;
  { T::vendor_id } -> std::convertible_to<vendor>;
  { T::wave_size } -> std::convertible_to<int>;              // threads of a warp / wave
  { T::max_threads_per_block } -> std::convertible_to<int>;
  { T::lds_bytes_per_block } -> std::convertible_to<int>;    // most a block may allocate (opt-in on NVIDIA)
  { T::lds_bytes_per_cu } -> std::convertible_to<int>;       // per SM / CU
  { T::vector_bytes } -> std::convertible_to<int>;           // widest single global/LDS access per thread
  { T::atomic_add_f32 } -> std::convertible_to<bool>;        // native fp32 atomic add on global memory
  { T::atomic_add_f16x2 } -> std::convertible_to<bool>;      // native packed 2 x fp16 add
  { T::atomic_add_bf16x2 } -> std::convertible_to<bool>;     // native packed 2 x bf16 add
};

}  // namespace tg::arch
