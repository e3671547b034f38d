// C's tile as TMA store boxes (host half, plain numbers: host-tested over whole domains against the
// plan's C offsets). A consumer warp's piece of C is 16 tile rows (wgmma's m64 block is 4 warps x 16)
// by the tile's columns; it is one box of C_piece_rows x 64 elements per 64 columns when C is a tensor
// whose axes are the digits: the N tile spans one contiguous digit (axis 0), and the piece's 16 rows,
// the low 4 bits of the tile-local row index, fall on the M digits in the order the index runs over
// them, so that the box's row-major order in shared memory is the piece's row order. Rows and columns
// past C's edges are clipped by the TMA (a digit's length is its axis's length), as the element-wise
// epilogue skips them. Every other digit that moves C (the other N digits, the groups) is an axis the
// box spans one element of. Where that takes more than 5 axes, or a stride is not a multiple of 16
// bytes, the epilogue stores from the threads as before.
#pragma once
#include <string>
#include "arch/tma_box.hpp"
#include "dsl/config.hpp"
#include "lowering/gpu/tma_gemm/class_plan.hpp"

namespace tg::tma_gemm {
constexpr int c_piece_rows = 16;  // a consumer warp's rows of an m64 block
constexpr int c_box_cols = 64;    // 128 bytes of 16-bit elements: the 128-byte swizzle's row

// Which axis of C's box each digit is (-1: none, the digit has one value).
struct c_box_axes {
  int rank = 0, fast = 0;  // fast: the N digit that is axis 0 (contiguous in C)
  signed char m_axis[nd] = {-1, -1, -1, -1}, n_axis[nd] = {-1, -1, -1, -1}, g_axis = -1;
};

// The corner of a piece's box on axis ax: m, the digits of the piece's first row (the tile's corner
// plus its local digits); n, the tile's corner digits; g, the group. A sum of selects, not an array
// indexed by axis (which the kernel kept on the stack). The kernel and the host test both call it.
TG_HD inline int c_box_corner(const c_box_axes& x, const int (&m)[nd], const int (&n)[nd], int g, int ax) {
  int c = x.g_axis == ax ? g : 0;
  TG_UNROLL for (int p = 0; p < nd; ++p) {
    c += x.m_axis[p] == ax ? m[p] : 0;
    c += x.n_axis[p] == ax || (ax == 0 && p == x.fast) ? n[p] : 0;
  }
  return c;
}

// The box over C and its axes, or why not.
struct c_store {
  bool ok = false;
  const char* why = "";
  arch::tma_box box;
  c_box_axes axes;
};

// The store boxes of plan p (rows: the tile's row digits must be powers of two) for BN columns of
// elements of elem_bytes, or why not.
inline c_store plan_c_store(const class_plan& p, int bn, int elem_bytes) {
  c_store s;
  auto fail = [&](const char* w) { s.ok = false, s.why = w; return s; };
  if (!p.ok) return fail("no plan");
  if (!p.m.pow2) return fail("the tile's rows are not a power of two");
  if (bn % c_box_cols != 0) return fail("the tile's columns are not whole 128-byte rows");
  int fast = -1, spanned = 0;
  for (int q = 0; q < nd; ++q)
    if (p.n.ext[q] > 1) fast = q, ++spanned;
  if (spanned != 1 || p.n.ext[fast] != bn || p.c_n[fast] != 1) return fail("the N tile is not one contiguous digit");
  s.axes.fast = fast;
  arch::tma_box& b = s.box;
  b.base = p.c_off0;
  auto axis = [&](long long length, long long stride, int box) {
    if (b.rank == arch::tma_box::max_rank) return -1;
    const int x = b.rank++;
    b.length[x] = length, b.stride[x] = stride, b.box[x] = box, b.elem_stride[x] = 1;
    return x;
  };
  axis(p.n.len[fast], 1, c_box_cols);
  // The M digits in the order the tile-local row index runs over them (its low bits first): a piece's
  // rows are the index's low 4 bits, 2^(bits of digit p among them) values of each digit.
  int by_shift[nd], n = 0;
  for (int q = 0; q < nd; ++q)
    if (p.m.len[q] > 1 || p.m.ext[q] > 1) by_shift[n++] = q;
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && p.m.shift[by_shift[j]] < p.m.shift[by_shift[j - 1]]; --j) std::swap(by_shift[j], by_shift[j - 1]);
  int rows = 1;
  for (int i = 0; i < n; ++i) {
    const int q = by_shift[i];
    int bits = 0;
    while ((1 << bits) < p.m.ext[q]) ++bits;
    const int lo = p.m.shift[q] < 4 ? p.m.shift[q] : 4, hi = p.m.shift[q] + bits < 4 ? p.m.shift[q] + bits : 4;
    const int box = 1 << (hi - lo);
    rows *= box;
    if ((s.axes.m_axis[q] = static_cast<signed char>(axis(p.m.len[q], p.c_m[q], box))) < 0) return fail("C takes more than 5 axes");
  }
  if (rows != c_piece_rows) return fail("a warp's 16 rows are not one box");
  for (int q = 0; q < nd; ++q)
    if (q != fast && p.n.len[q] > 1 && (s.axes.n_axis[q] = static_cast<signed char>(axis(p.n.len[q], p.c_n[q], 1))) < 0)
      return fail("C takes more than 5 axes");
  if (p.groups > 1 && (s.axes.g_axis = static_cast<signed char>(axis(p.groups, p.c_g, 1))) < 0) return fail("C takes more than 5 axes");
  if (p.c_off0 * elem_bytes % 16 != 0) return fail("C's origin is not 16-byte aligned");
  for (int x = 0; x < b.rank; ++x) {
    if (b.length[x] > (1ll << 32)) return fail("an axis of C longer than 2^32");
    if (x > 0 && (b.stride[x] <= 0 || b.stride[x] * elem_bytes % 16 != 0 || b.stride[x] * elem_bytes >= (1ll << 40)))
      return fail("a stride of C is not a positive multiple of 16 bytes");
  }
  s.axes.rank = b.rank;
  s.ok = true;
  return s;
}
}  // namespace tg::tma_gemm
