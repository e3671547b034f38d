// The plan of the one-pass row_sums_then_affine (group_rows.hpp): how a block holds a group of rows
// in shared memory and which of its threads reads, sums and writes which elements. Host and device
// arithmetic; host-tested against a brute-force index map by tests/lowering/gpu/group_rows_plan_test.cpp.
//
// The rows are those of row_reduce.hpp's fast paths, [(R1, R0), L] over a strided tensor (groupnorm's
// [(N, C), HW]): element (r1, r0, l) at r1 * s1 + r0 * s0 + l * sl. A group is `rows` consecutive r0
// (groupnorm's channels of one (n, group)); group q starts at r1 = q / (R0 / rows), r0 = q % (R0 / rows) * rows.
// Its elements are walked by teams of threads, each team one line of the group:
//   contiguous rows (sl = 1, NCHW): a team per row k, walking the row's vectors w of `vec` elements;
//   interleaved rows (s0 = 1, NHWC): a team per vector of `vec` channels, walking the positions w = l.
// A thread keeps one line's sums, so a row's sum is its team's partials added in a fixed order (the
// result is bit-identical run to run), and it reads back from shared memory only what it wrote there.
// Shared memory holds the group in its memory order (element e = k * L + l, or l * rows + k).
#pragma once
#include <cstddef>
#include "dsl/config.hpp"

namespace tg {
struct group_rows_layout {  // the rows3 of row_reduce.hpp's fast paths
  int R1 = 0, R0 = 0, L = 0, s1 = 0, s0 = 0, sl = 0;
};

struct group_rows_plan {
  bool ok = false;
  const char* why = "";
  bool interleaved = false;
  int rows = 0;           // rows per group
  int vec = 1;            // elements per access: a 16-byte word, or 1 where words do not fit the strides
  int teams = 0, walk = 0;  // lines of a group (rows, or channel vectors) and the steps along each (vectors, or positions)
  int slots = 0, team = 0;  // lines walked at once and threads per line: thread t has (slot, member) below
  int groups = 0, grid = 0;  // groups of the problem and blocks launched (each walks groups blockIdx.x + i * grid)
  int L = 0, s1 = 0, s0 = 0, sl = 0, R0 = 0;
  std::size_t data_bytes = 0;  // one tensor's group in shared memory (16-byte aligned)
  std::size_t smem = 0;        // u's and v's groups, the partial sums (dot, sum), the rows' sums and coefficients (5 x rows floats)

  TG_HD int partials() const { return teams * team * (interleaved ? vec : 1); }  // team = 1 where teams > slots
  // Thread t's line slot and its member index in the line's team (t >= slots * team: idle).
  TG_HD int slot_of(int t) const { return interleaved ? t % slots : t / team; }
  TG_HD int member_of(int t) const { return interleaved ? t / slots : t % team; }
  // Group q's first element.
  TG_HD int base(int q) const {
    const int per = R0 / rows, r1 = q / per;
    return r1 * s1 + (q - r1 * per) * rows * s0;
  }
  // Step w of line j: its element's index in shared memory (from the group's start, in elements) and
  // its offset in the tensor from the group's base. vec consecutive elements from either.
  TG_HD int smem_index(int j, int w) const { return interleaved ? w * rows + j * vec : j * L + w * vec; }
  TG_HD int offset(int j, int w) const { return interleaved ? w * sl + j * vec : j * s0 + w * vec; }
  // The row of element i (< vec) of line j's steps, and where a thread's partial for that row goes.
  TG_HD int row_of(int j, int i) const { return interleaved ? j * vec + i : j; }
  TG_HD int partial_index(int j, int member, int i) const { return interleaved ? (j * team + member) * vec + i : j * team + member; }
};

// threads: the block's; smem_limit: the most shared memory a block may take; resident: blocks of the
// kernel per multiprocessor at that size are decided by the caller (it knows the kernel).
inline group_rows_plan plan_group_rows(const group_rows_layout& g, int rows, int elem_bytes, bool aligned16, int threads, std::size_t smem_limit,
                                       int processors) {
  group_rows_plan p;
  auto no = [&](const char* why) { p.why = why; return p; };
  if (g.R1 <= 0 || g.R0 <= 0 || g.L <= 0 || rows <= 0) return no("an empty problem");
  if (g.R0 % rows != 0) return no("groups straddle the outer dimension");
  const bool contiguous = g.sl == 1, interleaved = !contiguous && g.s0 == 1;
  if (!contiguous && !interleaved) return no("neither rows nor channels are contiguous");
  const int word = 16 / elem_bytes;
  const int along = contiguous ? g.L : rows;  // the contiguous run a word must divide, and every stride
  const bool words = aligned16 && along % word == 0 && g.s1 % word == 0 && (contiguous ? g.s0 : g.sl) % word == 0;
  p.interleaved = interleaved;
  p.rows = rows;
  p.vec = words ? word : 1;
  p.teams = contiguous ? rows : rows / p.vec;
  p.walk = contiguous ? g.L / p.vec : g.L;
  p.slots = p.teams < threads ? p.teams : threads;
  p.team = threads / p.slots;
  p.groups = g.R1 * (g.R0 / rows);
  p.L = g.L; p.s1 = g.s1; p.s0 = g.s0; p.sl = g.sl; p.R0 = g.R0;
  const std::size_t elems = static_cast<std::size_t>(rows) * static_cast<std::size_t>(g.L);
  p.data_bytes = (elems * static_cast<std::size_t>(elem_bytes) + 15) / 16 * 16;
  p.smem = 2 * p.data_bytes + (2 * static_cast<std::size_t>(p.partials()) + 5 * static_cast<std::size_t>(rows)) * sizeof(float);
  // Channels-last, a position's channels of one group are a run of rows * elem_bytes bytes: under a
  // 128-byte line, a block owning one group reads a sliver of each line (session 33: NHWC 8 fp16 channels
  // 1.5x slower than the three passes, which read every group's channels of a position together).
  if (interleaved && rows * elem_bytes < 128) return no("channels-last groups narrower than a 128-byte line");
  if (p.smem > smem_limit) return no("a group does not fit in a block's shared memory");
  // Fewer groups than multiprocessors would leave processors idle that the three-kernel form uses.
  if (p.groups < processors) return no("fewer groups than multiprocessors");
  p.ok = true;
  return p;
}
}  // namespace tg
