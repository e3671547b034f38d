// lowering/gpu/order.hpp: memory_order of every view the GPU launches probe, including empty ones.
#include "lowering/gpu/order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "ops/convnd_bwd_data.hpp"

namespace {
// Regression (PyTorch front end, CUDA pytest, TG_SEED=1448035677: SIGFPE in the cp.async launch): a 3-d
// backward data whose first col2im class has no rows (stride 3 along a 2-long dimension) made
// memory_order divide by the class's zero length while probing C's offsets at the origin.
TEST(MemoryOrder, EveryCol2imClassIncludingEmptyOnes) {
  tg::ops::conv_problem p;
  p.ndim = 3, p.G = 1, p.N = 2, p.K = 2, p.C = 2, p.layout = tg::ops::conv_layout::nhwgc;
  const tg::index_t in[3] = {7, 2, 2}, f[3] = {3, 2, 2}, s[3] = {3, 1, 3}, pad[3] = {0, 2, 1};
  for (int d = 0; d < 3; ++d) p.in[d] = in[d], p.filter[d] = f[d], p.stride[d] = s[d], p.dilation[d] = 2, p.pad_l[d] = p.pad_r[d] = pad[d];
  const auto yd = p.y_desc<3>(), wd = p.w_desc<3>(), xd = p.x_desc<3>();
  std::vector<float> dy(static_cast<std::size_t>(yd.element_space)), w(static_cast<std::size_t>(wd.element_space)),
      dx(static_cast<std::size_t>(xd.element_space));
  const auto batch = tg::ops::make_col2im_batch(p.geometry<3>(), dy.data(), w.data(), dx.data(), yd, wd, xd);
  int empty = 0;
  for (tg::index_t t = 0; t < batch.count(); ++t) {
    const auto v = batch.views(t);
    empty += v.m() == 0;
    const auto order = tg::memory_order(v.c.desc);
    constexpr int R = std::remove_cv_t<std::remove_reference_t<decltype(v.c.desc)>>::rank;
    std::vector<int> seen;
    for (int i = 0; i < R; ++i) seen.push_back(order[i]);
    std::sort(seen.begin(), seen.end());
    for (int i = 0; i < static_cast<int>(seen.size()); ++i) EXPECT_EQ(seen[static_cast<std::size_t>(i)], i) << "class " << t << ": not a permutation";
  }
  EXPECT_GT(empty, 0) << "no empty class: the problem no longer tests the regression";
}
}  // namespace
