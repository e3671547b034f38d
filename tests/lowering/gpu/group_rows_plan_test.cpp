// The one-pass row_sums_then_affine's plan (lowering/gpu/group_rows_plan.hpp) against a brute-force
// index map over random row layouts: walking every thread's lines and steps as the kernel does, each
// element of a group is visited exactly once, at the tensor offset r1 * s1 + r0 * s0 + l * sl of its
// row and position, stored in shared memory at its place in the group's memory order, its row's
// partial sum goes to a slot no other (row, member) takes, and the row's final sum (members 0..team-1
// in order) adds exactly the slots its elements went to. Plus the choice: which problems take it.
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>
#include <unordered_map>
#include <vector>
#include "lowering/gpu/group_rows_plan.hpp"

namespace {
using tg::group_rows_layout;
using tg::group_rows_plan;

void check_group(const group_rows_plan& p, const group_rows_layout& g, int threads, int q) {
  const int per = g.R0 / p.rows, r1 = q / per, r00 = (q % per) * p.rows, base = p.base(q);
  ASSERT_EQ(base, r1 * g.s1 + r00 * g.s0);
  std::vector<int> seen(static_cast<std::size_t>(p.rows) * g.L, 0);
  std::set<int> smem_used, partial_used;
  std::map<int, std::set<int>> partials_of_row;  // row -> the partial slots its elements were summed into
  std::unordered_map<int, std::pair<int, int>> element_at;  // the group's elements by offset: (k, l)
  for (int k = 0; k < p.rows; ++k)
    for (int l = 0; l < g.L; ++l) element_at[r1 * g.s1 + (r00 + k) * g.s0 + l * g.sl] = {k, l};
  for (int t = 0; t < threads; ++t) {
    const int slot = p.slot_of(t), member = p.member_of(t);
    if (t >= p.slots * p.team) continue;  // idle
    ASSERT_LT(slot, p.slots);
    ASSERT_LT(member, p.team);
    for (int j = slot; j < p.teams; j += p.slots) {
      for (int e = 0; e < (p.interleaved ? p.vec : 1); ++e) {
        const int slot_index = p.partial_index(j, member, e);
        ASSERT_GE(slot_index, 0);
        ASSERT_LT(slot_index, p.partials());
        ASSERT_TRUE(partial_used.insert(slot_index).second) << "partial slot taken twice";
      }
      for (int w = member; w < p.walk; w += p.team) {
        if (p.vec > 1) {
          ASSERT_EQ((base + p.offset(j, w)) % p.vec, 0) << "a word starts off its 16-byte boundary";
          ASSERT_EQ(p.smem_index(j, w) % p.vec, 0);
        }
        for (int e = 0; e < p.vec; ++e) {
          // Brute force: which (row k, position l) of the group sits at this offset?
          const int off = base + p.offset(j, w) + e;
          const auto at = element_at.find(off);
          ASSERT_TRUE(at != element_at.end()) << "offset " << off << " is not an element of group " << q;
          const int found_k = at->second.first, found_l = at->second.second;
          ASSERT_EQ(p.row_of(j, p.interleaved ? e : 0), found_k);
          ASSERT_EQ(seen[static_cast<std::size_t>(found_k) * g.L + found_l]++, 0) << "element visited twice";
          const int memory_rank = p.interleaved ? found_l * p.rows + found_k : found_k * g.L + found_l;
          ASSERT_EQ(p.smem_index(j, w) + e, memory_rank);
          ASSERT_TRUE(smem_used.insert(memory_rank).second);
          partials_of_row[found_k].insert(p.partial_index(j, member, p.interleaved ? e : 0));
        }
      }
    }
  }
  for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "element " << i << " of group " << q << " not visited";
  // The final sum of row r (the kernel's phase 2) reads members 0..team-1 of its line: every slot
  // its elements were summed into is among them.
  for (int r = 0; r < p.rows; ++r) {
    const int j = p.interleaved ? r / p.vec : r, e = p.interleaved ? r % p.vec : 0;
    std::set<int> read;
    for (int m = 0; m < p.team; ++m) read.insert(p.partial_index(j, m, e));
    for (int s : partials_of_row[r]) ASSERT_TRUE(read.count(s)) << "row " << r << "'s partial " << s << " is not added";
  }
}

TEST(GroupRowsPlan, EveryElementOnceAtItsOffsetOverRandomLayouts) {
  std::mt19937 rng(20261129);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int planned[2][2] = {};  // [interleaved][words]
  for (int trial = 0; trial < 400; ++trial) {
    const int elem = pick(0, 1) ? 2 : 4, word = 16 / elem;
    const bool channels_last = pick(0, 1);
    // Channels-last groups of at least a 128-byte line of channels (narrower ones are refused).
    const int least = channels_last ? 128 / elem : 1;
    const int rows = least + (pick(0, 2) == 0 ? word * pick(0, 3) : pick(0, 12)), per = pick(1, 4), R0 = rows * per, R1 = pick(1, 3);
    const int L = pick(0, 2) == 0 ? word * pick(1, 12) : pick(1, channels_last ? 20 : 70);
    const int pad = pick(0, 2) == 0 ? word * pick(0, 2) : pick(0, 3);  // strides past the dense ones
    group_rows_layout g{R1, R0, L, 0, 0, 0};
    if (channels_last) { g.s0 = 1; g.sl = R0 + pad; g.s1 = g.sl * L + pad; }
    else { g.sl = 1; g.s0 = L + pad; g.s1 = g.s0 * R0 + pad; }
    const int threads = pick(0, 3) == 0 ? 512 : 32 * pick(1, 4);  // small blocks: lines outnumber threads
    const group_rows_plan p = tg::plan_group_rows(g, rows, elem, pick(0, 3) != 0, threads, std::size_t{1} << 30, 1);
    ASSERT_TRUE(p.ok) << p.why;
    ASSERT_EQ(p.groups, R1 * per);
    ++planned[p.interleaved][p.vec > 1];
    for (int q : {0, p.groups - 1, pick(0, p.groups - 1)}) {
      check_group(p, g, threads, q);
      if (HasFatalFailure()) return;
    }
  }
  for (int i = 0; i < 2; ++i)
    for (int w = 0; w < 2; ++w) EXPECT_GT(planned[i][w], 10) << "too few plans of kind " << i << w;
}

// The layouts of groupnorm's benchmark cases on an H100/H200 (227 KB a block, 132 multiprocessors).
group_rows_layout rows_of(int N, int C, int HW, bool channels_last) {
  return channels_last ? group_rows_layout{N, C, HW, HW * C, 1, C} : group_rows_layout{N, C, HW, C * HW, HW, 1};
}

TEST(GroupRowsPlan, WhichProblemsTakeTheOnePass) {
  const std::size_t smem = 227 * 1024;
  const int threads = 256;  // group_rows.hpp's
  // U-Net N8 C320 64x64 G32: 10 channels of 4096 positions a group, 256 groups.
  auto p = tg::plan_group_rows(rows_of(8, 320, 4096, false), 10, 2, true, threads, smem, 132);
  EXPECT_TRUE(p.ok) << p.why;
  EXPECT_EQ(p.vec, 8);
  EXPECT_FALSE(p.interleaved);
  EXPECT_EQ(p.team, 25);
  // u, v; dot and sum of 10 rows x 25 members; the rows' sums and coefficients
  EXPECT_EQ(p.smem, 2u * 10 * 4096 * 2 + (2u * 10 * 25 + 5 * 10) * 4);
  // Channels-last, 10 fp16 channels (20 bytes of each 640-byte position): refused.
  p = tg::plan_group_rows(rows_of(8, 320, 4096, true), 10, 2, true, threads, smem, 132);
  EXPECT_FALSE(p.ok);
  EXPECT_STREQ(p.why, "channels-last groups narrower than a 128-byte line");
  EXPECT_FALSE(tg::plan_group_rows(rows_of(32, 256, 3136, true), 8, 4, true, threads, smem, 132).ok);
  // Channels-last groups of a whole line: 64 fp16 channels in words, 33 fp32 channels element by element.
  p = tg::plan_group_rows(rows_of(3, 3072, 9, true), 64, 2, true, threads, smem, 132);
  EXPECT_TRUE(p.ok) << p.why;
  EXPECT_TRUE(p.interleaved);
  EXPECT_EQ(p.vec, 8);
  EXPECT_EQ(p.teams, 8);
  p = tg::plan_group_rows(rows_of(3, 33 * 48, 9, true), 33, 4, true, threads, smem, 132);
  EXPECT_TRUE(p.ok) << p.why;
  EXPECT_EQ(p.vec, 1);
  // fp32: 320 KB a group does not fit.
  EXPECT_FALSE(tg::plan_group_rows(rows_of(8, 320, 4096, false), 10, 4, true, threads, smem, 132).ok);
  // N32 C256 56x56 G32 in fp32: 196 KB a group fits.
  p = tg::plan_group_rows(rows_of(32, 256, 3136, false), 8, 4, true, threads, smem, 132);
  EXPECT_TRUE(p.ok) << p.why;
  EXPECT_EQ(p.vec, 4);
  // Misaligned pointers: element accesses.
  EXPECT_EQ(tg::plan_group_rows(rows_of(32, 256, 3136, false), 8, 2, false, threads, smem, 132).vec, 1);
  // Fewer groups than multiprocessors (N1 G32): the three-kernel form spreads them wider.
  p = tg::plan_group_rows(rows_of(1, 320, 4096, false), 10, 2, true, threads, smem, 132);
  EXPECT_FALSE(p.ok);
  EXPECT_STREQ(p.why, "fewer groups than multiprocessors");
  // AMD's 64 KB of LDS: the U-Net group does not fit; a small one does.
  EXPECT_FALSE(tg::plan_group_rows(rows_of(8, 320, 4096, false), 10, 2, true, threads, 64 * 1024, 120).ok);
  EXPECT_TRUE(tg::plan_group_rows(rows_of(64, 256, 784, false), 8, 2, true, threads, 64 * 1024, 120).ok);
  // Neither rows nor channels contiguous, and groups straddling n.
  EXPECT_FALSE(tg::plan_group_rows({4, 64, 100, 64 * 200, 2, 128}, 8, 2, true, threads, smem, 1).ok);
  EXPECT_FALSE(tg::plan_group_rows(rows_of(4, 60, 100, false), 8, 2, true, threads, smem, 1).ok);
}
}  // namespace
