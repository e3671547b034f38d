// Shared by the TMA plan tests, two units so that the sanitizer lane builds them side by side (one
// unit was its longest job, started last: performance.md section 35): tma_plan_test.cpp, random
// problems of every layout; tma_plan_cases_test.cpp, the named cases, the tile table, the orientations.
//
// lowering/gpu/boxes.hpp and lowering/gpu/tma_gemm/class_plan.hpp: the descriptor-to-box derivation
// and the TMA GEMM's plan, over whole random domains. For random convolutions (1-d/2-d/3-d, odd sizes,
// strides and dilations 1-3, asymmetric padding, groups, every layout) the GEMMs of backward data
// (every col2im class), backward weight and the forward convolution are planned; where a plan exists,
// every element that every box of every (tile, k-tile) brings is emulated as the TMA does it (axis 0
// fastest, traversal steps, zero outside the tensor) and compared with the view's element at the GEMM
// coordinates the tile position stands for (zero where the view says padding); positions past the
// GEMM's edges in k read zero in A or B; and C's offset and merged index of every (row, column) of
// every tile equal the descriptor's, as do those of every element C's TMA store boxes write (where
// C's tiles are such boxes), and none past C's edges. The channels-last layouts must get plans (the fast path exists).
#pragma once
#include "lowering/gpu/tma_gemm/c_store_plan.hpp"
#include "lowering/gpu/tma_gemm/class_plan.hpp"
#include "lowering/gpu/tma_gemm/plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <random>
#include <vector>

#include "../../dsl/support.hpp"
#include "ops/conv_problem.hpp"
#include "lowering/gpu/tma_gemm/k_major_plan.hpp"
#include "lowering/gpu/tma_gemm/plan_cache.hpp"
#include "ops/conv_fwd.hpp"
#include "ops/convnd_bwd_data.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"
#include "dsl/compose/group_dims.hpp"
#include "dsl/compose/im2col.hpp"

using namespace tg::test;
using tg::index_t;
using tg::multi_index;

namespace tma_plan_check {
// A k-tile's depth: one 128-byte row of the operands' elements (boxes::row_elems): 64 of 16 bits, the
// default of every check below; 32 of fp32 (the tf32 plans, check_tiles_tf32).
constexpr int BK16 = tg::boxes::swizzle_elems;
constexpr int BK32 = tg::boxes::row_elems(4);

// The element the TMA brings at linear box position `l` (axis 0 fastest) of a box at coordinates x.
inline float tma_element(const tg::arch::tma_box& b, const float* data, const int (&x)[tg::boxes::max_rank], int l) {
  index_t off = b.base;
  for (int a = 0; a < b.rank; ++a) {
    const int n = b.count(a), e = l % n;
    l /= n;
    const index_t c = static_cast<index_t>(x[a]) + static_cast<index_t>(e) * b.elem_stride[a];
    if (c < 0 || c >= b.length[a]) return 0.0f;
    off += c * b.stride[a];
  }
  return data[off];
}

// The TMA faults (an illegal instruction) on a box whose corner on the contiguous axis is off a 16-byte
// boundary (regression: a channels-first fp32 filter column shifting w by one element, session 36):
// bk elements are 128 bytes.
inline void expect_aligned_corner(const int (&x)[tg::boxes::max_rank], int bk) {
  EXPECT_EQ(x[0] % (bk / 8), 0) << "a box corner at element " << x[0] << " of the contiguous axis";
}

// A tile's local index i -> digits (corner + local), and whether all lie inside the dimension.
inline bool digits_at(const tg::tma_gemm::digits& d, const int (&corner)[4], int i, int (&out)[4]) {
  bool in = true;
  for (int p = 0; p < 4; ++p) {
    // By division whatever the extents, so that the kernel's shifts for powers of two are checked too.
    out[p] = corner[p] + i / d.stride[p] % d.ext[p];
    if (d.pow2) EXPECT_EQ(out[p], corner[p] + ((i >> d.shift[p]) & (d.ext[p] - 1)));
    in = in && out[p] < d.len[p];
  }
  return in;
}
inline index_t merged(const tg::tma_gemm::digits& d, const int (&v)[4]) {
  index_t m = 0;
  for (int p = 0; p < 4; ++p) m = m * d.len[p] + v[p];
  return m;
}
inline void corner_of(const tg::tma_gemm::digits& d, index_t t, int (&out)[4]) {
  for (int p = 3; p >= 0; --p) out[p] = static_cast<int>(t % d.tiles[p]) * d.ext[p], t /= d.tiles[p];
}

// One operand's tile [rows][BK] as the TMA brings it, through the plan's corners.
template <int BK, class View>
std::vector<float> fetch(const tg::boxes::operand_boxes& ob, const View& v, index_t g, const int (&rows)[4], const int (&ks)[4], int R) {
  std::vector<float> t(static_cast<std::size_t>(R) * BK, -1.0f);
  int x[tg::boxes::max_rank] = {};
  for (int a = 0; a < ob.box.rank; ++a) {
    x[a] = ob.base[a] + ob.step[0][0][a] * static_cast<int>(g);
    for (int p = 0; p < 4; ++p) x[a] += ob.step[1][p][a] * rows[p] + ob.step[2][p][a] * ks[p];
  }
  // The kernel's loads (boxes.hpp: loads_of, corner_of_box): a stacked load brings `stacked` boxes,
  // box i's [k][BK] rows after box i-1's (stacked_boxes.hpp).
  const tg::boxes::box_loads ld = tg::boxes::loads_of(ob);
  EXPECT_EQ(ob.boxes % ob.stacked, 0);
  EXPECT_EQ(ob.box.elements() * ld.loads, R * BK);
  for (int i = 0; i < ld.loads; ++i) {
    int at[tg::boxes::max_rank];
    tg::boxes::corner_of_box(x, ob.box_step, ld.along_shift, BK, i, at);
    expect_aligned_corner(at, BK);
    if (ob.stack_shift > 0) {
      EXPECT_EQ(at[0] % BK, 0) << "a stacked box's corner off a 128-byte row";
      tg::boxes::stacked_corner(at, ob.box.rank, ob.stack_shift);
    }
    for (int l = 0; l < ob.box.elements(); ++l) {
      const float val = tma_element(ob.box, v.data, at, l);
      const int r = ob.mn_major ? (i * ld.stacked + l / (BK * BK)) * BK + l % BK : l / BK, k = ob.mn_major ? l / BK % BK : l % BK;
      t[static_cast<std::size_t>(r) * BK + k] = val;
    }
  }
  return t;
}

inline int stepped_plans = 0;  // plans checked whose boxes step along a digit other than the contiguous one
inline int stacked_plans = 0;  // plans checked with an operand's boxes stacked as one (stacked_boxes.hpp)
inline int several_a_step_plans = 0;  // plans checked with several boxes at each step of a step digit (boxes.hpp: along)
inline int halo_plans = 0;     // plans checked whose A is halos

// A halo plan's A tile for tap `tap`, as the halo kernel's wgmma reads it: the halo box the TMA brings
// (its corner does not move with the taps), row r of the tile at its block's halo row plus the tap's,
// 8-row groups group_rows apart.
template <int BM, int BK, class View>
std::vector<float> fetch_halo(const tg::tma_gemm::class_plan& p, const View& v, index_t g, const int (&rows)[4], const int (&ks)[4], int tap) {
  const auto& h = p.halo;
  EXPECT_EQ(p.a.box.elements(), h.rows * BK) << "the halo box is its rows of BK channels";
  for (int q = 1; q < 4; ++q)
    for (int a = 0; a < tg::boxes::max_rank; ++a) EXPECT_EQ(p.a.step[2][q][a], 0) << "a tap moves the halo";
  int x[tg::boxes::max_rank] = {};
  for (int a = 0; a < p.a.box.rank; ++a) {
    x[a] = p.a.base[a] + p.a.step[0][0][a] * static_cast<int>(g);
    for (int q = 0; q < 4; ++q) x[a] += p.a.step[1][q][a] * rows[q] + p.a.step[2][q][a] * ks[q];
  }
  expect_aligned_corner(x, BK);
  std::vector<float> t(static_cast<std::size_t>(BM) * BK, -1.0f);
  for (int r = 0; r < BM; ++r) {
    const int row = h.block_row[r / 64] + (r % 64 / 8) * h.group_rows + r % 8 + h.tap_row[tap];
    EXPECT_LT(row, h.rows);
    for (int k = 0; k < BK; ++k) t[static_cast<std::size_t>(r) * BK + k] = tma_element(p.a.box, v.data, x, row * BK + k);
  }
  return t;
}

inline int c_store_plans = 0;  // plans checked whose C tiles are TMA store boxes (c_store_plan.hpp)
inline long long c_store_clipped = 0;  // ... and elements of their boxes past C's edges
inline int k_halo_plans = 0;   // plans checked whose A is one halo per k-tile
inline int taps_plans = 0;     // ... of them on the taps tile

// A k-halo plan's A tile, as the kernel's wgmma reads it (consumer.hpp's a_blocks): the halo box the TMA
// brings for the k-tile; row r of the tile (block r / 64: a tap, channel r % 64) at k position k reads
// halo row block_row + kk_row[k / 16] + (k % 16 / 8) sbo_rows + k % 8. Blocks past the filter are not
// multiplied (the kernel reads block 0's window for them; their rows are never stored): zero here.
template <int BM, class View>
std::vector<float> fetch_k_halo(const tg::tma_gemm::class_plan& p, const View& v, index_t g, const int (&rows)[4], const int (&ks)[4]) {
  const auto& h = p.k_halo;
  EXPECT_EQ(p.a.box.elements(), h.rows * BK16) << "the halo box is its rows of 64 channels";
  EXPECT_EQ(p.a.boxes, 1);
  int x[tg::boxes::max_rank] = {};
  for (int a = 0; a < p.a.box.rank; ++a) {
    x[a] = p.a.base[a] + p.a.step[0][0][a] * static_cast<int>(g);
    for (int q = 0; q < 4; ++q) x[a] += p.a.step[1][q][a] * rows[q] + p.a.step[2][q][a] * ks[q];
  }
  expect_aligned_corner(x, BK16);
  std::vector<float> t(static_cast<std::size_t>(BM) * BK16, 0.0f);
  for (int b = 0; b < BM / 64; ++b) {
    int dm[4];
    if (!digits_at(p.m, rows, 64 * b, dm)) continue;
    for (int k = 0; k < BK16; ++k) {
      const int row = h.block_row[b] + h.kk_row[k / 16] + (k % 16 / 8) * h.sbo_rows + k % 8;
      EXPECT_GE(row, 0);
      EXPECT_LT(row, h.rows);
      for (int c = 0; c < 64; ++c) t[static_cast<std::size_t>(64 * b + c) * BK16 + k] = tma_element(p.a.box, v.data, x, row * BK16 + c);
    }
  }
  return t;
}

// The view's merged k index of a plan's k digits (slot q holds the view's digit k_digit[q]).
inline index_t merged_k(const tg::tma_gemm::class_plan& p, const int (&dk)[4]) {
  int len[4] = {1, 1, 1, 1}, val[4] = {};
  for (int q = 0; q < 4; ++q) len[p.k_digit[q]] = p.k.len[q], val[p.k_digit[q]] = dk[q];
  index_t m = 0;
  for (int q = 0; q < 4; ++q) m = m * len[q] + val[q];
  return m;
}

// C's TMA store boxes (c_store_plan.hpp), emulated as the TMA does them: for each consumer warp's piece
// (16 tile rows) and 64 columns, the box at the corner the kernel works out (epilogue.hpp: the piece's
// first row's digits) writes element l of the staged rows (row l / 64, column l % 64) at C's offset of
// that tile position, and exactly the positions inside C (the rest are clipped).
template <int BM, int BN, class Views>
void check_c_store(const Views& v, const tg::tma_gemm::class_plan& p, const tg::tma_gemm::c_store& st, index_t g, const int (&cm)[4], const int (&cn)[4]) {
  if (!st.ok) return;
  namespace tm = tg::tma_gemm;
  for (int r0 = 0; r0 < BM; r0 += tm::c_piece_rows)
    for (int half = 0; half < BN / tm::c_box_cols; ++half) {
      int m[4], x[tg::boxes::max_rank];
      for (int q = 0; q < 4; ++q) m[q] = cm[q] + ((r0 >> p.m.shift[q]) & (p.m.ext[q] - 1));  // the piece's first row
      for (int a = 0; a < tg::boxes::max_rank; ++a) x[a] = tm::c_box_corner(st.axes, m, cn, static_cast<int>(g), a);
      x[0] += half * tm::c_box_cols;
      expect_aligned_corner(x, BK16);
      ASSERT_EQ(st.box.elements(), tm::c_piece_rows * tm::c_box_cols);
      for (int l = 0; l < st.box.elements(); ++l) {
        index_t off = st.box.base;
        bool inside = true;
        for (int a = 0, rest = l; a < st.box.rank; ++a) {
          const int n = st.box.count(a), e = rest % n;
          rest /= n;
          const index_t c = static_cast<index_t>(x[a]) + e;
          inside = inside && c >= 0 && c < st.box.length[a];
          off += c * st.box.stride[a];
        }
        const int r = r0 + l / tm::c_box_cols, col = half * tm::c_box_cols + l % tm::c_box_cols;
        int dm[4], dn[4];
        const bool in_m = digits_at(p.m, cm, r, dm), in_n = digits_at(p.n, cn, col, dn);
        ASSERT_EQ(inside, in_m && in_n) << "C store box: row " << r << " column " << col;
        c_store_clipped += !inside;
        if (!inside) continue;
        const multi_index<3> at{{g, merged(p.m, dm), merged(p.n, dn)}};
        ASSERT_EQ(off, v.c.desc.offset(at)) << "C store box at " << str(at);
      }
    }
}

// Every element of every tile of the plan against the views.
template <int BM, int BN, int BK = BK16, class Views>
void check_plan(const Views& v, const tg::tma_gemm::class_plan& p) {
  ASSERT_TRUE(p.ok) << p.why;
  if (p.has_k) {  // the kernel lays the tiles out by the plan's orientation, the TMA by the boxes'
    ASSERT_EQ(p.a.mn_major, p.a_mn) << "A's boxes and the plan disagree on its orientation";
    ASSERT_EQ(p.b.mn_major, p.b_mn) << "B's boxes and the plan disagree on its orientation";
  }
  stepped_plans += p.a.step_digit >= 0 || p.b.step_digit >= 0;
  stacked_plans += p.a.stack_shift > 0 || p.b.stack_shift > 0;
  several_a_step_plans += (p.a.step_digit >= 0 && p.a.along > 1) || (p.b.step_digit >= 0 && p.b.along > 1);
  halo_plans += p.halo.on;
  k_halo_plans += p.k_halo.on;
  const index_t G = p.groups;
  long long checked = 0;
  const auto st = BK == BK16 ? tg::tma_gemm::plan_c_store(p, BN, 2) : tg::tma_gemm::c_store{};  // C's store boxes: 16-bit C
  c_store_plans += st.ok;
  // A tile's row (or column) digits, once per tile (per element of every k-tile they took the sanitizer
  // lane minutes): digits, whether inside, merged index.
  struct tile_digits {
    int corner[4];
    std::vector<std::array<int, 4>> d;
    std::vector<char> in;
    std::vector<index_t> at;
  };
  auto digits_of = [](const tg::tma_gemm::digits& dg, index_t t, int n) {
    tile_digits td{{}, std::vector<std::array<int, 4>>(n), std::vector<char>(n), std::vector<index_t>(n)};
    corner_of(dg, t, td.corner);
    for (int i = 0; i < n; ++i) {
      int d[4];
      td.in[i] = digits_at(dg, td.corner, i, d);
      std::copy(d, d + 4, td.d[i].begin());
      td.at[i] = merged(dg, d);
    }
    return td;
  };
  std::vector<tile_digits> ms, ns;
  for (index_t tm = 0; tm < p.m.count; ++tm) ms.push_back(digits_of(p.m, tm, BM));
  for (index_t tn = 0; tn < p.n.count; ++tn) ns.push_back(digits_of(p.n, tn, BN));
  // The k-tiles' digits, and which of their k positions lie inside K.
  std::vector<std::array<int, 4>> k_corner(static_cast<std::size_t>(p.has_k ? p.k.count : 0));
  std::vector<std::array<index_t, BK>> k_at(k_corner.size());
  std::vector<std::array<char, BK>> k_in(k_corner.size());
  for (std::size_t kt = 0; kt < k_corner.size(); ++kt) {
    int ck[4];
    corner_of(p.k, static_cast<index_t>(kt), ck);
    std::copy(ck, ck + 4, k_corner[kt].begin());
    for (int k = 0; k < BK; ++k) {
      int dk[4];
      k_in[kt][k] = digits_at(p.k, ck, k, dk);
      k_at[kt][k] = k_in[kt][k] ? merged_k(p, dk) : 0;
    }
  }
  static_assert(BK <= 64, "a k-tile's zero columns as the bits of one word");
  // One operand's tiles (A's M tiles or B's N tiles) of every k-tile, each fetched and checked once (a
  // tile does not depend on the other operand's tile); zero: per (tile, k-tile) the bits of the k
  // positions at which the whole tile reads zero.
  auto check_operand = [&](bool is_a, index_t g, const std::vector<tile_digits>& tiles, int R, std::vector<std::uint64_t>& zero) {
    zero.assign(tiles.size() * k_corner.size(), 0);
    for (std::size_t t = 0; t < tiles.size(); ++t)
      for (std::size_t kt = 0; kt < k_corner.size(); ++kt) {
        int ck[4];
        std::copy(k_corner[kt].begin(), k_corner[kt].end(), ck);
        const auto& td = tiles[t];
        const auto got = !is_a         ? fetch<BK>(p.b, v.b, g, td.corner, ck, BN)
                         : p.halo.on   ? fetch_halo<BM, BK>(p, v.a, g, td.corner, ck, static_cast<int>(static_cast<index_t>(kt) % p.halo.taps))
                         : p.k_halo.on ? fetch_k_halo<BM>(p, v.a, g, td.corner, ck)
                                       : fetch<BK>(p.a, v.a, g, td.corner, ck, BM);
        for (int k = 0; k < BK; ++k) {
          bool all_zero = true;
          for (int r = 0; r < R; ++r) {
            const float e = got[static_cast<std::size_t>(r) * BK + k];
            all_zero = all_zero && e == 0.0f;
            if (!k_in[kt][k] || !td.in[r]) continue;
            const multi_index<3> at{{g, td.at[r], k_at[kt][k]}};
            if (is_a) ASSERT_EQ(e, v.a.load(at)) << "A tile " << t << " k-tile " << kt << " row " << r << " k " << k;
            else ASSERT_EQ(e, v.b.load(at)) << "B tile " << t << " k-tile " << kt << " col " << r << " k " << k;
            ++checked;
          }
          zero[t * k_corner.size() + kt] |= static_cast<std::uint64_t>(all_zero) << k;
        }
      }
  };
  for (index_t g = 0; g < G; ++g) {
    for (index_t tm = 0; tm < p.m.count; ++tm)
      for (index_t tn = 0; tn < p.n.count; ++tn) {
        const auto &m = ms[static_cast<std::size_t>(tm)], &n = ns[static_cast<std::size_t>(tn)];
        // C: the offset of every tile position.
        for (int r = 0; r < BM; ++r) {
          if (!m.in[r]) continue;
          for (int c = 0; c < BN; ++c) {
            if (!n.in[c]) continue;
            index_t off = p.c_off0 + p.c_g * g;
            for (int q = 0; q < 4; ++q) off += p.c_m[q] * m.d[r][q] + p.c_n[q] * n.d[c][q];
            const multi_index<3> at{{g, m.at[r], n.at[c]}};
            ASSERT_EQ(off, v.c.desc.offset(at)) << "C at " << str(at);
          }
        }
        // C's store boxes on a sample of the tiles (the first, middle and last M tiles of the first and
        // last group, every N tile: the edges' clipping and an interior tile; all of them cost the
        // sanitizer lane a minute).
        if ((g == 0 || g == G - 1) && (tm == 0 || tm == p.m.count / 2 || tm == p.m.count - 1)) check_c_store<BM, BN>(v, p, st, g, m.corner, n.corner);
      }
    if (!p.has_k) continue;
    std::vector<std::uint64_t> a_zero, b_zero;
    check_operand(true, g, ms, BM, a_zero);
    if (::testing::Test::HasFatalFailure()) return;
    check_operand(false, g, ns, BN, b_zero);
    if (::testing::Test::HasFatalFailure()) return;
    for (std::size_t kt = 0; kt < k_corner.size(); ++kt) {
      std::uint64_t past = 0;  // the k positions past K
      for (int k = 0; k < BK; ++k) past |= static_cast<std::uint64_t>(!k_in[kt][k]) << k;
      for (std::size_t tm = 0; tm < ms.size(); ++tm)
        for (std::size_t tn = 0; tn < ns.size(); ++tn) {
          const std::uint64_t covered = a_zero[tm * k_corner.size() + kt] | b_zero[tn * k_corner.size() + kt];
          ASSERT_EQ(past & ~covered, 0u) << "k past K must read zero in A or B (k-tile " << kt << ", M tile " << tm << ", N tile " << tn << ")";
        }
    }
  }
  if (p.has_k) EXPECT_GT(checked, 0);
}

// The views of C^T = B^T A^T: what a transposed plan (class_plan.hpp) must bring and write.
template <class V>
struct transposed_views {
  struct c_desc {
    decltype(V::c.desc) d;
    index_t offset(const multi_index<3>& at) const { return d.offset({{at[0], at[2], at[1]}}); }
  };
  struct c_view {
    c_desc desc;
  };
  decltype(V::b) a;
  decltype(V::a) b;
  c_view c;
  explicit transposed_views(const V& v) : a(v.b), b(v.a), c{c_desc{v.c.desc}} {}
};

// The views' elements and C's offsets, each worked out from its descriptor once for all the plans of
// one GEMM that check_tiles checks (nine tile shapes and halos: the descriptors' arithmetic, repeated
// per plan, was most of the sanitizer lane's time). Every box element is still compared with the
// descriptor's value at its GEMM coordinates.
template <class View>
struct memo_operand {
  const float* data;
  const View* v;
  index_t rows, ks;
  std::shared_ptr<std::vector<float>> val;
  std::shared_ptr<std::vector<char>> known;
  memo_operand(const View& w, index_t groups, index_t r, index_t k)
      : data(w.data), v(&w), rows(r), ks(k), val(std::make_shared<std::vector<float>>(static_cast<std::size_t>(groups * r * k))),
        known(std::make_shared<std::vector<char>>(val->size(), 0)) {}
  float load(const multi_index<3>& at) const {
    const auto i = static_cast<std::size_t>((at[0] * rows + at[1]) * ks + at[2]);
    if (!(*known)[i]) (*val)[i] = v->load(at), (*known)[i] = 1;
    return (*val)[i];
  }
};
template <class Desc>
struct memo_offsets {
  const Desc* d;
  index_t ms, ns;
  std::shared_ptr<std::vector<index_t>> off;  // -1: not yet asked (C has no padding: offsets are >= 0)
  index_t offset(const multi_index<3>& at) const {
    index_t& o = (*off)[static_cast<std::size_t>((at[0] * ms + at[1]) * ns + at[2])];
    if (o < 0) o = d->offset(at);
    return o;
  }
};
template <class V>
struct memo_views {
  memo_operand<decltype(V::a)> a;
  memo_operand<decltype(V::b)> b;
  struct {
    memo_offsets<std::remove_cv_t<decltype(V::c.desc)>> desc;
  } c;
  explicit memo_views(const V& v)
      : a(v.a, v.groups(), v.m(), v.k()), b(v.b, v.groups(), v.n(), v.k()),
        c{{&v.c.desc, v.m(), v.n(), std::make_shared<std::vector<index_t>>(static_cast<std::size_t>(v.groups() * v.m() * v.n()), -1)}} {}
};

// Plans v for each tile shape of the table (plan.hpp) and checks every plan; true if any exists.
template <class Views>
bool check_tiles(const Views& v, bool expect) {
  // GEMMs under min_rows rows or columns never reach the pipeline (launch.hpp); one of a single row
  // has no digit to tile (regression: seed 1475592872, a col2im class of one row).
  // Nor has a reduction of one element (regression: seeds 2182235374 and 760237, backward weight of one
  // image whose every output size is 1): it is refused and runs on the cp.async pipeline.
  expect = expect && v.m() >= tg::tma_gemm::min_rows && v.n() >= tg::tma_gemm::min_rows && v.k() > 1;
  const memo_views<Views> mv(v);
  bool any = false;
  auto one = [&](auto bm, auto bn) {
    constexpr int BM = decltype(bm)::value, BN = decltype(bn)::value;
    SCOPED_TRACE(::testing::Message() << "tile " << BM << "x" << BN);
    const auto p = tg::tma_gemm::plan_class<BM, BN>(v);
    if (p.ok) check_plan<BM, BN>(mv, p), any = true;
    else if (expect && BM == 128 && BN == 128) ADD_FAILURE() << "no plan: " << p.why;
  };
  one(std::integral_constant<int, 128>{}, std::integral_constant<int, 128>{});
  one(std::integral_constant<int, 256>{}, std::integral_constant<int, 128>{});
  one(std::integral_constant<int, 256>{}, std::integral_constant<int, 64>{});
  // Halo plans (launch.hpp tries them first for single GEMMs with K-major A), wherever they exist.
  auto halo = [&](auto bn) {
    constexpr int BN = decltype(bn)::value;
    SCOPED_TRACE(::testing::Message() << "halo tile 256x" << BN);
    const auto p = tg::tma_gemm::plan_class<256, BN, false, tg::tma_gemm::halo_kind::rows>(v);
    if (p.ok) check_plan<256, BN>(mv, p);
  };
  halo(std::integral_constant<int, 64>{});
  halo(std::integral_constant<int, 128>{});
  // The transposed plan (launch.hpp takes it for backward weight with 64 output channels or fewer),
  // checked against the transposed views wherever it exists.
  const auto pt = v.m() <= 64 ? tg::tma_gemm::plan_class<256, 64, true>(v) : tg::tma_gemm::class_plan{};
  if (pt.ok) {
    SCOPED_TRACE("transposed 256x64");
    EXPECT_TRUE(pt.transposed);
    check_plan<256, 64>(transposed_views<memo_views<Views>>(mv), pt);
  }
  // k-halo plans (launch.hpp tries them first for backward weight: both operands MN-major), transposed,
  // wherever they exist.
  auto k_halo = [&](auto bn) {
    constexpr int BN = decltype(bn)::value;
    SCOPED_TRACE(::testing::Message() << "k-halo tile 256x" << BN);
    const auto p = tg::tma_gemm::plan_class<256, BN, true, tg::tma_gemm::halo_kind::k>(v);
    if (p.ok) check_plan<256, BN>(transposed_views<memo_views<Views>>(mv), p);
  };
  k_halo(std::integral_constant<int, 64>{});
  k_halo(std::integral_constant<int, 128>{});  // not launched (launch.hpp), but the plan is general
  // The taps tile (plan.hpp: 9 m64 blocks, a tile-local row index that is not a power of two).
  {
    using T = tg::tma_gemm::k_halo_taps_tile;
    SCOPED_TRACE("k-halo taps tile");
    const auto p = tg::tma_gemm::plan_class<T::BM, T::BN, true, tg::tma_gemm::halo_kind::k>(v);
    if (p.ok) check_plan<T::BM, T::BN>(transposed_views<memo_views<Views>>(mv), p), ++taps_plans;
  }
  return any;
}

// The tf32 plans (32 fp32 elements per 128-byte row, class_plan.hpp): every plan of the 32-bit tiles is
// checked like the 16-bit ones, MN-major operands included (32 rows of 128 bytes per box: what the
// MN-major tf32 tile's transposers read, tf32_transpose.hpp), and for both operands MN-major (backward
// weight channels-last) the transposed 256x64 plan too. expect: the plain 128x128 plan must exist.
inline int tf32_plans = 0, tf32_halo_plans = 0, tf32_mn_plans = 0, tf32_weight_copy_plans = 0, tf32_bwd_weight_plans = 0;
template <class Views>
bool check_tiles_tf32(const Views& v, bool expect) {
  expect = expect && v.m() >= tg::tma_gemm::min_rows && v.n() >= tg::tma_gemm::min_rows && v.k() > 1;
  const int orient = tg::tma_gemm::orientation_of<BK32>(v);
  const memo_views<Views> mv(v);
  bool any = false;
  auto one = [&](auto bm, auto bn, auto halo) {
    constexpr int BM = decltype(bm)::value, BN = decltype(bn)::value;
    constexpr auto H = decltype(halo)::value ? tg::tma_gemm::halo_kind::rows : tg::tma_gemm::halo_kind::none;
    SCOPED_TRACE(::testing::Message() << "tf32 tile " << BM << "x" << BN << (H == tg::tma_gemm::halo_kind::rows ? " (halo)" : ""));
    const auto p = tg::tma_gemm::plan_class<BM, BN, false, H, BK32>(v);
    if (!p.ok) {
      if (expect && BM == 128 && BN == 128 && H == tg::tma_gemm::halo_kind::none) ADD_FAILURE() << "no tf32 plan: " << p.why;
      return;
    }
    if (p.has_k) EXPECT_EQ(p.a_mn * 2 + p.b_mn, orient) << "the plan's orientation is not the launch's";
    check_plan<BM, BN, BK32>(mv, p);
    any = true, ++tf32_plans, tf32_halo_plans += p.halo.on, tf32_mn_plans += p.has_k && (p.a_mn || p.b_mn);
  };
  one(std::integral_constant<int, 128>{}, std::integral_constant<int, 128>{}, std::false_type{});
  one(std::integral_constant<int, 256>{}, std::integral_constant<int, 128>{}, std::false_type{});
  one(std::integral_constant<int, 256>{}, std::integral_constant<int, 64>{}, std::false_type{});
  one(std::integral_constant<int, 256>{}, std::integral_constant<int, 64>{}, std::true_type{});
  one(std::integral_constant<int, 256>{}, std::integral_constant<int, 128>{}, std::true_type{});
  if (orient == 3) {  // the narrow MN-major tf32 tile's plan: C^T = B^T A^T
    SCOPED_TRACE("tf32 tile 256x64 transposed");
    const auto p = tg::tma_gemm::plan_class<256, 64, true, tg::tma_gemm::halo_kind::none, BK32>(v);
    if (p.ok) check_plan<256, 64, BK32>(transposed_views<memo_views<Views>>(mv), p), ++tf32_mn_plans;
  }
  return any;
}

// A backend that plans the GEMM an op program hands it (found by argument-dependent lookup) instead of
// running it: the forward below is checked as ops/conv_fwd.hpp builds it, not as a copy of its views.
struct plan_backend {
  bool expect = false;
  int planned = 0;
  bool tf32 = false;  // check the 32-bit tiles' plans (check_tiles_tf32) instead of the 16-bit ones
};
template <class Batch>
void gemm(plan_backend& be, const Batch& batch, tg::gemm_epilogue, tg::gemm_policy) {
  static_assert(tg::is_single_gemm<Batch>::value, "the forward is one GEMM");
  be.planned += be.tf32 ? check_tiles_tf32(batch.views(0), be.expect) : check_tiles(batch.views(0), be.expect);
}

inline std::vector<float> nonzero_data(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(1.0f, 2.0f);  // never zero: a zero read is padding
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// Backward weight's GEMM views as its op program builds them (ops/grouped_conv_bwd_weight.hpp).
template <int ND>
auto bwd_weight_views(const tg::ops::conv_problem& pr, const float* y, const float* x, float* dw) {
  const auto batch = tg::make_tensor_batch(tg::ops::conv_bwd_weight_rule<ND>{pr.geometry<ND>()}, tg::read_tensor(y, pr.y_desc<ND>(), 2, 0),
                                           tg::read_tensor(x, pr.x_desc<ND>(), 2, 0), tg::written_weight(dw, pr.w_desc<ND>(), 2, 0, 1));
  return batch.views(0);
}

// tf32: the 32-bit tiles' plans (check_tiles_tf32), where channels-last forward and backward weight
// problems must get plans (backward weight's MN-major on both sides: the MN-major tf32 tile's).
template <int ND>
int check_problem(const tg::ops::conv_problem& pr, std::mt19937& rng, bool channels_last, bool tf32 = false) {
  // Dense channels-last 2-d and 3-d problems always get plans; others may be refused (a 1-d stride
  // past 2 with one image has no box of 128 output positions; 3-d groups need six axes).
  const bool expect_plans = channels_last && pr.G == 1 && ND >= 2;
  ::testing::Message geometry;
  for (int d = 0; d < ND; ++d)
    geometry << " [in " << pr.in[d] << " f " << pr.filter[d] << " s " << pr.stride[d] << " d " << pr.dilation[d] << " p " << pr.pad_l[d] << ","
             << pr.pad_r[d] << " out " << pr.out(d) << "]";
  SCOPED_TRACE(::testing::Message() << ND << "-d G " << pr.G << " N " << pr.N << " K " << pr.K << " C " << pr.C << " layout "
                                    << static_cast<int>(pr.layout) << geometry);
  const auto xd = pr.x_desc<ND>(), yd = pr.y_desc<ND>(), wd = pr.w_desc<ND>();
  auto x = nonzero_data(static_cast<std::size_t>(xd.element_space), rng);
  auto y = nonzero_data(static_cast<std::size_t>(yd.element_space), rng);
  auto w = nonzero_data(static_cast<std::size_t>(wd.element_space), rng);
  std::vector<float> out(1);
  const auto geo = pr.geometry<ND>();
  int planned = 0;
  {  // backward data: every col2im class
    const auto batch = tg::ops::make_col2im_batch(geo, y.data(), w.data(), out.data(), yd, wd, xd);
    for (index_t t = 0; t < batch.count(); ++t) {
      SCOPED_TRACE(::testing::Message() << "backward data, class " << t);
      const auto v = batch.views(t);
      if (v.m() == 0 || v.n() == 0) continue;
      planned += tf32 ? check_tiles_tf32(v, false) : check_tiles(v, expect_plans);
    }
  }
  if (tf32) {  // backward data on the copies the lowering makes (k_major_plan.hpp: w with its rows, K, innermost)
    const auto batch = tg::ops::make_col2im_batch(geo, y.data(), w.data(), out.data(), yd, wd, xd);
    const auto copies = tg::tma_gemm::k_major_copies_of(batch);
    for (index_t t = 0; copies.any && t < batch.count(); ++t) {
      SCOPED_TRACE(::testing::Message() << "backward data on w with K innermost, class " << t);
      const auto v = batch.with_tensors(copies.tensors).views(t);
      if (v.m() == 0 || v.n() == 0) continue;
      const int before = tf32_plans;
      check_tiles_tf32(v, expect_plans);
      tf32_weight_copy_plans += tf32_plans - before;
    }
  }
  {  // backward weight
    SCOPED_TRACE("backward weight");
    const auto v = bwd_weight_views<ND>(pr, y.data(), x.data(), out.data());
    const int before = tf32_plans;
    planned += tf32 ? check_tiles_tf32(v, expect_plans) : check_tiles(v, expect_plans);
    tf32_bwd_weight_plans += tf32_plans - before;
  }
  {  // the forward convolution (ops/conv_fwd.hpp): y = im2col(x) * w
    SCOPED_TRACE("forward");
    plan_backend be{expect_plans, 0, tf32};
    tg::ops::conv_fwd<ND>(be, pr, x.data(), w.data(), out.data());
    planned += be.planned;
  }
  return planned;
}

template <int ND>
tg::ops::conv_problem random_problem(std::mt19937& rng, tg::ops::conv_layout layout, index_t channel_unit) {
  tg::ops::conv_problem p;
  p.ndim = ND;
  p.layout = layout;
  p.G = uniform(rng, 1, 2);
  p.N = uniform(rng, 1, 3);
  p.K = p.G * channel_unit * uniform(rng, 1, 2);
  p.C = p.G * channel_unit * uniform(rng, 1, 2);
  for (int d = 0; d < ND; ++d) {
    const auto w = random_dim(rng, ND == 3 ? 6 : 11);
    p.in[d] = w.in, p.filter[d] = w.win, p.stride[d] = w.stride, p.dilation[d] = w.dilation, p.pad_l[d] = w.pad_l, p.pad_r[d] = w.pad_r;
  }
  return p;
}

template <int ND>
void check_random(tg::ops::conv_layout layout, index_t channel_unit, bool expect_plans, bool tf32 = false) {
  int planned = 0;
  for (const auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int i = 0; i < 3; ++i) planned += check_problem<ND>(random_problem<ND>(rng, layout, channel_unit), rng, expect_plans, tf32);
  }
  if (expect_plans) EXPECT_GT(planned, 0) << "channels-last problems got no plan at all: the test would check nothing";
}

}  // namespace tma_plan_check
