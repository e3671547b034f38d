// ops/relayout.hpp on the host backend: random shapes (1-6 dimensions, 1-element ones included),
// random source and destination permutations, every pair of element types, against a naive copy
// written with its own stride arithmetic, into a poisoned destination; and the op's errors.
#include "ops/relayout.hpp"

#include <gtest/gtest.h>

#include "../../examples/common/harness.hpp"

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "lowering/host.hpp"

namespace {
using tg::index_t;
using tg::ops::relayout_problem;


relayout_problem random_problem(std::mt19937& rng) {
  relayout_problem p;
  const int r = std::uniform_int_distribution<int>(1, relayout_problem::max_rank)(rng);
  for (int d = 0; d < r; ++d) p.lengths.push_back(std::uniform_int_distribution<int>(1, 7)(rng));
  p.src_order.resize(r), p.dst_order.resize(r);
  std::iota(p.src_order.begin(), p.src_order.end(), 0);
  std::iota(p.dst_order.begin(), p.dst_order.end(), 0);
  std::shuffle(p.src_order.begin(), p.src_order.end(), rng);
  std::shuffle(p.dst_order.begin(), p.dst_order.end(), rng);
  return p;
}

template <class TD, class TS>
void check_random(std::uint32_t seed) {
  std::mt19937 rng(seed);
  for (int t = 0; t < 40; ++t) {
    const relayout_problem p = random_problem(rng);
    const std::size_t n = static_cast<std::size_t>(p.elements());
    std::vector<TS> src(n);
    std::uniform_real_distribution<float> u(-100.0f, 100.0f);
    for (auto& e : src) e = tg::from_float<TS>(u(rng));
    if (n > 1) src[n / 2] = tg::from_float<TS>(NAN);
    std::vector<TD> dst(n);
    std::memset(static_cast<void*>(dst.data()), 0xff, n * sizeof(TD));  // NaN in every type: unwritten elements fail
    tg::host_backend be;
    tg::ops::relayout(be, p, src.data(), dst.data());
    const auto ss = tg::ex::physical_strides(p.lengths, p.src_order), ds = tg::ex::physical_strides(p.lengths, p.dst_order);
    const int r = static_cast<int>(p.lengths.size());
    std::vector<index_t> i(r, 0);
    for (std::size_t l = 0; l < n; ++l) {
      index_t so = 0, dso = 0;
      for (int d = 0; d < r; ++d) so += i[d] * ss[d], dso += i[d] * ds[d];
      const float want = tg::to_float(tg::from_float<TD>(tg::to_float(src[so]))), got = tg::to_float(dst[dso]);
      if (std::isnan(want)) ASSERT_TRUE(std::isnan(got)) << "element " << dso;
      else ASSERT_EQ(got, want) << "element " << dso << " of a rank-" << r << " problem";
      for (int d = r - 1; d >= 0; --d) {
        if (++i[d] < p.lengths[d]) break;
        i[d] = 0;
      }
    }
  }
}

TEST(Relayout, SameTypeFp32) { check_random<float, float>(1); }
TEST(Relayout, SameTypeFp16) { check_random<tg::half_t, tg::half_t>(2); }
TEST(Relayout, SameTypeBf16) { check_random<tg::bf16_t, tg::bf16_t>(3); }
TEST(Relayout, Fp32ToFp16) { check_random<tg::half_t, float>(4); }
TEST(Relayout, Fp32ToBf16) { check_random<tg::bf16_t, float>(5); }
TEST(Relayout, Fp16ToFp32) { check_random<float, tg::half_t>(6); }
TEST(Relayout, Bf16ToFp32) { check_random<float, tg::bf16_t>(7); }
TEST(Relayout, Fp16ToBf16) { check_random<tg::bf16_t, tg::half_t>(8); }
TEST(Relayout, Bf16ToFp16) { check_random<tg::half_t, tg::bf16_t>(9); }

// A same-type copy keeps every bit (a NaN's payload too).
TEST(Relayout, SameTypeCopiesBits) {
  const relayout_problem p{{3, 2}, {0, 1}, {1, 0}};
  std::vector<tg::half_t> src(6), dst(6);
  for (int i = 0; i < 6; ++i) src[i].bits = static_cast<std::uint16_t>(0x7c01 + 17 * i);  // NaNs with payloads
  tg::host_backend be;
  tg::ops::relayout(be, p, src.data(), dst.data());
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 2; ++b) EXPECT_EQ(dst[b * 3 + a].bits, src[a * 2 + b].bits);
}

void expect_error(const relayout_problem& p, const std::string& param, const float* src, float* dst) {
  tg::host_backend be;
  try {
    tg::ops::relayout(be, p, src, dst);
    ADD_FAILURE() << "no error for " << param;
  } catch (const tg::ops::invalid_problem& e) {
    EXPECT_EQ(e.parameter, param) << e.what();
  }
}

TEST(Relayout, ErrorsNameTheParameter) {
  std::vector<float> a(64, 1.0f), b(64, 2.0f);
  expect_error({{}, {}, {}}, "lengths", a.data(), b.data());
  expect_error({{1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6}, {0, 1, 2, 3, 4, 5, 6}}, "lengths", a.data(), b.data());
  expect_error({{2, 0}, {0, 1}, {0, 1}}, "lengths[1]", a.data(), b.data());
  expect_error({{2, 3}, {0}, {0, 1}}, "src_order", a.data(), b.data());
  expect_error({{2, 3}, {0, 0}, {0, 1}}, "src_order", a.data(), b.data());
  expect_error({{2, 3}, {0, 1}, {1, 2}}, "dst_order", a.data(), b.data());
  expect_error({{2, 3}, {0, 1}, {1, 0}}, "dst", a.data(), a.data() + 3);  // overlapping: not in place
  expect_error({{index_t{1} << 40, index_t{1} << 40}, {0, 1}, {1, 0}}, "src", a.data(), b.data());
  EXPECT_EQ(b[0], 2.0f);  // nothing written
}
}  // namespace
