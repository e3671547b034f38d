// A GPU backend whose scratch is lent (gpu_backend::lend_scratch_from, what the PyTorch extension does
// with its caching allocator): every scratch request of a call is a loan, all loans are returned when the
// call ends, the backend's own arenas stay empty, and the op's result is the host reference's.
#include <gtest/gtest.h>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <vector>
#include "instances/gpu_ops.hpp"
#include "lowering/gpu/backend.hpp"
#include "ops/reference/conv.hpp"

namespace {
// Lends device memory it allocates itself and counts what is out.
struct counting_lender final : tg::scratch_lender {
  std::map<void*, tg::arch::device_buffer<unsigned char>> out;
  std::size_t lent = 0, lent_bytes = 0, returned = 0;
  void* lend(std::size_t bytes, tg::arch::stream_handle) override {
    tg::arch::device_buffer<unsigned char> b(bytes);
    void* p = b.data();
    out.emplace(p, std::move(b));
    ++lent, lent_bytes += bytes;
    return p;
  }
  void take_back(void* p) override {
    ASSERT_EQ(out.erase(p), 1u) << "a pointer that was not lent came back";
    ++returned;
  }
};

TEST(GpuScratchLender, ChannelsFirstBackwardDataTakesAllScratchFromTheLender) {
  if (!tg::gpu_backend::available()) GTEST_SKIP() << "no GPU on this machine: GPU tests skipped";
  // NCHW fp32: the GPU lowering runs it on channels-last copies (scratch) with a cp.async GEMM (scratch).
  tg::ops::conv_problem p;
  p.ndim = 2, p.G = 1, p.N = 2, p.K = 24, p.C = 40, p.layout = tg::ops::conv_layout::nchw;
  p.filter[0] = 3, p.filter[1] = 3, p.in[0] = 9, p.in[1] = 11, p.stride[0] = 2, p.pad_l[0] = p.pad_l[1] = p.pad_r[1] = 1;
  tg::ref::conv_params r{2, p.G, p.N, p.K, p.C};
  for (int d = 0; d < 2; ++d)
    r.filter[d] = p.filter[d], r.in[d] = p.in[d], r.stride[d] = p.stride[d], r.pad_l[d] = p.pad_l[d], r.pad_r[d] = p.pad_r[d];
  // Small integers: every sum is exact in fp32, so the GPU result must equal the reference's bit for bit.
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> v(-3, 3);
  auto fill = [&](std::int64_t n) { std::vector<float> a(static_cast<std::size_t>(n)); for (float& e : a) e = static_cast<float>(v(rng)); return a; };
  const auto dy = fill(r.y_size()), w = fill(r.w_size());
  tg::arch::device_buffer<float> d_dy(dy), d_w(w);
  tg::arch::device_buffer<float> d_dx(std::vector<float>(static_cast<std::size_t>(r.x_size()), std::numeric_limits<float>::quiet_NaN()));

  auto lender = std::make_shared<counting_lender>();
  tg::gpu_backend be;
  be.lend_scratch_from(lender);
  {
    tg::scratch_call call(be);
    tg::ops::convnd_bwd_data(be, p, d_dy.data(), d_w.data(), d_dx.data());
    EXPECT_GT(lender->lent, 0u) << "the call took no scratch: this problem no longer tests the lender";
    EXPECT_EQ(lender->returned, 0u) << "a loan came back before the call ended";
  }
  EXPECT_EQ(lender->returned, lender->lent) << "loans still out after the call";
  EXPECT_TRUE(lender->out.empty());
  // The channels-last copies of dy, w and dx alone are this many bytes.
  EXPECT_GE(lender->lent_bytes, (dy.size() + w.size() + static_cast<std::size_t>(r.x_size())) * sizeof(float));
  EXPECT_EQ(be.arena->own_bytes(), 0u) << "the backend allocated scratch of its own";
  EXPECT_EQ(be.copies->own_bytes(), 0u) << "the backend allocated copies of its own";

  std::vector<double> dyd(dy.begin(), dy.end()), wd(w.begin(), w.end());
  const auto want = tg::ref::conv_bwd_data(r, dyd, wd);
  const auto got = d_dx.download();
  ASSERT_EQ(got.size(), want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) bad += !(static_cast<double>(got[i]) == want[i]);
  EXPECT_EQ(bad, 0u) << "of " << got.size() << " elements of dx";
}
}  // namespace
