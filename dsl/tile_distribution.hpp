// tile_distribution: how a tile is spread over the threads (or lanes) of a block: an adaptor from
// (thread, element) to the tile's coordinates. Built from the same transforms as tensors (merge
// splits a thread id into its position in a thread grid, unmerge joins digits into a coordinate,
// replicate gives threads that see the same elements), so a fragment layout of a matrix-core atom,
// a copy layout of a block and a reduction layout are all one concept, checked the same way.
#pragma once
#include "dsl/adaptor.hpp"
#include "dsl/transform/merge.hpp"
#include "dsl/transform/pass_through.hpp"
#include "dsl/transform/unmerge.hpp"

namespace tg {
template <class Adaptor>
struct tile_distribution {
  static_assert(Adaptor::n_top == 2, "a tile distribution maps (thread, element) to a tile coordinate");
  static constexpr int rank = Adaptor::n_bottom;
  Adaptor map;
  TG_FN index_t threads() const { return map.top_length(0); }
  TG_FN index_t elements() const { return map.top_length(1); }  // per thread
  TG_FN multi_index<rank> coord(index_t thread, index_t element) const { return map.bottom({{thread, element}}); }
};
template <class A>
TG_FN tile_distribution<A> make_tile_distribution(const A& a) { return {a}; }

// The distribution that gives each of `threads` threads `vec` neighbouring elements along the last
// dimension of a [rows, cols] tile, threads laid row-major, repeated down the rows until the tile is
// covered: thread t, element e = (repeat, v) -> row = repeat * (threads / (cols / vec)) + t / (cols / vec),
// col = (t % (cols / vec)) * vec + v. The usual copy distribution of a global -> shared tile.
template <index_t Rows, index_t Cols, index_t Threads, index_t Vec>
TG_FN auto make_copy_distribution() {
  constexpr index_t chunks = Cols / Vec, rows_per_pass = Threads / chunks, passes = Rows / rows_per_pass;
  static_assert(Cols % Vec == 0 && Threads % chunks == 0 && Rows % rows_per_pass == 0, "copy distribution must tile exactly");
  // bottom stage: (repeat, trow, chunk, v) -> (row, col)
  auto join = make_stage(tg::make_tuple(unmerge<tuple<number<passes>, number<rows_per_pass>>>{},
                                        unmerge<tuple<number<chunks>, number<Vec>>>{}),
                         tg::make_tuple(seq<0>{}, seq<1>{}), tg::make_tuple(seq<0, 1>{}, seq<2, 3>{}));
  // top stage: thread -> (trow, chunk), element -> (repeat, v)
  auto split = make_stage(tg::make_tuple(merge<tuple<number<rows_per_pass>, number<chunks>>>{},
                                         merge<tuple<number<passes>, number<Vec>>>{}),
                          tg::make_tuple(seq<1, 2>{}, seq<0, 3>{}), tg::make_tuple(seq<0>{}, seq<1>{}));
  return make_tile_distribution(stack(make_adaptor(join), split));
}
}  // namespace tg
