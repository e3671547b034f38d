// relayout: a tensor copied from one memory layout to another (any permutation of its dimensions:
// NCHW <-> NHWC, NCDHW <-> NDHWC, GNHWC <-> NHWGC, ...), with an optional element-type conversion.
// The op is its two ordered descriptors and one pipeline call (lowering/relayout.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "dsl/descriptor.hpp"
#include "lowering/relayout.hpp"
#include "ops/check.hpp"

namespace tg::ops {
struct relayout_problem {
  static constexpr int max_rank = 6;
  std::vector<index_t> lengths;         // in logical order (for a 4-d image tensor: N, C, H, W)
  std::vector<int> src_order, dst_order;  // memory order of each: order[0] the slowest logical dimension

  index_t elements() const {
    index_t n = 1;
    for (index_t l : lengths) n *= l;
    return n;
  }
  void validate(const char* op, std::size_t src_bytes = sizeof(float), std::size_t dst_bytes = sizeof(float)) const {
    const int r = static_cast<int>(lengths.size());
    // Messages are callables (ops/check.hpp): built only for a failing check.
    require(r >= 1 && r <= max_rank, op, "lengths", [&] { return "must have 1 to " + std::to_string(max_rank) + " dimensions, got " + std::to_string(r); });
    for (int d = 0; d < r; ++d)
      require(lengths[d] > 0, op, [&] { return "lengths[" + std::to_string(d) + "]"; }, [&] { return "must be positive, got " + std::to_string(lengths[d]); });
    for (const auto& [order, name] : {std::pair{&src_order, "src_order"}, {&dst_order, "dst_order"}}) {
      require(static_cast<int>(order->size()) == r, op, name,
              [&, n = order->size()] { return "must list the " + std::to_string(r) + " dimensions once each, got " + std::to_string(n) + " entries"; });
      std::vector<bool> seen(static_cast<std::size_t>(r), false);
      for (int d : *order) {
        require(d >= 0 && d < r && !seen[static_cast<std::size_t>(d)], op, name,
                [&] { return "must be a permutation of 0.." + std::to_string(r - 1) + " (entry " + std::to_string(d) + ")"; });
        seen[static_cast<std::size_t>(d)] = true;
      }
    }
    require_size(op, "src", lengths, src_bytes);
    require_size(op, "dst", lengths, dst_bytes);
  }
  // The tensor in `order`, padded to max_rank with length-1 dimensions (one instantiation per
  // element type, whatever the rank).
  auto desc(const std::vector<int>& order) const {
    multi_index<max_rank> len{};
    array<int, max_rank> ord{};
    const int r = static_cast<int>(lengths.size());
    for (int d = 0; d < max_rank; ++d) len[d] = d < r ? lengths[d] : 1, ord[d] = d < r ? order[d] : d;
    return make_ordered_descriptor(len, ord);
  }
};

template <class TD, class TS, class Backend>
void relayout(Backend& be, const relayout_problem& p, const TS* src, TD* dst) {
  p.validate("relayout", sizeof(TS), sizeof(TD));
  const auto s = reinterpret_cast<std::uintptr_t>(src), d = reinterpret_cast<std::uintptr_t>(dst);
  const auto n = static_cast<std::uintptr_t>(p.elements());
  require(d + n * sizeof(TD) <= s || s + n * sizeof(TS) <= d, "relayout", "dst", "overlaps src (the copy is not in place)");
  relayout(be, make_view(dst, p.desc(p.dst_order)), make_view(src, p.desc(p.src_order)));  // the backend's pipeline (by argument lookup)
}
}  // namespace tg::ops
