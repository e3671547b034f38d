// The fragment layouts of the matrix-core atoms as tile distributions of the DSL: (lane, element) ->
// (row, col) of the atom's A [M, K], B [K, N] and C [M, N] tiles, each a merge of the lane and
// element ids into digits and an unmerge of digits into a coordinate. Kernels load fragments with
// load_tile through these; tests/arch checks them against the atoms' a/b/c_coord (the ISA tables).
#pragma once
#include "arch/mfma_amd.hpp"
#include "arch/mma_nvidia.hpp"
#include "dsl/compose/group_dims.hpp"
#include "dsl/tile_distribution.hpp"

namespace tg::arch {
namespace detail {
template <index_t... L>
using digits = tuple<number<L>...>;

// lane = digits LaneD (row-major), element = digits ElemD; row and col unmerge the listed digit ids
// (lane digits first, then element digits) with the listed lengths.
template <class LaneD, class ElemD, class RowIds, class RowLens, class ColIds, class ColLens>
TG_FN auto fragment(RowIds, ColIds) {
  constexpr int nl = tuple_size_v<LaneD>, ne = tuple_size_v<ElemD>;
  auto join = make_stage(tg::make_tuple(unmerge<RowLens>{}, unmerge<ColLens>{}), tg::make_tuple(seq<0>{}, seq<1>{}),
                         tg::make_tuple(RowIds{}, ColIds{}));
  auto split = make_stage(tg::make_tuple(merge<LaneD>{}, merge<ElemD>{}),
                          tg::make_tuple(seq_range<0, nl>{}, seq_range<nl, nl + ne>{}), tg::make_tuple(seq<0>{}, seq<1>{}));
  return make_tile_distribution(stack(make_adaptor(join), split));
}
}  // namespace detail

template <class Atom>
struct fragment_distribution;

// mma.sync m16n8k16 (f16, bf16). Lane = (g, q) = (lane / 4, lane % 4).
template <class Atom>
  requires(Atom::M == 16 && Atom::N == 8 && Atom::K == 16 && Atom::lanes == 32)
struct fragment_distribution<Atom> {
  // A: element (i2, i1, i0): row = i1 * 8 + g, col = i2 * 8 + q * 2 + i0
  static TG_FN auto a() {
    return detail::fragment<detail::digits<8, 4>, detail::digits<2, 2, 2>, seq<3, 0>, detail::digits<2, 8>, seq<2, 1, 4>, detail::digits<2, 4, 2>>(
        seq<3, 0>{}, seq<2, 1, 4>{});
  }
  // B (k, n): element (i1, i0): k = i1 * 8 + q * 2 + i0, n = g
  static TG_FN auto b() {
    return detail::fragment<detail::digits<8, 4>, detail::digits<2, 2>, seq<2, 1, 3>, detail::digits<2, 4, 2>, seq<0>, detail::digits<8>>(
        seq<2, 1, 3>{}, seq<0>{});
  }
  // C: element (i1, i0): row = i1 * 8 + g, col = q * 2 + i0
  static TG_FN auto c() {
    return detail::fragment<detail::digits<8, 4>, detail::digits<2, 2>, seq<2, 0>, detail::digits<2, 8>, seq<1, 3>, detail::digits<4, 2>>(
        seq<2, 0>{}, seq<1, 3>{});
  }
};

// mma.sync m16n8k8 tf32: A element (i1, i0): row = i0 * 8 + g, col = i1 * 4 + q; B element i: k = i * 4 + q.
template <>
struct fragment_distribution<mma_m16n8k8_tf32> {
  static TG_FN auto a() {
    return detail::fragment<detail::digits<8, 4>, detail::digits<2, 2>, seq<3, 0>, detail::digits<2, 8>, seq<2, 1>, detail::digits<2, 4>>(
        seq<3, 0>{}, seq<2, 1>{});
  }
  static TG_FN auto b() {
    return detail::fragment<detail::digits<8, 4>, detail::digits<2>, seq<2, 1>, detail::digits<2, 4>, seq<0>, detail::digits<8>>(seq<2, 1>{},
                                                                                                                                   seq<0>{});
  }
  static TG_FN auto c() { return fragment_distribution<mma_m16n8k16_f16>::c(); }
};

// Single-block wave64 MFMA (M == N): lane = (kg, r) = (lane / M, lane % M); A: row = r,
// col = kg * kp + e; B (k, n): k = kg * kp + e, n = r; C: element (b, w): row = b * 4G + kg * 4 + w, col = r.
template <class Atom>
  requires(Atom::lanes == 64)
struct fragment_distribution<Atom> {
  static constexpr index_t M = Atom::M, G = 64 / M, kp = Atom::a_per_lane;
  static TG_FN auto a() {
    return detail::fragment<detail::digits<G, M>, detail::digits<kp>, seq<1>, detail::digits<M>, seq<0, 2>, detail::digits<G, kp>>(seq<1>{},
                                                                                                                                     seq<0, 2>{});
  }
  static TG_FN auto b() {
    return detail::fragment<detail::digits<G, M>, detail::digits<kp>, seq<0, 2>, detail::digits<G, kp>, seq<1>, detail::digits<M>>(seq<0, 2>{},
                                                                                                                                     seq<1>{});
  }
  static TG_FN auto c() {
    return detail::fragment<detail::digits<G, M>, detail::digits<Atom::c_per_lane / 4, 4>, seq<2, 0, 3>,
                            detail::digits<Atom::c_per_lane / 4, G, 4>, seq<1>, detail::digits<M>>(seq<2, 0, 3>{}, seq<1>{});
  }
};
}  // namespace tg::arch
