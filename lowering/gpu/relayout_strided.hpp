// The fast paths of relayout between two plain strided tensors of one element type (such as the
// ordered descriptors of any two layouts), as plain numbers and per-thread steps. The kernels
// (relayout.hpp) call these steps; the host test (tests/lowering/gpu/relayout_strided_test.cpp) runs
// them for every thread of emulated blocks, so the index arithmetic is checked without a GPU.
//   rows:      both tensors contiguous along one dimension: a thread per 16-byte word.
//   transpose: contiguous along different dimensions: a block per tile of S x S elements spanning both
//              (S = 8 words of 16 bytes: 64 16-bit or 32 fp32 elements), read in 16-byte words along the
//              source's contiguous dimension into shared memory, written in 16-byte words along the
//              destination's. A side whose words would not be whole or aligned (an NCHW image of 71x71:
//              rows of 5041 elements) moves single elements, a warp's 32 threads along one row.
// Dimensions adjacent in both tensors are merged first (NCHW -> NHWC is a transpose of C against H*W). Shared rows are one 4-byte word longer than the tile (pitch P), and for
//              16-bit elements threads 4-7 of a row store their word's elements in rotated order (R):
//              a warp's element stores (phase 1) and loads (phase 2) then fall in distinct banks, which
//              a pitch alone cannot do for 16-bit elements (the rows a phase-1 instruction writes are 8
//              apart). The host test checks both phases.
// Offsets are 32-bit (both element spaces under 2^31); other problems take the generic kernel.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include "dsl/config.hpp"
#include "lowering/gpu/strided.hpp"

namespace tg::relayout_fast {
constexpr int max_rank = 8;
constexpr int block = 256;
constexpr int words_per_row = 8;                   // 16-byte words along a tile row (128 bytes)
constexpr int rows_per_pass = block / words_per_row;

template <class T>
struct geometry {
  static constexpr int V = static_cast<int>(16 / sizeof(T));          // elements per 16-byte word
  static constexpr int S = words_per_row * V;                         // tile side, elements
  static constexpr int P = S + static_cast<int>(4 / sizeof(T));       // shared row pitch, elements
  static constexpr int R = sizeof(T) == 2 ? V / 2 : 0;                 // phase-1 rotation of threads 4-7
  static constexpr int smem_elems = S * P;
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "16-bit and 32-bit elements");
};

// 16 bytes of elements, moved as one access.
template <class T>
struct alignas(16) word {
  T v[16 / sizeof(T)];
};

enum class kind { none, rows, transpose };

// Plain numbers only: the plan is a kernel argument.
struct plan {
  kind k = kind::none;
  int s_in = -1, d_in = -1;     // the contiguous dimension of the source and of the destination
  int len[max_rank] = {}, ss[max_rank] = {}, ds[max_rank] = {};  // lengths, element strides (src, dst)
  bool s_words = true, d_words = true;  // 16-byte accesses on the source / destination side (else elements)
  int n_outer = 0;              // the other dimensions, slowest first in the destination
  int outer[max_rank] = {};
  gpu_fast::fast_div outer_div[max_rank] = {};
  int words = 0;                // rows: 16-byte words per row
  int tiles_s = 0, tiles_d = 0;  // transpose: tiles along s_in and d_in
  gpu_fast::fast_div words_div, tiles_s_div, tiles_d_div;
  long long units = 0;          // rows: words in all; transpose: tiles in all
};

// The plan for R dimensions of lengths len, source strides ss and destination strides ds (elements),
// element spaces src_space and dst_space, both base pointers 16-byte aligned or not (aligned),
// elements of `bytes` bytes; kind::none, with the reason in why, where no fast path applies.
template <int R>
plan make_plan(const index_t* len, const index_t* ss, const index_t* ds, index_t src_space, index_t dst_space, bool aligned, int bytes,
               std::string& why) {
  plan p;
  auto none = [&](std::string w) { p.k = kind::none, why = std::move(w); return p; };
  if (bytes != 2 && bytes != 4) return none("element size");
  if (src_space >= (index_t{1} << 31) || dst_space >= (index_t{1} << 31)) return none("over 2^31 elements");
  const int V = 16 / bytes;
  int n = 0;
  for (int d = 0; d < R; ++d) {
    if (len[d] == 1) continue;  // moves nothing
    if (len[d] < 1 || ss[d] <= 0 || ds[d] <= 0) return none("an empty dimension or a stride that is not positive");
    if (n == max_rank) return none("more than 8 dimensions longer than 1");
    p.len[n] = static_cast<int>(len[d]), p.ss[n] = static_cast<int>(ss[d]), p.ds[n] = static_cast<int>(ds[d]);
    ++n;
  }
  if (n == 0) return none("one element");
  // Merge a dimension b into a whose steps it continues in both tensors (a's stride = b's stride x
  // b's length on each side): one longer dimension, the same copy.
  for (bool merged = true; merged;) {
    merged = false;
    for (int a = 0; a < n && !merged; ++a)
      for (int b = 0; b < n && !merged; ++b)
        if (a != b && p.ss[a] == p.ss[b] * p.len[b] && p.ds[a] == p.ds[b] * p.len[b]) {
          p.len[b] *= p.len[a];
          for (int k = a; k + 1 < n; ++k) p.len[k] = p.len[k + 1], p.ss[k] = p.ss[k + 1], p.ds[k] = p.ds[k + 1];
          --n, merged = true;
        }
  }
  for (int d = 0; d < n; ++d) {
    if (p.ss[d] == 1) p.s_in = p.s_in == -1 ? d : -2;
    if (p.ds[d] == 1) p.d_in = p.d_in == -1 ? d : -2;
  }
  if (p.s_in < 0 || p.d_in < 0) return none("no single contiguous dimension");
  // A side moves 16-byte words where every word it touches is whole and aligned.
  auto words = [&](const int* st, int in) {
    if (!aligned || p.len[in] % V != 0) return false;
    for (int d = 0; d < n; ++d)
      if (d != in && st[d] % V != 0) return false;
    return true;
  };
  p.s_words = words(p.ss, p.s_in), p.d_words = words(p.ds, p.d_in);
  if (p.s_in == p.d_in && !(p.s_words && p.d_words))
    return none(aligned ? "rows that are not whole 16-byte words" : "a pointer is not 16-byte aligned");
  for (int d = 0; d < n; ++d)
    if (d != p.s_in && d != p.d_in) p.outer[p.n_outer++] = d;
  for (int a = 1; a < p.n_outer; ++a)  // slowest first in the destination: its stores walk forward
    for (int b = a; b > 0 && p.ds[p.outer[b]] > p.ds[p.outer[b - 1]]; --b) std::swap(p.outer[b], p.outer[b - 1]);
  long long outer = 1;
  for (int i = 0; i < p.n_outer; ++i) p.outer_div[i] = gpu_fast::fast_div(p.len[p.outer[i]]), outer *= p.len[p.outer[i]];
  if (p.s_in == p.d_in) {
    p.k = kind::rows;
    p.words = p.len[p.s_in] / V;
    p.words_div = gpu_fast::fast_div(p.words);
    p.units = outer * p.words;
  } else {
    const int S = words_per_row * V;
    p.k = kind::transpose;
    p.tiles_s = static_cast<int>(ceil_div(index_t{p.len[p.s_in]}, index_t{S}));
    p.tiles_d = static_cast<int>(ceil_div(index_t{p.len[p.d_in]}, index_t{S}));
    p.tiles_s_div = gpu_fast::fast_div(p.tiles_s);
    p.tiles_d_div = gpu_fast::fast_div(p.tiles_d);
    p.units = outer * p.tiles_s * p.tiles_d;
  }
  return p;
}

// The source and destination offsets of outer index o (mixed radix over the outer dimensions).
TG_HD inline void outer_offsets(const plan& p, int o, int& so, int& dso) {
  so = 0, dso = 0;
  TG_UNROLL for (int i = max_rank - 1; i >= 0; --i) {
    if (i >= p.n_outer) continue;
    const int q = p.outer_div[i].div(o), digit = o - q * p.len[p.outer[i]];
    so += digit * p.ss[p.outer[i]], dso += digit * p.ds[p.outer[i]];
    o = q;
  }
}

// rows: word u of the whole copy.
template <class T>
TG_HD inline void copy_word(const plan& p, const T* src, T* dst, int u) {
  constexpr int V = geometry<T>::V;
  const int o = p.words_div.div(u), w = u - o * p.words;
  int so, dso;
  outer_offsets(p, o, so, dso);
  *reinterpret_cast<word<T>*>(dst + dso + w * V) = *reinterpret_cast<const word<T>*>(src + so + w * V);
}

// transpose: where tile u lies (its corner along s_in and d_in, and its outer offsets).
struct tile_at {
  int s0, d0, so, dso;
};
TG_HD inline tile_at locate_tile(const plan& p, int u, int S) {
  const int ts = u - p.tiles_s_div.div(u) * p.tiles_s;
  u = p.tiles_s_div.div(u);
  const int td = u - p.tiles_d_div.div(u) * p.tiles_d;
  const int o = p.tiles_d_div.div(u);
  tile_at t{ts * S, td * S, 0, 0};
  outer_offsets(p, o, t.so, t.dso);
  return t;
}

// Phase 1, thread t: source rows (along d_in) of the tile in 16-byte words along s_in, into smem[s][d];
// element sides: consecutive threads read consecutive elements of a row (a warp's read is 32
// neighbours, 64 or 128 bytes), and their shared stores, P elements apart, fall in distinct banks.
// On the word side the phase is two steps, so that a kernel can issue a tile's loads (fetch_words, into
// registers: all of a thread's words at once) before it stores the previous tile (put_words, into
// shared memory). A profile of the 16-bit transpose (session 15) found each thread's two loads waited
// for one after the other.
template <class T>
struct tile_words {
  static constexpr int n = geometry<T>::S / rows_per_pass;  // words per thread (16-bit: 2, fp32: 1)
  word<T> x[n];
  bool ok[n];
};

template <class T>
TG_HD inline void fetch_words(const plan& p, const tile_at& at, const T* src, int t, tile_words<T>& w) {
  using G = geometry<T>;
  const int c = t % words_per_row;
  TG_UNROLL for (int i = 0; i < tile_words<T>::n; ++i) {
    const int r = t / words_per_row + i * rows_per_pass;
    const int d = at.d0 + r, s = at.s0 + c * G::V;
    w.ok[i] = d < p.len[p.d_in] && s < p.len[p.s_in];
    if (w.ok[i]) w.x[i] = *reinterpret_cast<const word<T>*>(src + at.so + d * p.ss[p.d_in] + s);
  }
}

template <class T>
TG_HD inline void put_words(const tile_words<T>& w, T* smem, int t) {
  using G = geometry<T>;
  const int c = t % words_per_row;
  const bool rotate = c >= 4;
  TG_UNROLL for (int i = 0; i < tile_words<T>::n; ++i) {
    const int r = t / words_per_row + i * rows_per_pass;
    if (!w.ok[i]) continue;
    TG_UNROLL for (int j = 0; j < G::V; ++j) {
      // A choice between two values, each read at a constant index: x stays in registers (a choice of
      // lvalue, x.v[rotate ? .. : ..], becomes an indexed load, which clang places in scratch).
      constexpr int R = G::R;
      const int k0 = j, k1 = (j + R) % G::V;
      const T a = w.x[i].v[k0], b = w.x[i].v[k1];
      smem[(c * G::V + (rotate ? k1 : k0)) * G::P + r] = rotate ? b : a;
    }
  }
}

// The element side of phase 1 (a source whose words would not be whole or aligned).
template <class T>
TG_HD inline void load_elements(const plan& p, const tile_at& at, const T* src, T* smem, int t) {
  using G = geometry<T>;
  for (int i = t; i < G::S * G::S; i += block) {
    const int r = i / G::S, col = i % G::S, d = at.d0 + r, s = at.s0 + col;
    if (d < p.len[p.d_in] && s < p.len[p.s_in]) smem[col * G::P + r] = src[at.so + d * p.ss[p.d_in] + s];
  }
}

template <class T>
TG_HD inline void load_tile(const plan& p, const tile_at& at, const T* src, T* smem, int t) {
  if (!p.s_words) return load_elements(p, at, src, smem, t);
  tile_words<T> w;
  fetch_words(p, at, src, t, w);
  put_words(w, smem, t);
}

// Phase 2, thread t: destination rows (along s_in) in 16-byte words along d_in, from smem[s][d]; element
// sides as in phase 1 (consecutive threads, consecutive elements of a destination row).
template <class T>
TG_HD inline void store_tile(const plan& p, const tile_at& at, const T* smem, T* dst, int t) {
  using G = geometry<T>;
  if (!p.d_words) {
    for (int i = t; i < G::S * G::S; i += block) {
      const int q = i / G::S, col = i % G::S, s = at.s0 + q, d = at.d0 + col;
      if (s < p.len[p.s_in] && d < p.len[p.d_in]) dst[at.dso + s * p.ds[p.s_in] + d] = smem[q * G::P + col];
    }
    return;
  }
  const int c = t % words_per_row;
  for (int q = t / words_per_row; q < G::S; q += rows_per_pass) {
    const int s = at.s0 + q, d = at.d0 + c * G::V;
    if (s >= p.len[p.s_in] || d >= p.len[p.d_in]) continue;
    word<T> x;
    TG_UNROLL for (int k = 0; k < G::V; ++k) x.v[k] = smem[q * G::P + c * G::V + k];
    *reinterpret_cast<word<T>*>(dst + at.dso + s * p.ds[p.s_in] + d) = x;
  }
}
}  // namespace tg::relayout_fast
