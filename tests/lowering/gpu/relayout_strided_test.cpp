// lowering/gpu/relayout_strided.hpp: the relayout fast paths' plans and per-thread steps, run on the
// host for every thread of emulated blocks (the kernels in relayout.hpp only loop and synchronise
// around these steps), against a naive copy over random shapes, permutations and element sizes; and
// the shared tile's claim that each warp's accesses fall in distinct banks.
#include "lowering/gpu/relayout_strided.hpp"

#include <gtest/gtest.h>

#include "../../../examples/common/harness.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <numeric>
#include <set>
#include <random>
#include <vector>

#include "dsl/numeric.hpp"

namespace {
namespace rf = tg::relayout_fast;
using tg::index_t;


struct problem {
  std::vector<index_t> len;
  std::vector<int> src_order, dst_order;
};

template <int R, class T>
rf::plan plan_for(const problem& pr, std::string& why, bool aligned = true) {
  const auto ss = tg::ex::physical_strides(pr.len, pr.src_order), ds = tg::ex::physical_strides(pr.len, pr.dst_order);
  index_t n = 1;
  for (index_t l : pr.len) n *= l;
  return rf::make_plan<R>(pr.len.data(), ss.data(), ds.data(), n, n, aligned, static_cast<int>(sizeof(T)), why);
}

// Runs the plan as the kernels would: every word (rows), or every tile with all 256 threads' phase 1
// before any thread's phase 2 (transpose); returns dst, poisoned first.
template <class T>
std::vector<T> emulate(const rf::plan& p, const std::vector<T>& src, std::size_t n) {
  std::vector<T> dst(n);
  std::memset(static_cast<void*>(dst.data()), 0xff, n * sizeof(T));
  if (p.k == rf::kind::rows) {
    for (long long u = 0; u < p.units; ++u) rf::copy_word(p, src.data(), dst.data(), static_cast<int>(u));
  } else {
    using G = rf::geometry<T>;
    std::vector<T> smem(G::smem_elems);
    for (long long u = 0; u < p.units; ++u) {
      std::memset(static_cast<void*>(smem.data()), 0xee, smem.size() * sizeof(T));  // another tile's leftovers
      const rf::tile_at at = rf::locate_tile(p, static_cast<int>(u), G::S);
      for (int t = 0; t < rf::block; ++t) rf::load_tile(p, at, src.data(), smem.data(), t);
      for (int t = 0; t < rf::block; ++t) rf::store_tile(p, at, smem.data(), dst.data(), t);
    }
  }
  return dst;
}

template <class T>
std::uint32_t bits(T x) {
  std::uint32_t b = 0;
  std::memcpy(&b, &x, sizeof(T));
  return b;
}

// One random problem of rank R with elements of type T: the plan's kind where one is expected, and the
// emulated copy against a naive one (bit for bit).
template <int R, class T>
void check_random(std::mt19937& rng, int& fast) {
  constexpr int V = rf::geometry<T>::V;
  problem pr;
  for (int d = 0; d < R; ++d) pr.len.push_back(std::uniform_int_distribution<int>(1, 9)(rng));
  pr.src_order.resize(R), pr.dst_order.resize(R);
  std::iota(pr.src_order.begin(), pr.src_order.end(), 0);
  std::iota(pr.dst_order.begin(), pr.dst_order.end(), 0);
  std::shuffle(pr.src_order.begin(), pr.src_order.end(), rng);
  std::shuffle(pr.dst_order.begin(), pr.dst_order.end(), rng);
  // Mostly contiguous dimensions of whole words (sometimes long ones: several tiles and partial ones).
  const bool whole = std::uniform_int_distribution<int>(0, 3)(rng) != 0;
  for (int inner : {pr.src_order[R - 1], pr.dst_order[R - 1]})
    if (whole) pr.len[inner] = V * std::uniform_int_distribution<int>(1, std::uniform_int_distribution<int>(0, 2)(rng) ? 3 : 40)(rng);
  for (int d = 0; d < R; ++d) {  // at most 2^18 elements: the emulation stays quick
    index_t n = 1;
    for (index_t l : pr.len) n *= l;
    if (n > (index_t{1} << 18) && d != pr.src_order[R - 1] && d != pr.dst_order[R - 1]) pr.len[d] = 1;
  }
  std::string why;
  const rf::plan p = plan_for<R, T>(pr, why);
  ::testing::Message shape;
  for (int d = 0; d < R; ++d) shape << pr.len[d] << "(" << pr.src_order[d] << "," << pr.dst_order[d] << ") ";
  SCOPED_TRACE(shape << sizeof(T) << "-byte elements, " << why);
  // Length-1 dimensions are dropped, so the contiguous dimension is the fastest one longer than 1.
  auto fastest = [&](const std::vector<int>& order) {
    for (int q = R - 1; q >= 0; --q)
      if (pr.len[order[q]] > 1) return order[q];
    return -1;
  };
  const int fs = fastest(pr.src_order), fd = fastest(pr.dst_order);
  if (fs < 0) {
    EXPECT_EQ(p.k, rf::kind::none);
    return;
  }
  // Contiguous along different dimensions: always a transpose (sides that are not whole words move
  // elements). Along the same one: rows where the merged rows are whole words, else the generic kernel.
  if (fs != fd) EXPECT_EQ(p.k, rf::kind::transpose);
  if (fs == fd && pr.len[fs] % V == 0) EXPECT_EQ(p.k, rf::kind::rows);
  if (p.k == rf::kind::none) return;
  EXPECT_EQ(p.k, fs == fd ? rf::kind::rows : rf::kind::transpose);
  ++fast;
  std::size_t n = 1;
  for (index_t l : pr.len) n *= static_cast<std::size_t>(l);
  std::vector<T> src(n);
  std::uniform_int_distribution<std::uint32_t> word;
  for (auto& e : src) {
    const std::uint32_t b = word(rng);
    std::memcpy(&e, &b, sizeof(T));
  }
  const auto dst = emulate(p, src, n);
  const auto ss = tg::ex::physical_strides(pr.len, pr.src_order), ds = tg::ex::physical_strides(pr.len, pr.dst_order);
  std::vector<index_t> i(R, 0);
  for (std::size_t l = 0; l < n; ++l) {
    index_t so = 0, dso = 0;
    for (int d = 0; d < R; ++d) so += i[d] * ss[d], dso += i[d] * ds[d];
    ASSERT_EQ(bits(dst[dso]), bits(src[so])) << "at destination element " << dso;
    for (int d = R - 1; d >= 0; --d) {
      if (++i[d] < pr.len[d]) break;
      i[d] = 0;
    }
  }
}

template <int R>
void check_rank(std::uint32_t seed) {
  std::mt19937 rng(seed);
  int fast16 = 0, fast32 = 0;
  for (int t = 0; t < 60; ++t) {
    check_random<R, tg::half_t>(rng, fast16);
    check_random<R, float>(rng, fast32);
  }
  EXPECT_GT(fast16, 10);
  EXPECT_GT(fast32, 10);
}

TEST(RelayoutStrided, Rank1) { check_rank<1>(1); }
TEST(RelayoutStrided, Rank2) { check_rank<2>(2); }
TEST(RelayoutStrided, Rank3) { check_rank<3>(3); }
TEST(RelayoutStrided, Rank4) { check_rank<4>(4); }
TEST(RelayoutStrided, Rank5) { check_rank<5>(5); }
TEST(RelayoutStrided, Rank6) { check_rank<6>(6); }

// NCHW -> NHWC and back, fp16 with C = 64 and odd images (partial tiles along H*W's fastest dimension):
// transposes; NCHW -> NCHW: rows.
TEST(RelayoutStrided, ImageLayouts) {
  std::string why;
  const problem to_last{{2, 64, 5, 24}, {0, 1, 2, 3}, {0, 2, 3, 1}}, to_first{{2, 64, 5, 24}, {0, 2, 3, 1}, {0, 1, 2, 3}},
      same{{2, 64, 5, 24}, {0, 1, 2, 3}, {0, 1, 2, 3}};
  EXPECT_EQ((plan_for<4, tg::half_t>(to_last, why).k), rf::kind::transpose) << why;
  EXPECT_EQ((plan_for<4, tg::half_t>(to_first, why).k), rf::kind::transpose) << why;
  EXPECT_EQ((plan_for<4, tg::half_t>(same, why).k), rf::kind::rows) << why;
  // H and W are adjacent in both layouts: one dimension of H*W = 120 elements (15 words of fp16).
  const rf::plan merged = plan_for<4, tg::half_t>(to_last, why);
  EXPECT_EQ(merged.len[merged.s_in], 5 * 24);
  EXPECT_TRUE(merged.s_words && merged.d_words);
  // 5x7 images (35 elements, not whole words; C strides of 35): a transpose that reads elements and
  // stores words; NCHW -> CNHW keeps rows of 35 (H and W merged): no fast path.
  const problem odd{{2, 64, 5, 7}, {0, 1, 2, 3}, {0, 2, 3, 1}}, odd_same{{2, 64, 5, 7}, {0, 1, 2, 3}, {1, 0, 2, 3}};
  const rf::plan po = plan_for<4, tg::half_t>(odd, why);
  EXPECT_EQ(po.k, rf::kind::transpose) << why;
  EXPECT_FALSE(po.s_words);
  EXPECT_TRUE(po.d_words);
  EXPECT_EQ((plan_for<4, tg::half_t>(odd_same, why).k), rf::kind::none);
  EXPECT_NE(why.find("16-byte"), std::string::npos) << why;
  // Unaligned pointers: elements on both sides.
  const rf::plan pu = plan_for<4, tg::half_t>(to_last, why, false);
  EXPECT_EQ(pu.k, rf::kind::transpose);
  EXPECT_FALSE(pu.s_words || pu.d_words);
  EXPECT_EQ((plan_for<4, tg::half_t>(same, why, false).k), rf::kind::none);
  EXPECT_NE(why.find("aligned"), std::string::npos) << why;
}

// The shared tile's bank claim: in each phase, for each element access a warp makes together (one
// per pass and element access j), the threads that share a bank touch the same 4-byte word.
template <class T>
void check_banks() {
  using G = rf::geometry<T>;
  for (int warp = 0; warp < rf::block / 32; ++warp)
    for (int pass = 0; pass < G::S / rf::rows_per_pass; ++pass)
      for (int j = 0; j < G::V; ++j)
        for (int phase = 0; phase < 2; ++phase) {
          std::map<int, std::set<long>> words_by_bank;
          for (int lane = 0; lane < 32; ++lane) {
            const int t = warp * 32 + lane, c = t % rf::words_per_row, r = t / rf::words_per_row + pass * rf::rows_per_pass;
            const int k = phase == 0 ? (j + c / 4 * G::R) % G::V : j;  // load_tile's and store_tile's j-th access
            const long elem = phase == 0 ? static_cast<long>(c * G::V + k) * G::P + r : static_cast<long>(r) * G::P + c * G::V + k;
            const long w = elem * static_cast<long>(sizeof(T)) / 4;
            words_by_bank[static_cast<int>(w % 32)].insert(w);
          }
          for (const auto& [bank, words] : words_by_bank)
            EXPECT_EQ(words.size(), 1u) << sizeof(T) << "-byte elements, warp " << warp << " pass " << pass << " access " << j << " phase "
                                        << phase + 1 << ": bank " << bank << " holds " << words.size() << " words";
        }
}
// The element sides: a warp's 32 consecutive elements of one row; phase 1 stores them P apart, phase 2
// loads them side by side.
template <class T>
void check_element_banks() {
  using G = rf::geometry<T>;
  for (int i0 = 0; i0 < G::S * G::S; i0 += 32)
    for (int phase = 0; phase < 2; ++phase) {
      std::map<int, std::set<long>> words_by_bank;
      for (int lane = 0; lane < 32; ++lane) {
        const int i = i0 + lane, row = i / G::S, col = i % G::S;
        const long elem = phase == 0 ? static_cast<long>(col) * G::P + row : static_cast<long>(row) * G::P + col;
        const long w = elem * static_cast<long>(sizeof(T)) / 4;
        words_by_bank[static_cast<int>(w % 32)].insert(w);
      }
      for (const auto& [bank, words] : words_by_bank)
        EXPECT_EQ(words.size(), 1u) << sizeof(T) << "-byte elements, element " << i0 << " phase " << phase + 1 << ": bank " << bank;
    }
}
TEST(RelayoutStrided, SharedTileWithoutBankConflicts) {
  check_banks<tg::half_t>();
  check_banks<float>();
  check_element_banks<tg::half_t>();
  check_element_banks<float>();
}
}  // namespace
