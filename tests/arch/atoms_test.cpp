// Host tests of the matrix-core atoms' fragment layouts (arch/mma_nvidia.hpp, arch/mfma_amd.hpp):
//  (a) each of the A, B, C maps (lane, element) -> (row, col) covers its tile exactly once;
//  (b) the maps equal references written here independently of the headers: the PTX ISA's
//      fragment formulas, spelled the way the ISA states them, and a port of AMD's Matrix
//      Instruction Calculator's gfx9 algorithm (matrix element -> register slot, lane), plus spot
//      values in the calculator's own notation ("v1{37}.[15:0]");
//  (c) an emulated instruction: lanes load A and B through the atom's maps, a model of the
//      hardware (defined by the references) multiplies what the registers mean, lanes store D
//      through the atom's C map, and the result must be A*B + C exactly.
// A mutant layout shows that (b) and (c) catch a wrong map.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "arch/mfma_amd.hpp"
#include "arch/mma_nvidia.hpp"

namespace {
using tg::arch::frag_coord;
using coord_fn = std::function<frag_coord(int lane, int i)>;

// ---------------------------------------------------------------------------------------------
// Generic checks. Each returns the number of violations so that the mutant test can expect some.

// Number of tile positions not hit exactly once, plus out-of-range results.
int bijection_errors(const coord_fn& f, int lanes, int per_lane, int rows, int cols) {
  std::vector<int> hits(rows * cols, 0);
  int errors = 0;
  for (int lane = 0; lane < lanes; ++lane)
    for (int i = 0; i < per_lane; ++i) {
      const frag_coord c = f(lane, i);
      if (c.row < 0 || c.row >= rows || c.col < 0 || c.col >= cols) {
        ++errors;
        continue;
      }
      ++hits[c.row * cols + c.col];
    }
  for (int h : hits) errors += h != 1;
  return errors;
}

// Number of (lane, element) where two maps disagree.
int map_differences(const coord_fn& f, const coord_fn& ref, int lanes, int per_lane) {
  int diff = 0;
  for (int lane = 0; lane < lanes; ++lane)
    for (int i = 0; i < per_lane; ++i) diff += f(lane, i) != ref(lane, i);
  return diff;
}

// Exact test values: multiples of 1/4 in [-2, 2] (products and short sums are exact in fp32).
std::vector<float> exact_values(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(-8, 8);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen) / 4.0f;
  return v;
}

// (c) Lanes gather A, B, C with the atom's maps (atom_*); the "hardware" interprets each register
// with the reference maps (hw_*) and computes D = A*B + C on what it sees; lanes scatter D with
// the atom's C map. Returns the number of wrong D elements.
int emulated_product_errors(const coord_fn& atom_a, const coord_fn& atom_b, const coord_fn& atom_c,
                            const coord_fn& hw_a, const coord_fn& hw_b, const coord_fn& hw_c, int M, int N, int K,
                            int lanes, unsigned seed) {
  const int pa = M * K / lanes, pb = K * N / lanes, pc = M * N / lanes;
  const auto A = exact_values(M * K, seed), B = exact_values(K * N, seed + 1), C = exact_values(M * N, seed + 2);
  std::vector<float> ra(lanes * pa), rb(lanes * pb), rc(lanes * pc);  // the registers, [lane][element]
  for (int l = 0; l < lanes; ++l) {
    for (int i = 0; i < pa; ++i) ra[l * pa + i] = A[atom_a(l, i).row * K + atom_a(l, i).col];
    for (int i = 0; i < pb; ++i) rb[l * pb + i] = B[atom_b(l, i).row * N + atom_b(l, i).col];
    for (int i = 0; i < pc; ++i) rc[l * pc + i] = C[atom_c(l, i).row * N + atom_c(l, i).col];
  }
  // The instruction as specified: the register of (lane, i) holds A[hw_a(lane, i)], etc.
  std::vector<float> Ahw(M * K), Bhw(K * N), Chw(M * N), Dhw(M * N);
  for (int l = 0; l < lanes; ++l) {
    for (int i = 0; i < pa; ++i) Ahw[hw_a(l, i).row * K + hw_a(l, i).col] = ra[l * pa + i];
    for (int i = 0; i < pb; ++i) Bhw[hw_b(l, i).row * N + hw_b(l, i).col] = rb[l * pb + i];
    for (int i = 0; i < pc; ++i) Chw[hw_c(l, i).row * N + hw_c(l, i).col] = rc[l * pc + i];
  }
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      float s = Chw[r * N + c];
      for (int k = 0; k < K; ++k) s += Ahw[r * K + k] * Bhw[k * N + c];
      Dhw[r * N + c] = s;
    }
  std::vector<float> D(M * N, -1e30f);
  for (int l = 0; l < lanes; ++l)
    for (int i = 0; i < pc; ++i) {
      const float d = Dhw[hw_c(l, i).row * N + hw_c(l, i).col];  // register (l, i) of the result
      D[atom_c(l, i).row * N + atom_c(l, i).col] = d;
    }
  int errors = 0;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      float want = C[r * N + c];
      for (int k = 0; k < K; ++k) want += A[r * K + k] * B[k * N + c];
      errors += D[r * N + c] != want;
    }
  return errors;
}

template <class Atom>
coord_fn a_of() { return [](int l, int i) { return Atom::a_coord(l, i); }; }
template <class Atom>
coord_fn b_of() { return [](int l, int i) { return Atom::b_coord(l, i); }; }
template <class Atom>
coord_fn c_of() { return [](int l, int i) { return Atom::c_coord(l, i); }; }

template <class Atom>
void expect_bijections() {
  EXPECT_EQ(0, bijection_errors(a_of<Atom>(), Atom::lanes, Atom::a_per_lane, Atom::M, Atom::K)) << Atom::name << " A";
  EXPECT_EQ(0, bijection_errors(b_of<Atom>(), Atom::lanes, Atom::b_per_lane, Atom::K, Atom::N)) << Atom::name << " B";
  EXPECT_EQ(0, bijection_errors(c_of<Atom>(), Atom::lanes, Atom::c_per_lane, Atom::M, Atom::N)) << Atom::name << " C";
}

struct spot {  // lane holds element i = tile (row, col)
  int lane, i, row, col;
};
void expect_spots(const coord_fn& f, const std::vector<spot>& spots, const char* what) {
  for (const spot& s : spots)
    EXPECT_EQ(f(s.lane, s.i), (frag_coord{s.row, s.col})) << what << " lane " << s.lane << " element " << s.i;
}

// ---------------------------------------------------------------------------------------------
// NVIDIA: PTX ISA 9.7.14.5, "Matrix Fragments for mma.m16n8k16 with floating point type" and
// "Matrix Fragments for mma.m16n8k8" (.tf32), transcribed case by case.
namespace ptx {
int groupID(int laneid) { return laneid >> 2; }
int threadID_in_group(int laneid) { return laneid % 4; }

// m16n8k16 .f16/.bf16, A: a0..a7
frag_coord m16n8k16_a(int lane, int i) {
  const int row = ((0 <= i && i < 2) || (4 <= i && i < 6)) ? groupID(lane) : groupID(lane) + 8;
  const int col = i < 4 ? (threadID_in_group(lane) * 2) + (i & 0x1) : (threadID_in_group(lane) * 2) + (i & 0x1) + 8;
  return {row, col};
}
// B: b0..b3 (row is k, col is n)
frag_coord m16n8k16_b(int lane, int i) {
  const int row = i < 2 ? (threadID_in_group(lane) * 2) + (i & 0x1) : (threadID_in_group(lane) * 2) + (i & 0x1) + 8;
  return {row, groupID(lane)};
}
// C/D (.f32): c0..c3, shared by m16n8k16 and m16n8k8
frag_coord m16n8_c(int lane, int i) {
  const int row = i < 2 ? groupID(lane) : groupID(lane) + 8;
  return {row, (threadID_in_group(lane) * 2) + (i & 0x1)};
}
// m16n8k8 .tf32, A: a0..a3
frag_coord m16n8k8_tf32_a(int lane, int i) {
  const int row = (i == 0 || i == 2) ? groupID(lane) : groupID(lane) + 8;
  const int col = (i == 0 || i == 1) ? threadID_in_group(lane) : threadID_in_group(lane) + 4;
  return {row, col};
}
// B: b0, b1
frag_coord m16n8k8_tf32_b(int lane, int i) {
  return {i == 0 ? threadID_in_group(lane) : threadID_in_group(lane) + 4, groupID(lane)};
}
}  // namespace ptx

// Spot values read off the ISA's fragment figures (T<lane>: {a0, a1} ... per cell).
const std::vector<spot> m16n8k16_a_spots = {{0, 0, 0, 0},  {0, 1, 0, 1}, {1, 0, 0, 2},  {3, 1, 0, 7},
                                            {0, 4, 0, 8},  {3, 5, 0, 15}, {0, 2, 8, 0}, {0, 6, 8, 8},
                                            {4, 0, 1, 0},  {29, 3, 15, 3}, {31, 7, 15, 15}};
const std::vector<spot> m16n8k16_b_spots = {{0, 0, 0, 0}, {0, 1, 1, 0}, {1, 0, 2, 0},
                                            {0, 2, 8, 0}, {4, 0, 0, 1}, {31, 3, 15, 7}};
const std::vector<spot> m16n8_c_spots = {{0, 0, 0, 0}, {0, 1, 0, 1}, {0, 2, 8, 0},
                                         {1, 0, 0, 2}, {4, 0, 1, 0}, {31, 3, 15, 7}};
const std::vector<spot> tf32_a_spots = {{0, 0, 0, 0}, {0, 1, 8, 0}, {0, 2, 0, 4}, {0, 3, 8, 4},
                                        {1, 0, 0, 1}, {4, 0, 1, 0}, {31, 3, 15, 7}};
const std::vector<spot> tf32_b_spots = {{0, 0, 0, 0}, {0, 1, 4, 0}, {1, 0, 1, 0}, {4, 0, 0, 1}, {31, 1, 7, 7}};

template <class Atom>
void expect_nvidia_b16_atom() {
  static_assert(Atom::M == 16 && Atom::N == 8 && Atom::K == 16 && Atom::lanes == 32);
  static_assert(Atom::a_per_lane == 8 && Atom::b_per_lane == 4 && Atom::c_per_lane == 4);
  static_assert(Atom::a_regs == 4 && Atom::b_regs == 2);
  expect_bijections<Atom>();
  EXPECT_EQ(0, map_differences(a_of<Atom>(), ptx::m16n8k16_a, 32, 8));
  EXPECT_EQ(0, map_differences(b_of<Atom>(), ptx::m16n8k16_b, 32, 4));
  EXPECT_EQ(0, map_differences(c_of<Atom>(), ptx::m16n8_c, 32, 4));
  expect_spots(a_of<Atom>(), m16n8k16_a_spots, "A");
  expect_spots(b_of<Atom>(), m16n8k16_b_spots, "B");
  expect_spots(c_of<Atom>(), m16n8_c_spots, "C");
  for (unsigned seed : {1u, 2u, 3u})
    EXPECT_EQ(0, emulated_product_errors(a_of<Atom>(), b_of<Atom>(), c_of<Atom>(), ptx::m16n8k16_a, ptx::m16n8k16_b,
                                         ptx::m16n8_c, 16, 8, 16, 32, seed));
}

TEST(NvidiaAtom, M16N8K16F16) { expect_nvidia_b16_atom<tg::arch::mma_m16n8k16_f16>(); }
TEST(NvidiaAtom, M16N8K16BF16) { expect_nvidia_b16_atom<tg::arch::mma_m16n8k16_bf16>(); }

TEST(NvidiaAtom, M16N8K8TF32) {
  using Atom = tg::arch::mma_m16n8k8_tf32;
  static_assert(Atom::M == 16 && Atom::N == 8 && Atom::K == 8 && Atom::lanes == 32);
  static_assert(Atom::a_per_lane == 4 && Atom::b_per_lane == 2 && Atom::c_per_lane == 4);
  expect_bijections<Atom>();
  EXPECT_EQ(0, map_differences(a_of<Atom>(), ptx::m16n8k8_tf32_a, 32, 4));
  EXPECT_EQ(0, map_differences(b_of<Atom>(), ptx::m16n8k8_tf32_b, 32, 2));
  EXPECT_EQ(0, map_differences(c_of<Atom>(), ptx::m16n8_c, 32, 4));
  expect_spots(a_of<Atom>(), tf32_a_spots, "A");
  expect_spots(b_of<Atom>(), tf32_b_spots, "B");
  expect_spots(c_of<Atom>(), m16n8_c_spots, "C");
  for (unsigned seed : {4u, 5u, 6u})
    EXPECT_EQ(0, emulated_product_errors(a_of<Atom>(), b_of<Atom>(), c_of<Atom>(), ptx::m16n8k8_tf32_a,
                                         ptx::m16n8k8_tf32_b, ptx::m16n8_c, 16, 8, 8, 32, seed));
}

// Element 2r of a 16-bit fragment is the low half of register r ("elements low to high").
TEST(NvidiaAtom, PackB16x2PutsFirstElementLow) {
  static_assert(tg::arch::pack_b16x2(0x1234, 0xabcd) == 0xabcd1234u);
  EXPECT_EQ(tg::arch::pack_b16x2(0x3c00, 0), 0x00003c00u);  // f16 1.0 as element 0
}

// The checks have teeth: the tf32 A layout with the f16 atom's element order (columns before
// rows) is still a bijection, but neither the ISA table nor the emulated instruction accept it.
TEST(NvidiaAtom, WrongLayoutIsCaught) {
  const coord_fn mutant = [](int lane, int i) {
    return frag_coord{(lane >> 2) + 8 * (i >> 1), (lane & 3) + 4 * (i & 1)};
  };
  using Atom = tg::arch::mma_m16n8k8_tf32;
  EXPECT_EQ(0, bijection_errors(mutant, 32, 4, 16, 8));
  EXPECT_GT(map_differences(mutant, ptx::m16n8k8_tf32_a, 32, 4), 0);
  EXPECT_GT(emulated_product_errors(mutant, b_of<Atom>(), c_of<Atom>(), ptx::m16n8k8_tf32_a, ptx::m16n8k8_tf32_b,
                                    ptx::m16n8_c, 16, 8, 8, 32, 7),
            0);
}

// ---------------------------------------------------------------------------------------------
// AMD: the Matrix Instruction Calculator's gfx9 register mapping (InstCalcGfx9 in
// ROCm/amd_matrix_instruction_calculator, no CBSZ/ABID/BLGP), ported as matrix entry -> (slot,
// lane). A "slot" counts elements within a lane: for 16-bit data slot s is v[s/2].[16*(s%2)+15 :
// 16*(s%2)], for 32-bit data it is v[s].
namespace calc {
struct loc {
  int slot, lane;
};
// Input matrices: A[i][k] (M = rows of A) or B[k][j] (pass N as M and j as i).
loc input(int M, int K, int blocks, int i, int k, int block) {
  const int k_groups = 64 / (M * blocks);  // lane groups that split one row's k range
  const int per_lane = K / k_groups;        // its elements per lane ("elements_in_contiguous_gprs")
  const int slot = k % per_lane;
  int lane = block * M;
  lane += (k / per_lane) * M * blocks;
  lane += i;
  return {slot, lane};
}
// 32-bit outputs: rows in multi-rows of 4 registers, N lanes wide.
loc output(int M, int N, int i, int j, int block) {
  const int multirows_per_register = 64 / N, multirow_height = 4;
  const int blocks_per_register = (64 + (N * M / multirow_height) - 1) / (N * M / multirow_height);
  int reg = block * (M * N / 64);
  reg += (i / (multirow_height * multirows_per_register)) * multirow_height;
  reg += i % multirow_height;
  int lane = (block % blocks_per_register) * N;
  lane += ((i / multirow_height) % multirows_per_register) * blocks_per_register * N;
  lane += j;
  return {reg, lane};
}

// (lane, slot) -> entry, by enumerating the entries (the calculator's --matrix-layout view).
struct table {
  int per_lane;
  std::vector<frag_coord> at;  // [lane * per_lane + slot]
  frag_coord operator()(int lane, int slot) const { return at[lane * per_lane + slot]; }
};
table a_table(int M, int K) {
  table t{M * K / 64, std::vector<frag_coord>(M * K, frag_coord{-1, -1})};
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const loc l = input(M, K, 1, i, k, 0);
      t.at[l.lane * t.per_lane + l.slot] = {i, k};
    }
  return t;
}
table b_table(int N, int K) {
  table t{N * K / 64, std::vector<frag_coord>(N * K, frag_coord{-1, -1})};
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) {
      const loc l = input(N, K, 1, j, k, 0);
      t.at[l.lane * t.per_lane + l.slot] = {k, j};
    }
  return t;
}
table d_table(int M, int N) {
  table t{M * N / 64, std::vector<frag_coord>(M * N, frag_coord{-1, -1})};
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      const loc l = output(M, N, i, j, 0);
      t.at[l.lane * t.per_lane + l.slot] = {i, j};
    }
  return t;
}
}  // namespace calc

// The register holding a tile entry under the atom's map, printed like the calculator does.
std::string reg_name(const coord_fn& f, int per_lane, int bits, int row, int col) {
  for (int lane = 0; lane < 64; ++lane)
    for (int i = 0; i < per_lane; ++i)
      if (f(lane, i) == frag_coord{row, col}) {
        char buf[48];
        if (bits == 16)
          std::snprintf(buf, sizeof buf, "v%d{%d}.[%s]", i / 2, lane, i % 2 ? "31:16" : "15:0");
        else
          std::snprintf(buf, sizeof buf, "v%d{%d}", i, lane);
        return buf;
      }
  return "not held";
}

struct calc_spot {  // the calculator's `--get-register` answer for one entry
  char matrix;      // 'A' (row i, col k), 'B' (row k, col j) or 'D' (row i, col j)
  int row, col;
  const char* reg;
};

template <class Atom>
void expect_amd_atom(int in_bits, const std::vector<calc_spot>& spots) {
  static_assert(Atom::lanes == 64);
  constexpr int M = Atom::M, N = Atom::N, K = Atom::K;
  expect_bijections<Atom>();
  const calc::table ta = calc::a_table(M, K), tb = calc::b_table(N, K), td = calc::d_table(M, N);
  ASSERT_EQ(ta.per_lane, Atom::a_per_lane);
  ASSERT_EQ(tb.per_lane, Atom::b_per_lane);
  ASSERT_EQ(td.per_lane, Atom::c_per_lane);
  EXPECT_EQ(0, map_differences(a_of<Atom>(), ta, 64, Atom::a_per_lane)) << Atom::name;
  EXPECT_EQ(0, map_differences(b_of<Atom>(), tb, 64, Atom::b_per_lane)) << Atom::name;
  EXPECT_EQ(0, map_differences(c_of<Atom>(), td, 64, Atom::c_per_lane)) << Atom::name;
  for (const calc_spot& s : spots) {
    const coord_fn f = s.matrix == 'A' ? a_of<Atom>() : s.matrix == 'B' ? b_of<Atom>() : c_of<Atom>();
    const int per_lane = s.matrix == 'A' ? Atom::a_per_lane : s.matrix == 'B' ? Atom::b_per_lane : Atom::c_per_lane;
    EXPECT_EQ(reg_name(f, per_lane, s.matrix == 'D' ? 32 : in_bits, s.row, s.col), s.reg)
        << Atom::name << " " << s.matrix << "[" << s.row << "][" << s.col << "]";
  }
  for (unsigned seed : {1u, 2u, 3u})
    EXPECT_EQ(0, emulated_product_errors(a_of<Atom>(), b_of<Atom>(), c_of<Atom>(), ta, tb, td, M, N, K, 64, seed))
        << Atom::name;
}

// Spot values: the calculator's per-instruction formulas (--detail-instruction) evaluated by hand,
// e.g. 32x32x8f16: A GPR (floor(k/2) % 2).[16*(k%2)+15 : 16*(k%2)], lane 32*floor(k/4) + i;
// D GPR 4*floor(i/8) + (i%4), lane (32*floor(i/4)) % 64 + j.
const std::vector<calc_spot> spots_32x32x8 = {
    {'A', 5, 6, "v1{37}.[15:0]"}, {'A', 31, 7, "v1{63}.[31:16]"}, {'A', 0, 3, "v1{0}.[31:16]"},
    {'B', 4, 9, "v0{41}.[15:0]"}, {'B', 7, 0, "v1{32}.[31:16]"},  {'D', 13, 7, "v5{39}"},
    {'D', 31, 31, "v15{63}"},     {'D', 4, 0, "v0{32}"},          {'D', 8, 0, "v4{0}"}};
// 16x16x16: A lane 16*floor(k/4) + i, GPR (floor(k/2) % 2); D GPR (i%4), lane 16*floor(i/4) + j.
const std::vector<calc_spot> spots_16x16x16 = {{'A', 3, 13, "v0{51}.[31:16]"}, {'A', 15, 15, "v1{63}.[31:16]"},
                                               {'B', 10, 2, "v1{34}.[15:0]"},  {'D', 7, 5, "v3{21}"},
                                               {'D', 15, 15, "v3{63}"},        {'D', 4, 0, "v0{16}"}};
// 32x32x4bf16: A GPR 0.[16*(k%2)+15 : 16*(k%2)], lane 32*floor(k/2) + i.
const std::vector<calc_spot> spots_32x32x4 = {{'A', 10, 3, "v0{42}.[31:16]"}, {'B', 2, 17, "v0{49}.[15:0]"},
                                              {'D', 13, 7, "v5{39}"}};
// 32x32x2f32: A GPR 0, lane 32*k + i.
const std::vector<calc_spot> spots_32x32x2 = {
    {'A', 7, 1, "v0{39}"}, {'B', 1, 31, "v0{63}"}, {'B', 0, 5, "v0{5}"}, {'D', 31, 31, "v15{63}"}};

TEST(AmdAtom, F32_32x32x8F16) {
  using A = tg::arch::mfma_f32_32x32x8f16;
  static_assert(A::M == 32 && A::N == 32 && A::K == 8 && A::a_per_lane == 4 && A::c_per_lane == 16);
  expect_amd_atom<A>(16, spots_32x32x8);
}
TEST(AmdAtom, F32_16x16x16F16) {
  using A = tg::arch::mfma_f32_16x16x16f16;
  static_assert(A::M == 16 && A::N == 16 && A::K == 16 && A::a_per_lane == 4 && A::c_per_lane == 4);
  expect_amd_atom<A>(16, spots_16x16x16);
}
TEST(AmdAtom, F32_32x32x8BF16_1K) {
  using A = tg::arch::mfma_f32_32x32x8bf16_1k;
  static_assert(A::M == 32 && A::N == 32 && A::K == 8 && A::a_per_lane == 4 && A::c_per_lane == 16);
  expect_amd_atom<A>(16, spots_32x32x8);
}
TEST(AmdAtom, F32_16x16x16BF16_1K) {
  using A = tg::arch::mfma_f32_16x16x16bf16_1k;
  static_assert(A::M == 16 && A::N == 16 && A::K == 16 && A::a_per_lane == 4 && A::c_per_lane == 4);
  expect_amd_atom<A>(16, spots_16x16x16);
}
TEST(AmdAtom, F32_32x32x4BF16) {
  using A = tg::arch::mfma_f32_32x32x4bf16;
  static_assert(A::M == 32 && A::N == 32 && A::K == 4 && A::a_per_lane == 2 && A::c_per_lane == 16);
  expect_amd_atom<A>(16, spots_32x32x4);
}
TEST(AmdAtom, F32_32x32x2F32) {
  using A = tg::arch::mfma_f32_32x32x2f32;
  static_assert(A::M == 32 && A::N == 32 && A::K == 2 && A::a_per_lane == 1 && A::c_per_lane == 16);
  expect_amd_atom<A>(32, spots_32x32x2);
}

// A plausible mistake: 32x32 output rows taken as contiguous per lane group (row = 16*(lane/32)
// + i, what a 2-block reading would suggest). Still a bijection; the calculator rejects it.
TEST(AmdAtom, WrongLayoutIsCaught) {
  using A = tg::arch::mfma_f32_32x32x8f16;
  const coord_fn mutant = [](int lane, int i) { return frag_coord{16 * (lane / 32) + i, lane % 32}; };
  const calc::table ta = calc::a_table(32, 8), tb = calc::b_table(32, 8), td = calc::d_table(32, 32);
  EXPECT_EQ(0, bijection_errors(mutant, 64, 16, 32, 32));
  EXPECT_GT(map_differences(mutant, td, 64, 16), 0);
  EXPECT_GT(emulated_product_errors(a_of<A>(), b_of<A>(), mutant, ta, tb, td, 32, 32, 8, 64, 9), 0);
}

// Under a plain C++ compiler the atoms are layouts only: no device mma, no fragment types.
TEST(AmdAtom, NoDeviceCodeOnHost) {
  static_assert(!tg::arch::mfma_available<tg::arch::mfma_f32_32x32x8f16>);
  static_assert(tg::arch::matrix_atom<tg::arch::mfma_f32_32x32x2f32>);
}

}  // namespace
