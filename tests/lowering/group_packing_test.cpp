// lowering/group_packing.hpp: which batches pack their narrow groups and how many at a time; the
// weight's diagonal blocks against a brute-force index map; and the whole rewrite (the weight packed
// block-diagonal, the activations re-viewed, the written weight's diagonal copied back) run on the host
// against the batch as the op hands it, bit for bit.
#include "lowering/group_packing.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "lowering/host.hpp"
#include "ops/conv_fwd.hpp"
#include "ops/convnd_bwd_data.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"

using tg::index_t;
using tg::ops::conv_layout;

namespace {
template <class Desc, class F>
void for_each_index(const Desc& d, F f) {
  constexpr int R = Desc::rank;
  tg::multi_index<R> i{};
  for (index_t n = 0; n < d.size(); ++n) {
    f(i);
    for (int k = R - 1; k >= 0 && ++i[k] == d.length(k); --k) i[k] = 0;
  }
}

tg::ops::conv_problem problem(int nd, index_t G, index_t C, index_t K, conv_layout layout) {
  tg::ops::conv_problem p;
  p.ndim = nd, p.G = G, p.C = C, p.K = K, p.N = 2, p.layout = layout;
  for (int d = 0; d < nd; ++d) p.filter[d] = 3, p.in[d] = 6, p.pad_l[d] = p.pad_r[d] = 1;
  return p;
}

// The pack the backward-data batch of p gets (its tensors dy, w, dx, as convnd_bwd_data builds them).
int pack_of(const tg::ops::conv_problem& p, index_t width = 64) {
  std::vector<float> none(1);
  const auto b = tg::ops::make_col2im_batch(p.geometry<2>(), none.data(), none.data(), none.data(), p.y_desc<2>(), p.w_desc<2>(), p.x_desc<2>());
  return tg::choose_group_pack(b.tensors, width).groups;
}
}  // namespace

// Each kind of grouped problem takes the intended packing (the dispatch's choice, per problem).
TEST(GroupPacking, EachKindOfProblemPacksAsIntended) {
  EXPECT_EQ(pack_of(problem(2, 32, 128, 128, conv_layout::nhwgc)), 16);   // ResNeXt 4 channels per group: 64 wide
  EXPECT_EQ(pack_of(problem(2, 32, 256, 256, conv_layout::nhwgc)), 8);    // 8 per group
  EXPECT_EQ(pack_of(problem(2, 32, 512, 512, conv_layout::nhwgc)), 4);    // 16 per group
  EXPECT_EQ(pack_of(problem(2, 32, 1024, 1024, conv_layout::nhwgc)), 2);  // 32 per group
  EXPECT_EQ(pack_of(problem(2, 32, 128, 256, conv_layout::nhwgc)), 8);    // the wider side (8 output channels) decides
  EXPECT_EQ(pack_of(problem(2, 6, 72, 72, conv_layout::nhwgc)), 3);       // 12 per group: a divisor of G (6 x 12 > 64)
  EXPECT_EQ(pack_of(problem(2, 32, 128, 128, conv_layout::nhwgc), 128), 32);
  EXPECT_EQ(pack_of(problem(2, 2, 128, 128, conv_layout::nhwgc)), 1);     // 64 per group: wide already
  EXPECT_EQ(pack_of(problem(2, 1, 8, 8, conv_layout::nhwgc)), 1);         // one group
  EXPECT_EQ(pack_of(problem(2, 16, 16, 16, conv_layout::nhwgc)), 1);      // depthwise: its own pipelines
  EXPECT_EQ(pack_of(problem(2, 16, 16, 32, conv_layout::nhwgc)), 1);      // depthwise, channel multiplier 2
  EXPECT_EQ(pack_of(problem(2, 7, 35, 35, conv_layout::nhwgc)), 7);       // G prime: all 7 (35 wide)
  EXPECT_EQ(pack_of(problem(2, 13, 13 * 5, 13 * 5, conv_layout::nhwgc)), 1);  // 13 x 5 > 64 and 13 is prime
  EXPECT_EQ(pack_of(problem(2, 32, 128, 128, conv_layout::gnhwc)), 1);    // groups outermost: not adjacent along the channels
  EXPECT_EQ(pack_of(problem(2, 32, 128, 128, conv_layout::nchw)), 16);    // channels-first: its groups are adjacent along C too
  EXPECT_EQ(pack_of(problem(2, 32, 128, 128, conv_layout::nhwgc), 0), 1);  // TG_GROUP_PACKING=0
}

// Every element of w lands once in the packed copy, at its group's diagonal block, and nothing else
// there is addressed: the rank-6 views against the descriptors' own index maps.
TEST(GroupPacking, DiagonalBlocksAgainstABruteForceMap) {
  std::mt19937 rng(7);
  auto u = [&](index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); };
  for (int r = 0; r < 60; ++r) {
    const int nd = static_cast<int>(u(1, 3));
    const index_t p = u(2, 4), G = p * u(1, 3);
    auto pr = problem(nd, G, G * u(1, 5), G * u(1, 5), r % 2 ? conv_layout::nchw : conv_layout::nhwgc);
    for (int d = 0; d < nd; ++d) pr.filter[d] = u(1, 3);
    SCOPED_TRACE(::testing::Message() << nd << "-d G " << G << " p " << p << " C " << pr.C << " K " << pr.K << " layout " << static_cast<int>(pr.layout));
    auto check = [&](const auto& w) {
      constexpr int R = std::decay_t<decltype(w)>::rank;
      const auto packed = tg::packed_weight(w, 0, 1, 2, static_cast<int>(p));
      EXPECT_EQ(packed.element_space, w.size() * p);
      const index_t rows = w.length(1), feats = w.length(2);
      std::map<index_t, index_t> where;  // w's offset -> its place in the packed copy
      for_each_index(w, [&](const tg::multi_index<R>& i) {
        tg::multi_index<R> j = i;
        j[0] = i[0] / p, j[1] = (i[0] % p) * rows + i[1], j[2] = (i[0] % p) * feats + i[2];
        where[w.offset(i)] = packed.offset(j);
      });
      const tg::weight_diagonal diag = tg::diagonal_of(w, 0, 1, 2, static_cast<int>(p));
      ASSERT_TRUE(diag.ok);
      const auto on_w = tg::weight_view_desc(diag), on_packed = tg::diagonal_view_desc(diag);
      ASSERT_EQ(on_w.size(), w.size());
      std::map<index_t, int> seen;
      for_each_index(on_w, [&](const tg::multi_index<6>& i) {
        const index_t o = on_w.offset(i);
        ASSERT_TRUE(where.count(o)) << o;
        EXPECT_EQ(on_packed.offset(i), where[o]);
        ++seen[o];
      });
      EXPECT_EQ(seen.size(), where.size());
    };
    if (nd == 1) check(pr.w_desc<1>());
    if (nd == 2) check(pr.w_desc<2>());
    if (nd == 3) check(pr.w_desc<3>());
  }
}

namespace {
// A backend whose gemm (found by argument lookup from the op programs) runs the batch the op hands it
// twice on the host: as it is, and with its groups packed the way the GPU lowering packs them (the
// weight copied onto a poisoned-then-zeroed block-diagonal copy, the batch rebuilt, the written weight's
// diagonal copied back), each into its own poisoned output.
struct packing_backend {
  int packed = 0;
  bool same = true;
};
template <class Batch>
void gemm(packing_backend& be, const Batch& batch, tg::gemm_epilogue ep, tg::gemm_policy pol) {
  constexpr int N = Batch::tensor_count;
  using T = std::remove_pointer_t<decltype(Batch::tensor::data)>;
  tg::host_backend host;
  int out = -1, wi = -1;
  for (int i = 0; i < N; ++i) out = batch.tensors[i].written ? i : out, wi = batch.tensors[i].is_weight() ? i : wi;
  ASSERT_GE(out, 0);
  ASSERT_GE(wi, 0);
  const auto& o = batch.tensors[out];
  const std::size_t n_out = static_cast<std::size_t>(o.desc.element_space);
  std::vector<T> direct(n_out, tg::from_float<T>(-77.0f)), via(n_out, tg::from_float<T>(-77.0f));
  auto plain = batch.tensors;
  plain[out].data = direct.data();
  tg::gemm(host, batch.with_tensors(plain), ep, pol);

  const tg::group_pack pk = tg::choose_group_pack(batch.tensors, 64);
  if (pk.groups < 2) return;
  ++be.packed;
  auto moved = tg::packed_tensors(batch.tensors, pk.groups);
  if (out != wi) moved[out].data = via.data();
  const auto& w = batch.tensors[wi];
  // Zeroed where the GEMM reads it; poisoned where it writes it, so that an unwritten block fails.
  std::vector<T> packed_w(static_cast<std::size_t>(moved[wi].desc.element_space), tg::from_float<T>(w.written ? -55.0f : 0.0f));
  moved[wi].data = packed_w.data();
  const tg::weight_diagonal diag = tg::diagonal_of(w.desc, w.group_dim, w.rows_dim, w.feature_dim, pk.groups);
  ASSERT_TRUE(diag.ok);
  if (!w.written) tg::relayout(host, tg::make_view(packed_w.data(), tg::diagonal_view_desc(diag)), tg::make_view(w.in(), tg::weight_view_desc(diag)));
  tg::gemm(host, batch.with_tensors(moved), ep, pol);
  if (w.written)
    tg::relayout(host, tg::make_view(via.data(), tg::weight_view_desc(diag)), tg::make_view(static_cast<const T*>(packed_w.data()), tg::diagonal_view_desc(diag)));
  be.same = be.same && std::memcmp(direct.data(), via.data(), n_out * sizeof(T)) == 0;
}

template <int ND>
void check_rewrite(std::mt19937& rng) {
  auto u = [&](index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); };
  for (int r = 0; r < (ND == 3 ? 4 : 8); ++r) {  // 3-d: 4 problems (8 took the sanitizer lane most of a minute)
    tg::ops::conv_problem p;
    p.ndim = ND, p.layout = conv_layout::nhwgc;
    p.G = u(2, 8), p.N = u(1, 2), p.C = p.G * u(2, 6), p.K = p.G * u(2, 6);
    for (int d = 0; d < ND; ++d) {
      p.filter[d] = u(1, 3), p.stride[d] = u(1, 2), p.dilation[d] = u(1, 2), p.pad_l[d] = u(0, 1), p.pad_r[d] = u(0, 2);
      // 3-d: at most 3 input positions an axis past the filter's reach (the host GEMM runs each batch
      // twice, packed G times wider; what the packing does depends on the groups, not the sizes).
      p.in[d] = (p.filter[d] - 1) * p.dilation[d] + u(1, ND == 3 ? 3 : 5);
    }
    SCOPED_TRACE(::testing::Message() << ND << "-d G " << p.G << " K " << p.K << " C " << p.C);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    auto fill = [&](index_t n) {
      std::vector<float> v(static_cast<std::size_t>(n));
      for (auto& e : v) e = dist(rng);
      return v;
    };
    const auto x = fill(p.template x_desc<ND>().size()), w = fill(p.template w_desc<ND>().size()), y = fill(p.template y_desc<ND>().size());
    std::vector<float> unused(1);
    packing_backend be;
    tg::ops::conv_fwd<ND>(be, p, x.data(), w.data(), unused.data());
    tg::ops::convnd_bwd_data<ND>(be, p, y.data(), w.data(), unused.data());
    tg::ops::grouped_conv_bwd_weight<ND>(be, p, x.data(), y.data(), unused.data());
    EXPECT_EQ(be.packed, 3);
    EXPECT_TRUE(be.same) << "the GEMM on packed groups differs from the GEMM on the groups";
  }
}
}  // namespace

TEST(GroupPacking, TheOpsBatchesRunPackedGiveTheSameBits) {
  std::mt19937 rng(47);
  check_rewrite<1>(rng);
  check_rewrite<2>(rng);
  check_rewrite<3>(rng);
}
