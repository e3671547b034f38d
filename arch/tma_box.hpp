// What a Tensor Memory Accelerator box load needs, as plain numbers (no CUDA types, so host code and
// host tests use it): a tensor of up to 5 axes (axis 0 contiguous), its lengths and strides, and a
// box (elements per axis, traversal stride per axis). A load at integer coordinates c brings the
// elements c[a] + e * elem_stride[a], e < box[a] / elem_stride[a], axis 0 fastest into shared memory;
// an element outside [0, length) on any axis arrives as zero (that is how padding is read).
// arch/tma_nvidia.hpp encodes it as a CUtensorMap; tests emulate it element by element.
#pragma once
#include <cstdint>

namespace tg::arch {
struct tma_box {
  static constexpr int max_rank = 5;
  int rank = 0;
  std::int64_t base = 0;                 // element offset of coordinate 0 from the view's pointer
  std::int64_t length[max_rank] = {};    // elements per axis
  std::int64_t stride[max_rank] = {};    // elements; stride[0] = 1
  int box[max_rank] = {};                // elements traversed per axis (count * elem_stride)
  int elem_stride[max_rank] = {};        // traversal step per axis (1 on axis 0)
  int count(int a) const { return box[a] / elem_stride[a]; }
  int elements() const {
    int n = 1;
    for (int a = 0; a < rank; ++a) n *= count(a);
    return n;
  }
};
}  // namespace tg::arch
