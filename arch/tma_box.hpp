// What a Tensor Memory Accelerator box load needs, as plain numbers (no CUDA types, so host code and
// host tests use it): a tensor of up to 5 axes (axis 0 contiguous), its lengths and strides, and a
// box (elements per axis, traversal stride per axis). A load at integer coordinates c brings the
// elements c[a] + e * elem_stride[a], e < box[a] / elem_stride[a], axis 0 fastest into shared memory;
// an element outside [0, length) on any axis arrives as zero (that is how padding is read).
// arch/tma_nvidia.hpp encodes it as a CUtensorMap from tma_map_params_of's numbers; tests emulate it
// element by element and check those numbers against the box's own index map.
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

// What cuTensorMapEncodeTiled takes for box b over elements of elem_bytes at address `data` (plain numbers:
// host-tested): the origin (data + base elements), each axis's length, the byte strides of axes 1.., the
// box and its traversal steps. Element c of the tensor is at origin + sum over a > 0 of c[a] x
// strides_bytes[a - 1] + c[0] x elem_bytes.
struct tma_map_params {
  int rank = 0;
  std::uintptr_t origin = 0;
  std::uint64_t dims[tma_box::max_rank] = {};
  std::uint64_t strides_bytes[tma_box::max_rank - 1] = {};
  std::uint32_t box[tma_box::max_rank] = {};
  std::uint32_t elem_strides[tma_box::max_rank] = {};
};

// The parameters, or the first of the driver's documented limits that they break (nullptr: none): rank 1
// to 5, the origin 16-byte aligned, lengths in [1, 2^32], strides multiples of 16 bytes under 2^40, box
// extents in [1, 256] with axis 0 a multiple of 16 bytes (at most 128 under the 128-byte swizzle),
// traversal steps in [1, 8]. The launches ask it first (tma_gemm::tma_refusal) and take another pipeline
// where it refuses; encode_tma throws on a refusal, which is then a bug of the lowering.
inline const char* tma_map_params_of(const tma_box& b, int elem_bytes, const void* data, bool swizzle128, tma_map_params& p) {
  if (b.rank < 1 || b.rank > tma_box::max_rank) return "a rank outside 1..5";
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8) return "an element size other than 1, 2, 4 or 8 bytes";
  const std::int64_t e = elem_bytes;
  p.rank = b.rank;
  p.origin = reinterpret_cast<std::uintptr_t>(data) + static_cast<std::uintptr_t>(b.base * e);
  if (p.origin % 16 != 0) return "the origin is not 16-byte aligned";
  for (int a = 0; a < b.rank; ++a) {
    if (b.length[a] < 1 || b.length[a] > (std::int64_t{1} << 32)) return "an axis length outside 1..2^32";
    if (b.box[a] < 1 || b.box[a] > 256) return "a box extent outside 1..256";
    if (b.elem_stride[a] < 1 || b.elem_stride[a] > 8) return "a traversal step outside 1..8";
    p.dims[a] = static_cast<std::uint64_t>(b.length[a]);
    p.box[a] = static_cast<std::uint32_t>(b.box[a]);
    p.elem_strides[a] = static_cast<std::uint32_t>(b.elem_stride[a]);
    if (a == 0) continue;
    const std::int64_t s = b.stride[a] * e;
    if (s <= 0 || s % 16 != 0 || s >= (std::int64_t{1} << 40)) return "a stride that is not a positive multiple of 16 bytes under 2^40";
    p.strides_bytes[a - 1] = static_cast<std::uint64_t>(s);
  }
  if (b.box[0] * e % 16 != 0) return "a box row that is not a multiple of 16 bytes";
  if (swizzle128 && b.box[0] * e > 128) return "a box row over the 128-byte swizzle";
  return nullptr;
}
}  // namespace tg::arch
