// A TMA box's elements as the Tensor Memory Accelerator brings them for a corner, on the host: axis 0
// fastest, zero outside the tensor (the staged pipelines' plan tests read their shared memory from it).
#pragma once
#include <vector>
#include "arch/tma_box.hpp"
#include "dsl/numeric.hpp"

namespace tg::test {
template <class T>
std::vector<float> emulate_box(const arch::tma_box& b, const T* data, const int* corner) {
  std::vector<float> out(static_cast<std::size_t>(b.elements()));
  int e[arch::tma_box::max_rank] = {};
  for (std::size_t i = 0; i < out.size(); ++i) {
    index_t off = b.base;
    bool in = true;
    for (int a = 0; a < b.rank; ++a) {
      const index_t c = corner[a] + e[a];
      in = in && c >= 0 && c < b.length[a];
      off += c * b.stride[a];
    }
    out[i] = in ? to_float(data[off]) : 0.0f;
    for (int a = 0; a < b.rank && ++e[a] == b.box[a]; ++a) e[a] = 0;
  }
  return out;
}
}  // namespace tg::test
