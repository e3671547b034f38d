// Host helpers shared by the device checks (atoms_device_check.cu / .hip): inputs that every
// matrix core multiplies exactly, their 16-bit encodings, the reference product and a verdict.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace tg::arch::check {

// Multiples of 1/4 in [-2, 2]: exact in f16, bf16, tf32 and fp32, and sums of up to 64 of their
// products are exact in fp32 in any order, so a correct atom matches the reference bit for bit.
inline std::vector<float> exact_values(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(-8, 8);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen) / 4.0f;
  return v;
}

inline std::uint32_t bits_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

// fp32 -> bf16 bits; only for values bf16 holds exactly (the inputs above).
inline std::uint16_t bf16_bits(float x) {
  const std::uint32_t u = bits_of(x);
  if (u & 0xffffu) throw std::logic_error("bf16_bits: value not exact in bf16");
  return static_cast<std::uint16_t>(u >> 16);
}

// fp32 -> f16 bits; only for zero and normal values f16 holds exactly.
inline std::uint16_t f16_bits(float x) {
  const std::uint32_t u = bits_of(x);
  const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  if ((u & 0x7fffffffu) == 0) return sign;
  const int e = static_cast<int>((u >> 23) & 0xff) - 127 + 15;
  if (e <= 0 || e >= 31 || (u & 0x1fffu)) throw std::logic_error("f16_bits: value not exact in f16");
  return static_cast<std::uint16_t>(sign | (e << 10) | ((u >> 13) & 0x3ffu));
}

// D = A(MxK, row-major) * B(KxN, row-major) + C(MxN, row-major).
inline std::vector<float> reference(const std::vector<float>& a, const std::vector<float>& b,
                                    const std::vector<float>& c, int m, int n, int k) {
  std::vector<float> d(c);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = c[i * n + j];
      for (int q = 0; q < k; ++q) s += double(a[i * k + q]) * double(b[q * n + j]);
      d[i * n + j] = static_cast<float>(s);
    }
  return d;
}

// Prints one line per atom; returns whether the device result equals the reference exactly.
inline bool report(const char* atom, const std::vector<float>& got, const std::vector<float>& want) {
  std::size_t bad = 0, first = got.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ == 0) first = i;
  if (bad == 0) {
    std::printf("PASS %s (%zu elements exact)\n", atom, got.size());
  } else {
    std::printf("FAIL %s: %zu of %zu differ, first at %zu: got %g want %g\n", atom, bad, got.size(), first,
                got[first], want[first]);
  }
  return bad == 0;
}

}  // namespace tg::arch::check
