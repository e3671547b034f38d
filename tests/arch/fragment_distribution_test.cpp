// Each atom's fragment layouts written as tile distributions (merge/unmerge of lane and element
// digits) against the atoms' coordinate functions, which atoms_test checks against the ISA tables:
// equal for every (lane, element), and covering the tile exactly once.
#include <gtest/gtest.h>
#include <vector>
#include "arch/fragment_distribution.hpp"

namespace {
template <class Dist, class Coord>
void expect_same(const Dist& d, int rows, int cols, int lanes, int per_lane, Coord coord, const char* what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(d.threads(), lanes);
  ASSERT_EQ(d.elements(), per_lane);
  std::vector<int> hits(rows * cols, 0);
  for (int lane = 0; lane < lanes; ++lane)
    for (int e = 0; e < per_lane; ++e) {
      const auto c = d.coord(lane, e);
      const auto want = coord(lane, e);
      ASSERT_EQ(c[0], want.row) << "lane " << lane << " element " << e;
      ASSERT_EQ(c[1], want.col) << "lane " << lane << " element " << e;
      ++hits[c[0] * cols + c[1]];
    }
  for (int h : hits) EXPECT_EQ(h, 1);
}

template <class Atom>
void check_atom() {
  using F = tg::arch::fragment_distribution<Atom>;
  expect_same(F::a(), Atom::M, Atom::K, Atom::lanes, Atom::a_per_lane, [](int l, int e) { return Atom::a_coord(l, e); }, "A");
  expect_same(F::b(), Atom::K, Atom::N, Atom::lanes, Atom::b_per_lane, [](int l, int e) { return Atom::b_coord(l, e); }, "B");
  expect_same(F::c(), Atom::M, Atom::N, Atom::lanes, Atom::c_per_lane, [](int l, int e) { return Atom::c_coord(l, e); }, "C");
}

TEST(FragmentDistribution, NvidiaM16n8k16F16) { check_atom<tg::arch::mma_m16n8k16_f16>(); }
TEST(FragmentDistribution, NvidiaM16n8k16Bf16) { check_atom<tg::arch::mma_m16n8k16_bf16>(); }
TEST(FragmentDistribution, NvidiaM16n8k8Tf32) { check_atom<tg::arch::mma_m16n8k8_tf32>(); }
TEST(FragmentDistribution, Amd32x32x8F16) { check_atom<tg::arch::mfma_f32_32x32x8f16>(); }
TEST(FragmentDistribution, Amd16x16x16F16) { check_atom<tg::arch::mfma_f32_16x16x16f16>(); }
TEST(FragmentDistribution, Amd32x32x8Bf16_1k) { check_atom<tg::arch::mfma_f32_32x32x8bf16_1k>(); }
TEST(FragmentDistribution, Amd32x32x4Bf16) { check_atom<tg::arch::mfma_f32_32x32x4bf16>(); }
TEST(FragmentDistribution, Amd32x32x2F32) { check_atom<tg::arch::mfma_f32_32x32x2f32>(); }
}  // namespace
