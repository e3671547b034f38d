// Helpers of the memory-bound fast paths: recognising plain strided views (make_naive_descriptor /
// make_ordered_descriptor: one embed stage, so offset = sum i[d] * stride[d]), their strides in
// 32-bit when the whole element space fits, and 16-byte vector accesses. Kernels use them to drop
// the descriptor walk and 64-bit arithmetic; anything else keeps the generic kernels.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include "dsl/tensor_view.hpp"

namespace tg {
namespace gpu_fast {
template <class Desc>
struct is_strided : std::false_type {};
template <class L, class C, class U>
struct is_strided<descriptor<adaptor<stage_of<bound<embed<L, C>, seq<0>, U>>>>> : std::true_type {};
template <class Desc>
constexpr bool is_strided_v = is_strided<Desc>::value;

// Strides of a strided descriptor in 32-bit; ok when every offset is in [0, 2^31): the origin is at
// 0, no stride is negative and the element space fits.
template <int R>
struct strides32 {
  int s[R > 0 ? R : 1];
  bool ok;
};
// The same for any linear offset map of R coordinates (probed at the origin and the unit vectors).
template <int R, class OffsetAt>
strides32<R> strides_by_probe(const OffsetAt& offset_at, index_t element_space) {
  strides32<R> r{};
  const index_t o = offset_at(multi_index<R>{});
  r.ok = o == 0 && element_space < (index_t{1} << 31);
  for (int i = 0; i < R; ++i) {
    multi_index<R> e{};
    e[i] = 1;  // an embed is linear, so the probe is valid even where the length is 1
    const index_t s = offset_at(e) - o;
    r.ok = r.ok && s >= 0 && s < (index_t{1} << 31);
    r.s[i] = static_cast<int>(s);
  }
  return r;
}
template <class Desc>
strides32<Desc::rank> strides_of(const Desc& d) {
  return strides_by_probe<Desc::rank>([&](const multi_index<Desc::rank>& i) { return d.offset(i); }, d.element_space);
}

// Division by a run-time divisor d >= 1 for numerators in [0, 2^31) as a multiply-high, an add and a
// shift (Granlund-Montgomery): a hardware-less integer division costs ~20 instructions, and the fast
// kernels split a flat index into 4-6 coordinates per thread. m = floor(2^32 (2^s - d) / d) + 1 with
// s = ceil(log2 d); q = (hi32(n m) + n) >> s (the sum stays below 2^32 for n < 2^31).
struct fast_div {
  unsigned d, m;
  int s;
  fast_div() = default;
  explicit fast_div(int div) : d(static_cast<unsigned>(div)), m(0), s(0) {
    if (div <= 0) throw std::invalid_argument("fast_div: divisor must be positive, got " + std::to_string(div));
    while ((std::uint64_t{1} << s) < d) ++s;
    m = static_cast<unsigned>((((std::uint64_t{1} << s) - d) << 32) / d + 1);
  }
  TG_HD int div(int n) const {
    const unsigned u = static_cast<unsigned>(n), hi = static_cast<unsigned>((static_cast<std::uint64_t>(u) * m) >> 32);
    return static_cast<int>((hi + u) >> s);
  }
};

// Elements per 16-byte word.
template <class T>
constexpr int vec_of = static_cast<int>(16 / sizeof(T));

inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

#if defined(TG_DEVICE_COMPILER)

// V consecutive elements moved as 16-byte words (sizeof(T) * V a multiple of 16, the address aligned).
template <class T, int V>
struct pack {
  T v[V];
};
// A 16-byte word of our own: HIP's uint4 is not trivially copyable, so it cannot be bit_cast.
struct alignas(16) word16 {
  unsigned x, y, z, w;
};
template <class T, int V>
struct pack_words {
  static_assert(sizeof(T) * V % 16 == 0, "a pack is whole 16-byte words");
  word16 q[sizeof(T) * V / 16];
};
template <class T, int V>
__device__ inline pack<T, V> load_pack(const T* p) {
  pack_words<T, V> w;
  TG_UNROLL for (int i = 0; i < static_cast<int>(sizeof(w.q) / 16); ++i) w.q[i] = reinterpret_cast<const word16*>(p)[i];
  return __builtin_bit_cast(pack<T, V>, w);
}
// Q consecutive elements as one aligned access of sizeof(T) * Q bytes (4, 8 or 16).
template <class T, int Q>
__device__ inline pack<T, Q> load_aligned(const T* p) {
  constexpr int bytes = static_cast<int>(sizeof(T)) * Q;
  static_assert(bytes == 4 || bytes == 8 || bytes == 16, "one 4-, 8- or 16-byte access");
  if constexpr (bytes == 16) {
    return load_pack<T, Q>(p);
  } else if constexpr (bytes == 8) {
    struct alignas(8) word8 { unsigned x, y; };
    return __builtin_bit_cast(pack<T, Q>, *reinterpret_cast<const word8*>(p));
  } else {
    return __builtin_bit_cast(pack<T, Q>, *reinterpret_cast<const unsigned*>(p));
  }
}
template <class T, int V>
__device__ inline void store_pack(T* p, const pack<T, V>& x) {
  const auto w = __builtin_bit_cast(pack_words<T, V>, x);
  TG_UNROLL for (int i = 0; i < static_cast<int>(sizeof(w.q) / 16); ++i) reinterpret_cast<word16*>(p)[i] = w.q[i];
}
#endif
}  // namespace gpu_fast
}  // namespace tg
