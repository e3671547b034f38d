// A memory-bound op on a tensor of more than 2^31 elements: avgpool3d_bwd with 2x2x2 windows at
// stride 2, where dx = dy(parent window) / 8 exactly in fp16, so every element can be checked.
#include <gtest/gtest.h>
#include <vector>
#include "instances/gpu_ops.hpp"

namespace {
TEST(GpuLargeTensor, Avgpool3dBwdBeyond2Pow31Elements) {
  if (!tg::gpu_backend::available()) GTEST_SKIP() << "no GPU on this machine: GPU tests skipped";
  tg::ops::avgpool3d_problem p;
  p.N = 16; p.C = 16; p.layout = tg::ops::channel_order::first;
  const tg::index_t in[3] = {64, 512, 260};
  for (int d = 0; d < 3; ++d) { p.in[d] = in[d]; p.window[d] = 2; p.stride[d] = 2; p.dilation[d] = 1; }
  const tg::index_t nx = p.N * p.C * in[0] * in[1] * in[2], ny = p.N * p.C * 32 * 256 * 130;
  ASSERT_GT(nx, tg::index_t{1} << 31);
  std::vector<tg::half_t> dy(ny), dx(nx);
  for (tg::index_t i = 0; i < ny; ++i) dy[i] = tg::from_float<tg::half_t>(float(int(i * 7 % 13) - 6));
  tg::gpu_backend be;
  auto d_dy = be.upload(dy);
  tg::arch::device_buffer<tg::half_t> d_dx(nx);
  d_dx.fill_bytes(0xff);  // poison
  tg::ops::avgpool3d_bwd(be, p, d_dy.data(), d_dx.data());
  be.download(d_dx, dx);
  tg::index_t bad = 0, first = -1;
  for (tg::index_t nc = 0, i = 0; nc < p.N * p.C; ++nc)
    for (tg::index_t a = 0; a < in[0]; ++a)
      for (tg::index_t b = 0; b < in[1]; ++b)
        for (tg::index_t c = 0; c < in[2]; ++c, ++i) {
          const float want = tg::to_float(dy[((nc * 32 + a / 2) * 256 + b / 2) * 130 + c / 2]) / 8.0f;
          if (tg::to_float(dx[i]) != want && bad++ == 0) first = i;
        }
  EXPECT_EQ(bad, 0) << "first wrong element " << first;
}
}  // namespace
