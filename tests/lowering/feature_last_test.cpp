// lowering/feature_last.hpp: the layout arithmetic of running a convolution's GEMM on channels-last
// copies of its channels-first tensors, over whole random domains, and the whole rewrite (copy in,
// the op's own batch rebuilt over the copies, copy back) run on the host against the batch as the op
// hands it.
#include "lowering/feature_last.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
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

// Every property the GEMM on the copy relies on, by brute force over the tensor's whole index space.
template <class Desc>
void check_moved(const Desc& d, int feature_dim) {
  constexpr int R = Desc::rank;
  const Desc m = tg::feature_last(d, feature_dim);
  // Same shape, packed: the offsets are a permutation of [0, size).
  std::vector<int> hits(static_cast<std::size_t>(d.size()), 0);
  for_each_index(m, [&](const tg::multi_index<R>& i) {
    const index_t o = m.offset(i);
    ASSERT_TRUE(o >= 0 && o < d.size()) << o;
    ++hits[static_cast<std::size_t>(o)];
  });
  EXPECT_TRUE(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; })) << "not a packed bijection";
  EXPECT_EQ(m.element_space, d.size());
  for (int k = 0; k < R; ++k) EXPECT_EQ(m.length(k), d.length(k));
  // The feature dimension contiguous; the others in their old memory order (a moved NCHW is NHWC).
  EXPECT_EQ(tg::stride_of(m, feature_dim), 1);
  EXPECT_FALSE(tg::feature_is_strided(m, feature_dim));
  const auto was = tg::memory_order(d), now = tg::memory_order(m);
  std::vector<int> a, b;
  for (int k = 0; k < R; ++k) {
    if (was[k] != feature_dim && d.length(was[k]) > 1) a.push_back(was[k]);
    if (now[k] != feature_dim && d.length(now[k]) > 1) b.push_back(now[k]);
  }
  EXPECT_EQ(a, b);
  // The relayout pipeline's rank-6 form addresses every element where the descriptor does.
  const auto six = tg::as_rank6(d);
  for_each_index(d, [&](const tg::multi_index<R>& i) {
    tg::multi_index<6> j{};
    for (int k = 0; k < R; ++k) j[k] = i[k];
    ASSERT_EQ(six.offset(j), d.offset(i));
  });
}

template <int ND>
tg::ops::conv_problem random_problem(std::mt19937& rng, conv_layout layout) {
  auto u = [&](index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); };
  tg::ops::conv_problem p;
  p.ndim = ND;
  p.layout = layout;
  p.G = u(1, 3);
  p.N = u(1, 3);
  p.K = p.G * u(1, 4);
  p.C = p.G * u(1, 5);
  if (u(0, 2) == 0) {  // depthwise (one channel per group; a channel multiplier of 1 or 2): the groups move
    p.G = p.C = u(2, 6);
    p.K = p.G * u(1, 2);
  }
  for (int d = 0; d < ND; ++d) {
    p.filter[d] = u(1, 3);
    p.stride[d] = u(1, 2);
    p.dilation[d] = u(1, 2);
    p.pad_l[d] = u(0, 1);
    p.pad_r[d] = u(0, 2);
    p.in[d] = (p.filter[d] - 1) * p.dilation[d] + u(1, 6);
  }
  return p;
}

template <int ND>
void check_layouts(std::mt19937& rng) {
  for (conv_layout layout : {conv_layout::nchw, conv_layout::nhwgc, conv_layout::gnhwc}) {
    for (int r = 0; r < 20; ++r) {
      const auto p = random_problem<ND>(rng, layout);
      SCOPED_TRACE(::testing::Message() << ND << "-d layout " << static_cast<int>(layout) << " G " << p.G << " N " << p.N << " K " << p.K
                                        << " C " << p.C);
      for (const auto& d : {p.template x_desc<ND>(), p.template y_desc<ND>(), p.template w_desc<ND>()}) {
        check_moved(d, 2);
        // Only channels-first tensors with more than one channel per group and more than one position
        // (a 1x1 filter's w is channels-last already) are worth a copy.
        index_t positions = 1;
        for (int k = 3; k < 3 + ND; ++k) positions *= d.length(k);
        const bool strided = layout == conv_layout::nchw && d.length(2) > 1 && positions > 1;
        EXPECT_EQ(tg::feature_is_strided(d, 2), strided);
      }
      if (layout == conv_layout::nchw) {  // moved, the tensors are exactly the nhwgc ones (groups next to the channels)
        auto q = p;
        q.layout = conv_layout::nhwgc;
        std::vector<float> none(1);
        for (auto [d, e] : {std::pair{p.template x_desc<ND>(), q.template x_desc<ND>()}, {p.template y_desc<ND>(), q.template y_desc<ND>()}}) {
          const auto m = tg::feature_last_of(tg::read_tensor(none.data(), d, 2, 0));
          for (int k = 0; k < 3 + ND; ++k)
            if (d.length(k) > 1) EXPECT_EQ(tg::stride_of(m, k), tg::stride_of(e, k)) << "dimension " << k;
        }
        const auto m = tg::feature_last_of(tg::read_weight(none.data(), p.template w_desc<ND>(), 2, 0, 1));
        for (int k = 0; k < 3 + ND; ++k)
          if (m.length(k) > 1) EXPECT_EQ(tg::stride_of(m, k), tg::stride_of(q.template w_desc<ND>(), k)) << "w dimension " << k;
      }
    }
  }
}

// A backend whose gemm (found by argument lookup from the op programs) runs the batch the op hands it
// twice on the host: as it is, and rewritten onto feature-last copies the way the GPU lowering does
// (copy the strided tensors in, rebuild the batch over the copies, run it, copy the written one back).
struct rewrite_backend {
  int moved = 0;
  bool same = true;
};
template <class Batch>
void gemm(rewrite_backend& be, const Batch& batch, tg::gemm_epilogue ep, tg::gemm_policy pol) {
  constexpr int N = Batch::tensor_count;
  using T = std::remove_pointer_t<decltype(Batch::tensor::data)>;
  tg::host_backend host;
  // The written tensor as a poisoned copy each way, so that an unwritten element differs.
  int out = -1;
  for (int i = 0; i < N; ++i) out = batch.tensors[i].written ? i : out;
  ASSERT_GE(out, 0);
  const auto& o = batch.tensors[out];
  const std::size_t n_out = static_cast<std::size_t>(o.desc.size());
  std::vector<T> direct(n_out, tg::from_float<T>(-77.0f)), via(n_out, tg::from_float<T>(-77.0f));
  auto plain = batch.tensors;
  plain[out].data = direct.data();
  tg::gemm(host, batch.with_tensors(plain), ep, pol);

  auto moved = batch.tensors;
  moved[out].data = via.data();
  std::vector<std::vector<T>> copies(N);
  for (int i = 0; i < N; ++i) {
    const auto& t = batch.tensors[i];
    if (!tg::moves_to_feature_last(t)) continue;
    ++be.moved;
    copies[i].assign(static_cast<std::size_t>(t.desc.size()), tg::from_float<T>(-55.0f));
    moved[i].desc = tg::feature_last_of(t);
    moved[i].data = copies[i].data();
    if (!t.written) tg::relayout(host, tg::make_view(moved[i].data, tg::as_rank6(moved[i].desc)), tg::make_view(t.in(), tg::as_rank6(t.desc)));
  }
  tg::gemm(host, batch.with_tensors(moved), ep, pol);
  if (!copies[out].empty())
    tg::relayout(host, tg::make_view(via.data(), tg::as_rank6(o.desc)), tg::make_view(moved[out].in(), tg::as_rank6(moved[out].desc)));
  be.same = be.same && std::memcmp(direct.data(), via.data(), n_out * sizeof(T)) == 0;
}

template <int ND>
void check_rewrite(std::mt19937& rng) {
  for (conv_layout layout : {conv_layout::nchw, conv_layout::nhwgc}) {
    for (int r = 0; r < 6; ++r) {
      const auto p = random_problem<ND>(rng, layout);
      SCOPED_TRACE(::testing::Message() << ND << "-d layout " << static_cast<int>(layout) << " G " << p.G << " K " << p.K << " C " << p.C);
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      auto fill = [&](index_t n) {
        std::vector<float> v(static_cast<std::size_t>(n));
        for (auto& e : v) e = dist(rng);
        return v;
      };
      const auto x = fill(p.template x_desc<ND>().size()), w = fill(p.template w_desc<ND>().size()), y = fill(p.template y_desc<ND>().size());
      std::vector<float> unused(1);
      rewrite_backend be;
      tg::ops::conv_fwd<ND>(be, p, x.data(), w.data(), unused.data());
      tg::ops::convnd_bwd_data<ND>(be, p, y.data(), w.data(), unused.data());
      tg::ops::grouped_conv_bwd_weight<ND>(be, p, x.data(), y.data(), unused.data());
      EXPECT_TRUE(be.same) << "the GEMM on feature-last copies differs from the GEMM on the tensors";
      if (layout == conv_layout::nhwgc) EXPECT_EQ(be.moved, 0);
    }
  }
}
}  // namespace

TEST(FeatureLast, CopiesArePackedFeatureLastAndKeepTheOtherDimensionsOrder) {
  std::mt19937 rng(41);
  check_layouts<1>(rng);
  check_layouts<2>(rng);
  check_layouts<3>(rng);
}

// A channels-first depthwise tensor (one channel per group) moves its groups innermost: the copy is the
// channels-last (nhwgc) tensor, whose groups are one element apart (the depthwise pipeline's layout).
TEST(FeatureLast, DepthwiseCopiesPutTheGroupsInnermost) {
  tg::ops::conv_problem p;
  p.ndim = 2, p.G = p.C = p.K = 6, p.N = 2, p.filter[0] = p.filter[1] = 3, p.in[0] = 7, p.in[1] = 5, p.layout = conv_layout::nchw;
  auto q = p;
  q.layout = conv_layout::nhwgc;
  std::vector<float> none(1);
  for (auto [d, e] : {std::pair{p.x_desc<2>(), q.x_desc<2>()}, {p.y_desc<2>(), q.y_desc<2>()}}) {
    const auto t = tg::read_tensor(none.data(), d, 2, 0);
    EXPECT_EQ(t.contiguous_dim(), 0);
    EXPECT_FALSE(tg::feature_is_strided(d, 2));  // one channel per group: the features alone would not move
    EXPECT_TRUE(tg::feature_is_strided(d, t.contiguous_dim()));
    check_moved(d, 0);
    const auto m = tg::feature_last(d, 0);
    for (int k = 0; k < 5; ++k)
      if (d.length(k) > 1) EXPECT_EQ(tg::stride_of(m, k), tg::stride_of(e, k)) << "dimension " << k;
  }
  // With several channels per group the features move, as before.
  p.C = 12;
  const auto t = tg::read_tensor(none.data(), p.x_desc<2>(), 2, 0);
  EXPECT_EQ(t.contiguous_dim(), 2);
}

TEST(FeatureLast, TheOpsBatchesRunOnCopiesGiveTheSameBits) {
  std::mt19937 rng(43);
  check_rewrite<1>(rng);
  check_rewrite<2>(rng);
  check_rewrite<3>(rng);
}
