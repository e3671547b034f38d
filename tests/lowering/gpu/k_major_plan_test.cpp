// lowering/gpu/tma_gemm/k_major_plan.hpp: which tensors the tf32 tiles need copied, for each kind of
// convolution as its op program builds the batch: backward data's w (channels-last and groups-first,
// every stride) moves, with its output channels innermost, and then every operand is K-major; the
// forward (K-major already) and backward weight (its weight is written; x and dy are no weights) move
// nothing.
#include "lowering/gpu/tma_gemm/k_major_plan.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "ops/conv_fwd.hpp"
#include "ops/convnd_bwd_data.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"

namespace {
namespace tm = tg::tma_gemm;
using tg::index_t;

tg::ops::conv_problem problem(tg::ops::conv_layout layout, index_t stride, int nd = 2) {
  tg::ops::conv_problem p;
  p.ndim = nd, p.layout = layout, p.G = nd == 3 ? 1 : 2, p.N = 2, p.K = 128, p.C = 192;  // (3-d groups need six TMA axes: no boxes)
  for (int d = 0; d < nd; ++d) p.in[d] = 9 + d, p.filter[d] = 3, p.stride[d] = stride, p.pad_l[d] = p.pad_r[d] = 1;
  return p;
}

// A backend that keeps the batch an op program hands it, asked which tensors would move.
struct probe_backend {
  int moved = -1;  // tensors moved, -1: not asked
};
template <class Batch>
void gemm(probe_backend& be, const Batch& batch, tg::gemm_epilogue, tg::gemm_policy) {
  const auto c = tm::k_major_copies_of(batch);
  be.moved = 0;
  for (int i = 0; i < c.N; ++i) be.moved += c.move[i];
  EXPECT_FALSE(c.any);
}

template <int ND>
void check_backward_data(tg::ops::conv_layout layout, index_t stride) {
  SCOPED_TRACE(::testing::Message() << ND << "-d, stride " << stride << ", layout " << static_cast<int>(layout));
  const auto p = problem(layout, stride, ND);
  std::vector<float> y(1), w(1), x(1);
  const auto batch = tg::ops::make_col2im_batch(p.geometry<ND>(), y.data(), w.data(), x.data(), p.y_desc<ND>(), p.w_desc<ND>(), p.x_desc<ND>());
  EXPECT_EQ(tm::batch_orientation(batch), 1) << "backward data reads w MN-major";
  const auto c = tm::k_major_copies_of(batch);
  ASSERT_TRUE(c.any);
  EXPECT_FALSE(c.move[0]);
  EXPECT_TRUE(c.move[1]);
  EXPECT_FALSE(c.move[2]);
  EXPECT_EQ(tg::stride_of(c.tensors[1].desc, batch.tensors[1].rows_dim), 1) << "w's output channels innermost";
  for (int d = 0; d < decltype(c.tensors[1].desc)::rank; ++d) EXPECT_EQ(c.tensors[1].desc.length(d), batch.tensors[1].desc.length(d));
  EXPECT_EQ(tm::batch_orientation(batch.with_tensors(c.tensors)), 0) << "on the copy both operands are K-major";
}

TEST(KMajorPlan, BackwardDataMovesTheWeight) {
  using L = tg::ops::conv_layout;
  for (index_t s : {1, 2}) {
    check_backward_data<1>(L::nhwgc, s);
    check_backward_data<2>(L::nhwgc, s);
    check_backward_data<2>(L::gnhwc, s);
    check_backward_data<3>(L::nhwgc, s);
  }
}

TEST(KMajorPlan, ForwardAndBackwardWeightMoveNothing) {
  const auto p = problem(tg::ops::conv_layout::nhwgc, 1);
  std::vector<float> x(1), w(1), y(1);
  probe_backend be;
  tg::ops::conv_fwd<2>(be, p, x.data(), w.data(), y.data());
  EXPECT_EQ(be.moved, 0) << "the forward reads both operands K-major";
  be.moved = -1;
  tg::ops::grouped_conv_bwd_weight<2>(be, p, x.data(), y.data(), w.data());
  EXPECT_EQ(be.moved, 0) << "backward weight writes its weight and reads no other";
}
}  // namespace
