// lowering/gpu/tma_gemm/tf32_transpose.hpp: the MN-major tf32 tile's transposers, over whole k-tiles of
// every instantiated row count. The two byte maps are checked against the GEMM's shared-tile layouts
// (smem_tile_desc: [k][rows] column blocks as the TMA lands MN-major boxes, [rows][k] as wgmma reads
// K-major ones, both checked against the hardware's swizzle in smem_tile_test.cpp); the blocks cover
// every (k, row) once; an emulation of the threads' 16-byte reads and writes moves every element to
// its K-major place; and each 8-lane phase of a 16-byte access touches 8 distinct bank groups; for
// both teams of transposers (the producer warpgroup's 96 threads, the consumers' 256).
#include "lowering/gpu/tma_gemm/tf32_transpose.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <vector>

#include "lowering/gpu/smem_tile.hpp"

namespace {
using tg::index_t;
using namespace tg::tma_gemm;

TEST(Tf32Transpose, ByteMapsAreTheTileLayouts) {
  constexpr index_t rows = 256;
  const auto mn = tg::gpu_gemm::smem_tile_desc<32, rows, float>();  // [k][rows]
  const auto km = tg::gpu_gemm::smem_tile_desc<rows, 32, float>();  // [rows][k]
  for (int k = 0; k < 32; ++k)
    for (int r = 0; r < rows; ++r) {
      ASSERT_EQ(tf32_mn_major_byte(k, r), mn.offset({{k, r}}) * 4) << "MN-major (" << k << ", " << r << ")";
      ASSERT_EQ(tf32_k_major_byte(k, r), km.offset({{r, k}}) * 4) << "K-major (" << k << ", " << r << ")";
    }
}

constexpr int consumer_threads = 256;  // two consumer warpgroups (consumers_transpose)

template <int Rows, int Threads>
void check_transpose() {
  SCOPED_TRACE(testing::Message() << Rows << " rows, " << Threads << " threads");
  // The blocks: each (k, row) exactly once.
  std::vector<int> hits(32 * Rows, 0);
  for (int t = 0; t < tf32_blocks<Rows>; ++t) {
    const tf32_block b = tf32_block_of(t);
    ASSERT_TRUE(b.kb >= 0 && b.kb < 8 && b.rc >= 0 && b.rc < Rows / 4) << "block " << t;
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) ++hits[(4 * b.kb + j) * Rows + 4 * b.rc + i];
  }
  for (int e = 0; e < 32 * Rows; ++e) ASSERT_EQ(hits[e], 1) << "element " << e;
  // The threads' moves, emulated: the landed tile holds element id k * Rows + row + 1 at its MN-major
  // byte; the stage, poisoned, must end with each id at its K-major byte.
  std::vector<float> landed(32 * Rows), stage(32 * Rows, -1.0f);
  for (int k = 0; k < 32; ++k)
    for (int r = 0; r < Rows; ++r) landed[tf32_mn_major_byte(k, r) / 4] = static_cast<float>(k * Rows + r + 1);
  for (int t = 0; t < Threads; ++t)
    for (int i = t; i < tf32_blocks<Rows>; i += Threads) {
      const tf32_block b = tf32_block_of(i);
      float v[4][4];
      for (int j = 0; j < 4; ++j) {
        const int at = tf32_mn_major_byte(4 * b.kb + j, 4 * b.rc);
        ASSERT_EQ(at % 16, 0);
        std::memcpy(v[j], &landed[at / 4], 16);
      }
      for (int r = 0; r < 4; ++r) {
        const int at = tf32_k_major_byte(4 * b.kb, 4 * b.rc + r);
        ASSERT_EQ(at % 16, 0);
        for (int j = 0; j < 4; ++j) stage[at / 4 + j] = v[j][r];
      }
    }
  for (int k = 0; k < 32; ++k)
    for (int r = 0; r < Rows; ++r) ASSERT_EQ(stage[tf32_k_major_byte(k, r) / 4], static_cast<float>(k * Rows + r + 1)) << "(" << k << ", " << r << ")";
  // Bank groups: the 8 lanes of each phase of every warp's 16-byte access (blocks of one loop trip of
  // the Threads threads, t = 32 w + lane) hit 8 distinct 16-byte groups of the 32 banks.
  for (int trip = 0; trip * Threads < tf32_blocks<Rows>; ++trip)
    for (int w = 0; w < Threads / 32; ++w)
      for (int phase = 0; phase < 4; ++phase)
        for (int j = 0; j < 4; ++j) {
          std::set<int> reads, writes;
          int lanes = 0;
          for (int lane = 8 * phase; lane < 8 * phase + 8; ++lane) {
            const int t = trip * Threads + 32 * w + lane;
            if (t >= tf32_blocks<Rows>) continue;
            const tf32_block b = tf32_block_of(t);
            reads.insert(tf32_mn_major_byte(4 * b.kb + j, 4 * b.rc) / 16 % 8);
            writes.insert(tf32_k_major_byte(4 * b.kb, 4 * b.rc + j) / 16 % 8);
            ++lanes;
          }
          EXPECT_EQ(static_cast<int>(reads.size()), lanes) << "read bank conflict: trip " << trip << " warp " << w << " phase " << phase << " row " << j;
          EXPECT_EQ(static_cast<int>(writes.size()), lanes) << "write bank conflict: trip " << trip << " warp " << w << " phase " << phase << " k " << j;
        }
}

TEST(Tf32Transpose, EveryElementToItsKMajorPlaceWithoutBankConflicts) {
  check_transpose<64, transposer_threads>();
  check_transpose<128, transposer_threads>();
  check_transpose<256, transposer_threads>();
  check_transpose<64, consumer_threads>();
  check_transpose<128, consumer_threads>();
  check_transpose<256, consumer_threads>();
}

// The moves as the kernel makes them (transpose_tf32_stage): each thread's blocks of a whole k-tile
// (A's, then B's after A's lines) from tf32_move_of, every read and write from the block's first by
// tf32_nth: every element of A and B to its K-major place; tf32_nth the same on 1024-aligned bases.
template <int BM, int BN, int Threads>
void check_moves() {
  SCOPED_TRACE(testing::Message() << BM << "x" << BN << ", " << Threads << " threads");
  constexpr int n = tf32_blocks<BM> + tf32_blocks<BN>, bytes = (BM + BN) * 128;
  auto id = [](int op, int k, int r) { return static_cast<float>(op * 1000000 + k * 1000 + r + 1); };
  std::vector<float> landed(bytes / 4), stage(bytes / 4, -1.0f);
  for (int k = 0; k < 32; ++k) {
    for (int r = 0; r < BM; ++r) landed[tf32_mn_major_byte(k, r) / 4] = id(0, k, r);
    for (int r = 0; r < BN; ++r) landed[(BM * 128 + tf32_mn_major_byte(k, r)) / 4] = id(1, k, r);
  }
  int moved = 0;
  for (int t = 0; t < Threads; ++t)
    for (int i = t; i < n; i += Threads, ++moved) {
      const tf32_move m = tf32_move_of<BM>(i);
      for (int j = 0; j < 4; ++j) {
        const int from = tf32_nth(m.read, j), to = tf32_nth(m.write, j);
        ASSERT_TRUE(from % 16 == 0 && from >= 0 && from < bytes && to % 16 == 0 && to >= 0 && to < bytes) << "block " << i;
        for (int e = 0; e < 4; ++e) stage[to / 4 + e] = landed[tf32_nth(m.read, e) / 4 + j];  // row j of the block: element j of each k's run
      }
    }
  EXPECT_EQ(moved, n);
  for (int k = 0; k < 32; ++k) {
    for (int r = 0; r < BM; ++r) ASSERT_EQ(stage[tf32_k_major_byte(k, r) / 4], id(0, k, r)) << "A (" << k << ", " << r << ")";
    for (int r = 0; r < BN; ++r) ASSERT_EQ(stage[(BM * 128 + tf32_k_major_byte(k, r)) / 4], id(1, k, r)) << "B (" << k << ", " << r << ")";
  }
  // tf32_nth on a 1024-aligned base: the same as on the offset (the kernel adds the slot's address first or last).
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 4; ++j)
      for (int base : {1024, 7 * 1024, 200 * 1024}) {
        const tf32_move m = tf32_move_of<BM>(i);
        ASSERT_EQ(tf32_nth(base + m.read, j), base + tf32_nth(m.read, j));
        ASSERT_EQ(tf32_nth(base + m.write, j), base + tf32_nth(m.write, j));
      }
}
TEST(Tf32Transpose, ThreadMovesOfTheInstantiatedTiles) {
  check_moves<256, 128, transposer_threads>();
  check_moves<128, 128, transposer_threads>();
  check_moves<256, 64, transposer_threads>();
  check_moves<256, 128, consumer_threads>();
  check_moves<128, 128, consumer_threads>();
  check_moves<256, 64, consumer_threads>();
}

// The MN-major tf32 tiles' rings (plan.hpp): the landing slots cover the TMA's latency, the stages the
// hand-over to the consumers; both at least 2, within sm_90's 227 KB.
template <int BM, int BN>
void check_rings(int stages, int landing) {
  using P = mn_tf32_tile<BM, BN>;
  SCOPED_TRACE(testing::Message() << BM << "x" << BN);
  EXPECT_EQ(P::stages, stages);
  EXPECT_EQ(P::landing_slots, landing);
  EXPECT_EQ(transposer_arrivals<P>(false), transposer_threads);  // the kernel's barrier counts
  EXPECT_EQ(transposer_arrivals<P>(true), consumer_threads);
  EXPECT_LE(P::smem_bytes, 227 * 1024);
  EXPECT_EQ(P::stage_bytes, (BM + BN) * 128) << "a stage holds one 128-byte row of 32 fp32 per tile row";
}
TEST(Tf32Transpose, RingsOfTheInstantiatedTiles) {
  check_rings<256, 128>(2, 2);
  check_rings<128, 128>(3, 3);
  check_rings<256, 64>(2, 3);
}
}  // namespace
