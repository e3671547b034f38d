// Stacked boxes: an MN-major operand tile that boxes.hpp makes of several TMA boxes along the
// contiguous axis, fetched as one box of a tensor map with that axis split in two (derivation on the
// host, the corner's transform for the kernel; tests/lowering/gpu/stack_boxes_test.cpp and the TMA
// plan tests).
#pragma once
#include "lowering/gpu/boxes.hpp"

namespace tg::boxes {
// An MN-major tile's consecutive boxes along the contiguous axis (all of them, or the `along` of each
// step of a step digit: boxes.hpp) as one box: that axis split into (c % bk, c / bk), the second a new
// last axis (128-byte stride) over which the box takes n steps, so the TMA writes box i's [k][bk] rows
// at i x (its size), where the separate boxes went, and the producer issues one load instead of n (the
// fp32 backward weight's producer was its critical path at 12 box loads a k-tile: performance.md
// section 41). Exact where the axis's length is a multiple of bk and every corner lies on a multiple of
// bk: an element of the split axes is then outside the tensor exactly where the unsplit one is. Needs a
// free axis (rank under 5); else o stays as it is. The map's axes are then no longer in ascending
// stride (axes_of's order): the new one, 128 bytes apart, is last.
inline bool stack_boxes(operand_boxes& o, const view_digits& d, const extents& ext_rows, const extents& ext_k, int bk) {
  const int n = o.step_digit >= 0 ? o.along : o.boxes;
  if (!o.ok || !o.mn_major || n < 2 || o.box.rank >= max_rank) return false;
  if (o.box.length[0] % bk != 0 || o.box.box[0] != bk || !corners_on(o, d, ext_rows, ext_k, bk)) return false;
  const int shift = ceil_log2(bk);
  if ((1 << shift) != bk) return false;
  const int a = o.box.rank++;
  o.box.length[a] = o.box.length[0] / bk, o.box.stride[a] = bk;
  o.box.box[a] = n, o.box.elem_stride[a] = 1;
  o.box.length[0] = bk;
  if (o.step_digit < 0) o.box_step[0] = 0;
  o.stack_shift = shift;
  o.stacked = n;
  return true;
}

// A stacked operand's load coordinates from the corner its steps give (element c0 on axis 0, a multiple
// of bk): (0, .., c0 / bk) on the split axes. The kernel's producer and the host tests use it.
TG_HD inline void stacked_corner(int (&x)[max_rank], int rank, int shift) {
  x[rank - 1] = x[0] >> shift;
  x[0] = 0;
}
}  // namespace tg::boxes
