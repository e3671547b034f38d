// lowering/gpu/stacked_boxes.hpp. An MN-major tile's boxes along the contiguous axis as one box
// over that axis split in two: over random tensors (ranks 1-4, lengths, strides, gaps between rows) and
// random corners (inside, past the edges, negative on the other axes), the one load brings, element for
// element and in the same shared-memory order, what the separate boxes bring, zeros included; and it is
// refused where it would not be exact (an axis not whole rows, a corner off a row, no free axis).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "lowering/gpu/stacked_boxes.hpp"
#include "tma_box_emulation.hpp"

namespace {
using tg::boxes::operand_boxes;

// A random MN-major operand of `boxes` boxes along axis 0, each bk rows x random counts on the others.
operand_boxes random_operand(std::mt19937& rng, int bk, int rank, int boxes, std::int64_t& elements) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  operand_boxes o;
  o.ok = true, o.mn_major = true, o.boxes = boxes;
  o.box.rank = rank;
  o.box.length[0] = static_cast<std::int64_t>(bk) * pick(1, 2 * boxes + 1);
  o.box.stride[0] = 1, o.box.box[0] = bk, o.box.elem_stride[0] = 1;
  std::int64_t stride = o.box.length[0] + bk * pick(0, 1);  // rows with a gap of a whole row, or none
  for (int a = 1; a < rank; ++a) {
    o.box.length[a] = pick(1, 5), o.box.stride[a] = stride, o.box.box[a] = pick(1, 3), o.box.elem_stride[a] = 1;
    stride *= o.box.length[a] + pick(0, 1);
  }
  o.box_step[0] = bk;
  elements = stride;
  return o;
}
}  // namespace

TEST(StackBoxes, OneLoadBringsWhatTheSeparateBoxesBring) {
  std::mt19937 rng(20261203);
  int stacked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int bk = trial % 2 ? 32 : 64, rank = 1 + trial % 4, n_boxes = 2 << (trial / 4 % 3);
    std::int64_t n = 0;
    operand_boxes o = random_operand(rng, bk, rank, n_boxes, n);
    std::vector<float> data(static_cast<std::size_t>(n));
    for (auto& x : data) x = std::uniform_real_distribution<float>(1.0f, 2.0f)(rng);  // zero only where outside
    tg::boxes::view_digits d;  // no digits: the corners are the ones below
    tg::boxes::extents none;
    operand_boxes s = o;
    ASSERT_TRUE(tg::boxes::stack_boxes(s, d, none, none, bk)) << "trial " << trial;
    ++stacked;
    ASSERT_EQ(s.box.rank, rank + 1);
    ASSERT_EQ(s.box.elements(), o.box.elements() * n_boxes);
    for (int c = 0; c < 20; ++c) {
      int x[tg::boxes::max_rank] = {};
      x[0] = bk * std::uniform_int_distribution<int>(-1, static_cast<int>(o.box.length[0] / bk))(rng);
      for (int a = 1; a < rank; ++a) x[a] = std::uniform_int_distribution<int>(-2, static_cast<int>(o.box.length[a]))(rng);
      std::vector<float> want;
      int at[tg::boxes::max_rank];
      std::copy(x, x + tg::boxes::max_rank, at);
      for (int i = 0; i < n_boxes; ++i, at[0] += o.box_step[0]) {
        const auto one = tg::test::emulate_box(o.box, data.data(), at);
        want.insert(want.end(), one.begin(), one.end());
      }
      tg::boxes::stacked_corner(x, s.box.rank, s.stack_shift);
      ASSERT_EQ(tg::test::emulate_box(s.box, data.data(), x), want) << "trial " << trial << " corner " << c;
    }
  }
  EXPECT_EQ(stacked, 400);
}

TEST(StackBoxes, RefusedWhereNotExact) {
  std::mt19937 rng(7);
  std::int64_t n = 0;
  tg::boxes::view_digits d;
  tg::boxes::extents none;
  const operand_boxes o = random_operand(rng, 32, 3, 4, n);
  operand_boxes s = o;
  s.box.length[0] += 8;  // the last row partial: its tail would read the next position's elements
  EXPECT_FALSE(tg::boxes::stack_boxes(s, d, none, none, 32));
  s = o, s.base[0] = 16;  // corners off a row
  EXPECT_FALSE(tg::boxes::stack_boxes(s, d, none, none, 32));
  s = o;  // a row digit stepping axis 0 by half a row per tile
  d.count[1] = 1, s.step[1][0][0] = 16;
  tg::boxes::extents one;
  EXPECT_FALSE(tg::boxes::stack_boxes(s, d, one, none, 32));
  one.e[0] = 2;  // ... or two of them: whole rows again
  EXPECT_TRUE(tg::boxes::stack_boxes(s, d, one, none, 32));
  d = {};
  s = o, s.box.rank = tg::boxes::max_rank;  // no free axis
  EXPECT_FALSE(tg::boxes::stack_boxes(s, d, none, none, 32));
  s = o, s.step_digit = 1;  // boxes along a tap, not the contiguous axis
  EXPECT_FALSE(tg::boxes::stack_boxes(s, d, none, none, 32));
  s = o, s.boxes = 1;
  EXPECT_FALSE(tg::boxes::stack_boxes(s, d, none, none, 32));
}
