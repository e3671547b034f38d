// xor_swizzle: (row, col) -> (row, col ^ (row % cols)), cols a power of two: the whole domain, a
// bijection on each row, and distinct lower columns for a column read over cols consecutive rows.
#include "dsl/transform/xor_swizzle.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

#include <algorithm>
#include <set>

using namespace tg::test;

static_assert(tg::xor_swizzle{tg::n_<8>, tg::n_<4>}.lower({{5, 2}})[1] == 3);  // 2 xor (5 mod 4)

namespace {
// Brute force: col XOR (row mod cols), with the modulo taken by %, not by the mask. Also checks that
// each row is a permutation of [0, cols) and that a column of any `cols` consecutive rows lands on
// distinct lower columns (the bank-conflict property the swizzle exists for).
template <class X>
void check_xor(const X& x, index_t rows, index_t cols, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "xor_swizzle rows " << rows << " cols " << cols);
  check_transform(x, {rows, cols}, [&](const multi_index<2>& u) { return multi_index<2>{{u[0], u[1] ^ (u[0] % cols)}}; }, always, rng);
  for (index_t r = 0; r < rows; ++r) {
    std::vector<index_t> seen;
    for (index_t c = 0; c < cols; ++c) {
      const auto l = x.lower({{r, c}});
      ASSERT_EQ(l[0], r);
      seen.push_back(l[1]);
    }
    std::sort(seen.begin(), seen.end());
    for (index_t c = 0; c < cols; ++c) ASSERT_EQ(seen[c], c) << "row " << r << " is not a permutation";
  }
  for (index_t c = 0; c < cols; ++c)
    for (index_t r0 = 0; r0 + cols <= rows; ++r0) {
      std::set<index_t> lanes;
      for (index_t r = r0; r < r0 + cols; ++r) lanes.insert(x.lower({{r, c}})[1]);
      ASSERT_EQ(index_t(lanes.size()), cols) << "column " << c << " from row " << r0;
    }
}
}  // namespace

TEST(TransformXorSwizzle, PowerOfTwoWidthsWholeDomain) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (index_t cols : {1, 2, 4, 8, 16, 32}) {
      const index_t rows = uniform(rng, 1, 40);
      check_xor(tg::xor_swizzle{rows, cols}, rows, cols, rng);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(TransformXorSwizzle, StaticAndMixedParameters) {
  std::mt19937 rng(11);
  check_xor(tg::xor_swizzle{tg::n_<8>, tg::n_<8>}, 8, 8, rng);
  check_xor(tg::xor_swizzle{index_t{20}, tg::n_<4>}, 20, 4, rng);
  check_xor(tg::xor_swizzle{tg::n_<3>, index_t{16}}, 3, 16, rng);
  check_xor(tg::xor_swizzle{tg::n_<64>, tg::n_<32>}, 64, 32, rng);
}

// The worked example of docs/transforms.md: cols 4, row 5 (5 mod 4 = 1) maps columns 0 1 2 3 to 1 0 3 2.
TEST(TransformXorSwizzle, WorkedExample) {
  const tg::xor_swizzle x{index_t{8}, tg::n_<4>};
  std::vector<index_t> got;
  for (index_t c = 0; c < 4; ++c) got.push_back(x.lower({{5, c}})[1]);
  EXPECT_EQ(got, (std::vector<index_t>{1, 0, 3, 2}));
  // Moving from (5, 3) to (6, 3): lower column 2 -> 3 ^ 2 = 1, so the column step is -1.
  EXPECT_EQ(vec(x.lower_step({{1, 0}}, x.lower({{5, 3}}), {{6, 3}})), (std::vector<index_t>{1, -1}));
}
