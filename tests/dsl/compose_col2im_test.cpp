// col2im: the stride/dilation ("tilde") split of convolution backward data into per-class GEMMs.
// (a) the classes' dx rows cover dx exactly once; (b) a plain GEMM over each class's views reproduces
// the scatter-loop backward data; (c) col2im of im2col equals the overlap counts, also per class;
// (d) each dimension's split against its definition, and locate inverts in_index. 1D/2D/3D, strides and
// dilations 1-3 (1-6 per dimension), asymmetric padding, stride > window, gcd(stride, dilation) > 1.
#include "dsl/compose/col2im.hpp"
#include "dsl/compose/im2col.hpp"
#include "dsl/coordinate.hpp"

#include <gtest/gtest.h>
#include <range/v3/view/cartesian_product.hpp>
#include <range/v3/view/iota.hpp>

#include "support.hpp"

#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <utility>

using namespace tg::test;

namespace {
namespace rv = ranges::views;

// Geometries chosen for the tilde split's corner cases: { in, win, stride, dilation, pad_l, pad_r }.
const tg::window_dim kCases[] = {
    {9, 3, 2, 1, 1, 1},   // the seed's 3x3 s2 p1 on an odd input
    {10, 3, 2, 2, 1, 0},  // gcd 2: one tap class, one tapless class
    {8, 2, 3, 1, 0, 2},   // stride > window: one tap class is empty
    {11, 1, 3, 1, 0, 0},  // window 1, stride 3: two of three classes empty
    {12, 3, 4, 2, 2, 1},  // gcd 2, s/g = 2: two tapless classes
    {13, 2, 6, 4, 3, 2},  // gcd 2, s/g = 3: three tapless classes
    {13, 3, 6, 3, 1, 1},  // gcd 3, s/g = 2: four tapless classes, two per block
    {7, 4, 3, 3, 3, 3},   // stride = dilation = 3: every tap in class 0
    {5, 2, 2, 4, 0, 0},   // dilation > stride, gcd 2
    {9, 3, 2, 1, 3, 0},   // pad_l > stride and = window
    {6, 1, 1, 1, 0, 0},   // the trivial one
    {4, 4, 1, 1, 3, 3},   // "full" padding, stride 1
};

// (d) One dimension of the split, checked against its definition by brute force:
//  - the residues of the `stride` classes are a permutation of [0, stride); tap classes hold the
//    multiples of g = gcd(stride, dilation) and come first;
//  - tap_index(i, j) over the tap classes and j < taps(i) lists every filter tap exactly once;
//  - rows(i) and in_index(i, h) enumerate the inputs with (hi + pad_l) mod stride = residue(i);
//  - locate inverts in_index both ways;
//  - for every input hi the (ho, k) pairs of its class, (out_index(i, h, j), tap_index(i, j)) with ho
//    in [0, out), are exactly the pairs with ho * stride + k * dilation = hi + pad_l.
void check_dim(const tg::window_dim& w) {
  SCOPED_TRACE(describe(w));
  const tg::col2im_dim c(w);
  const index_t s = w.stride, d = w.dilation, g = std::gcd(s, d), out = w.out();
  ASSERT_EQ(c.classes(), s);
  ASSERT_EQ(c.tap_classes(), s / g);
  std::vector<int> residue_seen(s, 0);
  for (index_t i = 0; i < s; ++i) {
    const index_t r = c.residue(i);
    ASSERT_TRUE(r >= 0 && r < s) << "class " << i;
    ++residue_seen[r];
    ASSERT_EQ(r % g == 0, i < s / g) << "class " << i << " residue " << r;
    if (i >= s / g) {
      ASSERT_EQ(c.taps(i), 0) << "class " << i;
    }
  }
  for (index_t r = 0; r < s; ++r) ASSERT_EQ(residue_seen[r], 1) << "residue " << r;

  std::vector<int> tap_seen(w.win, 0);
  for (index_t i = 0; i < s; ++i)
    for (index_t j = 0; j < c.taps(i); ++j) {
      const index_t k = c.tap_index(i, j);
      ASSERT_TRUE(k >= 0 && k < w.win) << "class " << i << " j " << j;
      ++tap_seen[k];
    }
  for (index_t k = 0; k < w.win; ++k) ASSERT_EQ(tap_seen[k], 1) << "tap " << k;

  for (index_t i = 0; i < s; ++i) {
    std::vector<index_t> want;
    for (index_t hi = 0; hi < w.in; ++hi)
      if ((hi + w.pad_l) % s == c.residue(i)) want.push_back(hi);
    ASSERT_EQ(c.rows(i), index_t(want.size())) << "class " << i;
    for (index_t h = 0; h < c.rows(i); ++h) {
      ASSERT_EQ(c.in_index(i, h), want[h]) << "class " << i << " row " << h;
      ASSERT_EQ(vec(c.locate(want[h])), (std::vector<index_t>{i, h})) << "hi " << want[h];
    }
  }
  for (index_t hi = 0; hi < w.in; ++hi) {
    const auto ih = c.locate(hi);
    ASSERT_TRUE(ih[0] >= 0 && ih[0] < s && ih[1] >= 0 && ih[1] < c.rows(ih[0])) << "hi " << hi;
    ASSERT_EQ(c.in_index(ih[0], ih[1]), hi);
    std::set<std::pair<index_t, index_t>> want, got;
    for (auto [ho, k] : rv::cartesian_product(rv::iota(index_t{0}, out), rv::iota(index_t{0}, w.win)))
      if (ho * s + k * d == hi + w.pad_l) want.insert({ho, k});
    for (index_t j = 0; j < c.taps(ih[0]); ++j) {
      const index_t ho = c.out_index(ih[0], ih[1], j), k = c.tap_index(ih[0], j);
      ASSERT_EQ(ho * s + k * d, hi + w.pad_l) << "hi " << hi << " j " << j;
      if (ho >= 0 && ho < out) got.insert({ho, k});
    }
    ASSERT_EQ(got, want) << "hi " << hi;
  }
}

// Tensors of one convolution, canonical logical orders dy [G, N, K, out...], w [G, K, C, taps...],
// dx [G, N, C, in...], each stored in a random physical order.
template <int NDim>
struct conv {
  static constexpr int R = 3 + NDim;
  tg::window_geometry<NDim> geo{};
  index_t G = 1, N = 1, K = 1, C = 1;
  multi_index<R> dy_len{}, w_len{}, dx_len{}, dy_str{}, w_str{}, dx_str{};

  conv(const tg::window_geometry<NDim>& g, index_t G_, index_t N_, index_t K_, index_t C_, std::mt19937& rng) : geo(g), G(G_), N(N_), K(K_), C(C_) {
    dy_len[0] = w_len[0] = dx_len[0] = G;
    dy_len[1] = dx_len[1] = N, w_len[1] = K;
    dy_len[2] = K, w_len[2] = dx_len[2] = C;
    for (int d = 0; d < NDim; ++d) dy_len[3 + d] = g[d].out(), w_len[3 + d] = g[d].win, dx_len[3 + d] = g[d].in;
    dy_str = strides_for(dy_len, random_perm(R, rng));
    w_str = strides_for(w_len, random_perm(R, rng));
    dx_str = strides_for(dx_len, random_perm(R, rng));
  }
  auto dy() const { return tg::make_naive_descriptor(tup(dy_len), tup(dy_str)); }
  auto w() const { return tg::make_naive_descriptor(tup(w_len), tup(w_str)); }
  auto dx() const { return tg::make_naive_descriptor(tup(dx_len), tup(dx_str)); }
  index_t size(const multi_index<R>& l) const {
    index_t n = 1;
    for (int i = 0; i < R; ++i) n *= l[i];
    return n;
  }
  std::string describe_all() const {
    std::ostringstream o;
    o << "G " << G << " N " << N << " K " << K << " C " << C << " geometry " << describe(geo) << " strides dy " << str(dy_str) << " w " << str(w_str)
      << " dx " << str(dx_str);
    return o.str();
  }
};

// (a) The dx rows of all classes cover every dx element exactly once.
template <int NDim>
void check_cover(const conv<NDim>& p) {
  const tg::col2im<NDim> c2i(p.geo);
  const auto dx = p.dx();
  index_t classes = 1, tap_classes = 1;
  for (int d = 0; d < NDim; ++d) classes *= p.geo[d].stride, tap_classes *= p.geo[d].stride / std::gcd(p.geo[d].stride, p.geo[d].dilation);
  ASSERT_EQ(c2i.classes(), classes);
  ASSERT_EQ(c2i.tap_classes(), tap_classes);
  ASSERT_EQ(dx.element_space, p.size(p.dx_len));
  // Class t splits into one class per dimension, first dimension slowest.
  multi_index<NDim> per_dim{};
  for (int d = 0; d < NDim; ++d) per_dim[d] = p.geo[d].stride;
  index_t t_expected = 0;
  for_each_index(per_dim, [&](const multi_index<NDim>& i) { ASSERT_EQ(vec(c2i.split(t_expected++)), vec(i)); });
  std::vector<int> writes(dx.element_space, 0);
  for (index_t t = 0; t < c2i.classes(); ++t) {
    const auto cv = c2i.dx_view(dx, t);
    const auto ci = c2i.split(t);
    index_t rows = 1;
    for (int d = 0; d < NDim; ++d) rows *= c2i.dim[d].rows(ci[d]);
    ASSERT_EQ(vec(cv.lengths()), (std::vector<index_t>{p.G, p.N * rows, p.C})) << "class " << t;
    for_each_index(cv.lengths(), [&](const multi_index<3>& i) {
      ASSERT_TRUE(cv.is_valid(i));
      const index_t off = cv.offset(i);
      ASSERT_TRUE(off >= 0 && off < dx.element_space) << "class " << t << " at " << str(i);
      ++writes[off];
    });
  }
  for (index_t o = 0; o < dx.element_space; ++o) ASSERT_EQ(writes[o], 1) << "dx offset " << o;
}

// (b) A plain GEMM per class, C[g, m, n] = sum_k A[g, m, k] * B[g, n, k] (A read as 0 where invalid),
// reproduces backward data computed by the scatter loop: every (out, tap) pair of the forward
// convolution adds dy * w to the dx element it reads.
template <int NDim>
void check_gemm(const conv<NDim>& p, std::mt19937& rng) {
  constexpr int R = 3 + NDim;
  const tg::col2im<NDim> c2i(p.geo);
  const auto dy = p.dy();
  const auto w = p.w();
  const auto dx = p.dx();
  std::vector<double> dyv(dy.element_space), wv(w.element_space), ref(dx.element_space, 0.0);
  for (auto& v : dyv) v = double(uniform(rng, -4, 4));
  for (auto& v : wv) v = double(uniform(rng, -4, 4));

  multi_index<4 + 2 * NDim> loop{};  // g, n, k, out..., c, taps...
  loop[0] = p.G, loop[1] = p.N, loop[2] = p.K, loop[3 + NDim] = p.C;
  for (int d = 0; d < NDim; ++d) loop[3 + d] = p.geo[d].out(), loop[4 + NDim + d] = p.geo[d].win;
  for_each_index(loop, [&](const multi_index<4 + 2 * NDim>& i) {
    multi_index<R> dyi{}, wi{}, dxi{};
    dyi[0] = wi[0] = dxi[0] = i[0];
    dyi[1] = dxi[1] = i[1];
    dyi[2] = wi[1] = i[2];
    wi[2] = dxi[2] = i[3 + NDim];
    for (int d = 0; d < NDim; ++d) {
      const index_t ho = i[3 + d], tap = i[4 + NDim + d], hi = ho * p.geo[d].stride + tap * p.geo[d].dilation - p.geo[d].pad_l;
      if (hi < 0 || hi >= p.geo[d].in) return;
      dyi[3 + d] = ho, wi[3 + d] = tap, dxi[3 + d] = hi;
    }
    ref[dot(dxi, p.dx_str)] += dyv[dot(dyi, p.dy_str)] * wv[dot(wi, p.w_str)];
  });

  std::vector<double> got(dx.element_space, std::numeric_limits<double>::quiet_NaN());
  for (index_t t = 0; t < c2i.classes(); ++t) {
    SCOPED_TRACE(::testing::Message() << "class " << t << " = " << str(c2i.split(t)));
    const auto a = c2i.dy_view(dy, t);
    const auto b = c2i.w_view(w, t);
    const auto cv = c2i.dx_view(dx, t);
    const auto ci = c2i.split(t);
    index_t taps = 1;
    for (int d = 0; d < NDim; ++d) taps *= c2i.dim[d].taps(ci[d]);
    const index_t M = cv.length(1), Nn = cv.length(2), Kk = a.length(2);
    ASSERT_EQ(vec(a.lengths()), (std::vector<index_t>{p.G, M, p.K * taps}));
    ASSERT_EQ(vec(b.lengths()), (std::vector<index_t>{p.G, p.C, p.K * taps}));
    ASSERT_EQ(Nn, p.C);
    for (index_t g = 0; g < p.G; ++g)
      for (index_t m = 0; m < M; ++m)
        for (index_t n = 0; n < Nn; ++n) {
          double acc = 0;
          for (index_t k = 0; k < Kk; ++k) {
            ASSERT_TRUE(b.is_valid({{g, n, k}}));
            const index_t bo = b.offset({{g, n, k}});
            ASSERT_TRUE(bo >= 0 && bo < w.element_space);
            if (!a.is_valid({{g, m, k}})) continue;
            const index_t ao = a.offset({{g, m, k}});
            ASSERT_TRUE(ao >= 0 && ao < dy.element_space) << "A offset out of range at " << g << "," << m << "," << k;
            acc += dyv[ao] * wv[bo];
          }
          got[cv.offset({{g, m, n}})] = acc;
        }
    if (::testing::Test::HasFatalFailure()) return;
  }
  for (index_t o = 0; o < dx.element_space; ++o) ASSERT_EQ(got[o], ref[o]) << "dx offset " << o;
}

// (c) col2im of im2col: scattering 1 through the im2col view of dx gives, per dx element, the number
// of (output, tap) pairs that read it (counted by brute force), which is also the number of valid
// A entries (taps) of its row in its class.
template <int NDim>
void check_overlap(const conv<NDim>& p) {
  constexpr int R = 3 + NDim;
  const tg::col2im<NDim> c2i(p.geo);
  const auto dx = p.dx();
  const auto dy = p.dy();
  // Brute force per spatial position.
  multi_index<NDim> in{};
  multi_index<2 * NDim> pairs{};
  for (int d = 0; d < NDim; ++d) in[d] = p.geo[d].in, pairs[d] = p.geo[d].out(), pairs[NDim + d] = p.geo[d].win;
  std::map<std::vector<index_t>, index_t> brute;
  for_each_index(pairs, [&](const multi_index<2 * NDim>& i) {
    std::vector<index_t> hi(NDim);
    for (int d = 0; d < NDim; ++d) {
      hi[d] = i[d] * p.geo[d].stride + i[NDim + d] * p.geo[d].dilation - p.geo[d].pad_l;
      if (hi[d] < 0 || hi[d] >= p.geo[d].in) return;
    }
    ++brute[hi];
  });

  std::vector<index_t> scatter(dx.element_space, 0), by_class(dx.element_space, 0);
  const auto cols = tg::im2col(dx, p.geo);
  for_each_index(cols.lengths(), [&](const multi_index<3>& i) {
    if (cols.is_valid(i)) ++scatter[cols.offset(i)];
  });
  for (index_t t = 0; t < c2i.classes(); ++t) {
    const auto a = c2i.dy_view(dy, t);
    const auto cv = c2i.dx_view(dx, t);
    for (index_t g = 0; g < p.G; ++g)
      for (index_t m = 0; m < cv.length(1); ++m) {
        index_t valid = 0;
        for (index_t k = 0; k < a.length(2); ++k) valid += a.is_valid({{g, m, k}});
        ASSERT_EQ(valid % p.K, 0);
        for (index_t n = 0; n < cv.length(2); ++n) by_class[cv.offset({{g, m, n}})] += valid / p.K;
      }
  }
  for_each_index(p.dx_len, [&](const multi_index<R>& i) {
    std::vector<index_t> hi(NDim);
    for (int d = 0; d < NDim; ++d) hi[d] = i[3 + d];
    const index_t want = brute.count(hi) ? brute.at(hi) : 0, off = dot(i, p.dx_str);
    ASSERT_EQ(scatter[off], want) << "dx " << str(i);
    ASSERT_EQ(by_class[off], want) << "dx " << str(i);
  });
}

template <int NDim>
void check_all(const conv<NDim>& p, std::mt19937& rng) {
  SCOPED_TRACE(p.describe_all());
  check_cover(p);
  if (::testing::Test::HasFatalFailure()) return;
  check_gemm(p, rng);
  if (::testing::Test::HasFatalFailure()) return;
  check_overlap(p);
  if (::testing::Test::HasFatalFailure()) return;
  // Coordinates moved over the three views of one class.
  const tg::col2im<NDim> c2i(p.geo);
  const index_t t = uniform(rng, 0, c2i.classes() - 1);
  SCOPED_TRACE(::testing::Message() << "coordinate walks, class " << t);
  random_walk(c2i.dy_view(p.dy(), t), rng, 100);
  random_walk(c2i.w_view(p.w(), t), rng, 100);
  random_walk(c2i.dx_view(p.dx(), t), rng, 100);
}

template <int NDim>
void random_convs(std::mt19937& rng, index_t max_in, int reps, index_t max_sd = 3) {
  for (int rep = 0; rep < reps; ++rep) {
    tg::window_geometry<NDim> g{};
    for (int d = 0; d < NDim; ++d) g[d] = random_dim(rng, max_in, 4, max_sd);
    conv<NDim> p(g, uniform(rng, 1, 2), uniform(rng, 1, 2), uniform(rng, 1, 3), uniform(rng, 1, 3), rng);
    check_all(p, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}
}  // namespace

TEST(ComposeCol2im, DimensionSplitCornerCases) {
  for (const auto& w : kCases) {
    check_dim(w);
    if (HasFatalFailure()) return;
  }
}

// Strides and dilations 1-6 (gcd up to 6), windows 1-4, asymmetric padding.
TEST(ComposeCol2im, DimensionSplitRandom) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    for (int rep = 0; rep < 300; ++rep) {
      check_dim(random_dim(rng, 20, 4, 6));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(ComposeCol2im, CornerCases1D) {
  std::mt19937 rng(13);
  for (const auto& w : kCases) {
    tg::window_geometry<1> g{};
    g[0] = w;
    check_all(conv<1>(g, 2, 2, 3, 2, rng), rng);
    if (HasFatalFailure()) return;
  }
}

// Pairs of the corner cases as (H, W) geometries.
TEST(ComposeCol2im, CornerCases2D) {
  std::mt19937 rng(14);
  const int n = int(std::size(kCases));
  for (int a = 0; a < n; ++a) {
    tg::window_geometry<2> g{};
    g[0] = kCases[a];
    g[1] = kCases[(a * 5 + 3) % n];
    check_all(conv<2>(g, 2, 1, 2, 2, rng), rng);
    if (HasFatalFailure()) return;
  }
}

TEST(ComposeCol2im, Random1D) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_convs<1>(rng, 16, 200);
    if (HasFatalFailure()) return;
  }
}

TEST(ComposeCol2im, Random2D) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_convs<2>(rng, 9, 80);
    if (HasFatalFailure()) return;
  }
}

TEST(ComposeCol2im, Random3D) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_convs<3>(rng, 6, 25);
    if (HasFatalFailure()) return;
  }
}

// Strides and dilations up to 6 in both dimensions: more classes, gcd 2, 3 and 6, many tapless classes.
TEST(ComposeCol2im, Random2DWideStrides) {
  for (auto seed : seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    random_convs<2>(rng, 14, 30, 6);
    if (HasFatalFailure()) return;
  }
}

// The worked examples of docs/transforms.md: stride 2, dilation 1 (two tap classes: taps {0, 2} and
// {1}) and stride 2, dilation 2 (one tap class with every tap, one tapless class).
TEST(ComposeCol2im, WorkedExamples) {
  const tg::col2im_dim a(tg::window_dim{8, 3, 2, 1, 1, 1});
  EXPECT_EQ(a.classes(), 2);
  EXPECT_EQ(a.tap_classes(), 2);
  EXPECT_EQ(a.residue(0), 0);
  EXPECT_EQ(a.residue(1), 1);
  EXPECT_EQ(a.taps(0), 2);  // taps 0, 2
  EXPECT_EQ(a.taps(1), 1);  // tap 1
  EXPECT_EQ(a.rows(0), 4);  // hi = 1, 3, 5, 7
  EXPECT_EQ(a.in_index(0, 0), 1);
  EXPECT_EQ(a.rows(1), 4);  // hi = 0, 2, 4, 6
  EXPECT_EQ(a.in_index(1, 0), 0);
  EXPECT_EQ(a.out_index(0, 1, 0), 2);  // hi 3: ho 2 with tap 0 ...
  EXPECT_EQ(a.out_index(0, 1, 1), 1);  // ... and ho 1 with tap 2
  EXPECT_EQ(a.out_index(1, 1, 0), 1);  // hi 2: ho 1 with tap 1

  const tg::col2im_dim b(tg::window_dim{8, 3, 2, 2, 2, 2});
  EXPECT_EQ(b.classes(), 2);
  EXPECT_EQ(b.tap_classes(), 1);
  EXPECT_EQ(b.taps(0), 3);  // taps 0, 1, 2
  EXPECT_EQ(b.taps(1), 0);  // tapless
  EXPECT_EQ(b.residue(1), 1);
  EXPECT_EQ(b.rows(0), 4);  // hi = 0, 2, 4, 6
  EXPECT_EQ(b.rows(1), 4);  // hi = 1, 3, 5, 7: receive nothing
  EXPECT_EQ(b.in_index(1, 0), 1);
  EXPECT_EQ(b.out_index(0, 2, 0), 3);  // hi 4: ho 3 tap 0, ho 2 tap 1, ho 1 tap 2
  EXPECT_EQ(b.out_index(0, 2, 2), 1);
}
