// maxpool2d_bwd through the installed package, on the host backend (and on the GPU backend where the
// package has it and a GPU is present), against a naive loop written here. Exit 0 when every check passes.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "lowering/host.hpp"
#include "ops/maxpool2d_bwd.hpp"
#if defined(TG_WITH_GPU)
#include "instances/gpu_ops.hpp"
#endif

namespace {
using tg::index_t;

// dx of max pooling: each window's dy goes to its first maximum (row-major), padding never wins.
// Tensors in NCHW (first) or NHWC (last) memory order.
std::vector<float> reference(const tg::ops::maxpool2d_problem& p, const std::vector<float>& x, const std::vector<float>& dy) {
  const bool last = p.layout == tg::ops::channel_order::last;
  const index_t H = p.in[0], W = p.in[1], Ho = p.out(0), Wo = p.out(1);
  auto at = [&](index_t n, index_t c, index_t h, index_t w, index_t hh, index_t ww) {
    return last ? ((n * hh + h) * ww + w) * p.C + c : ((n * p.C + c) * hh + h) * ww + w;
  };
  std::vector<float> dx(x.size(), 0.0f);
  for (index_t n = 0; n < p.N; ++n)
    for (index_t c = 0; c < p.C; ++c)
      for (index_t ho = 0; ho < Ho; ++ho)
        for (index_t wo = 0; wo < Wo; ++wo) {
          index_t best = -1;
          for (index_t i = 0; i < p.window[0]; ++i)
            for (index_t j = 0; j < p.window[1]; ++j) {
              const index_t h = ho * p.stride[0] + i * p.dilation[0] - p.pad_l[0], w = wo * p.stride[1] + j * p.dilation[1] - p.pad_l[1];
              if (h < 0 || h >= H || w < 0 || w >= W) continue;
              const index_t k = at(n, c, h, w, H, W);
              if (best < 0 || x[k] > x[best]) best = k;
            }
          if (best >= 0) dx[best] += dy[at(n, c, ho, wo, Ho, Wo)];
        }
  return dx;
}

bool check(const char* what, const std::vector<float>& got, const std::vector<float>& want) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-5f * (1.0f + std::fabs(want[i])))) ++bad;
  std::printf("%s: %zu of %zu elements differ from the naive loop\n", what, bad, got.size());
  return bad == 0;
}
}  // namespace

int main() {
  std::mt19937 rng(20261125);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  bool ok = true;
  for (auto layout : {tg::ops::channel_order::first, tg::ops::channel_order::last}) {
    tg::ops::maxpool2d_problem p;
    p.N = 2; p.C = 3; p.in[0] = 9; p.in[1] = 7; p.layout = layout;
    for (int d = 0; d < 2; ++d) { p.window[d] = 3; p.stride[d] = 2; p.dilation[d] = 1; p.pad_l[d] = p.pad_r[d] = 1; }
    std::vector<float> x(p.N * p.C * p.in[0] * p.in[1]), dy(p.N * p.C * p.out(0) * p.out(1)), dx(x.size(), NAN);
    for (auto& v : x) v = uni(rng);
    for (auto& v : dy) v = uni(rng);
    const auto want = reference(p, x, dy);
    const char* name = layout == tg::ops::channel_order::first ? "host nchw" : "host nhwc";
    tg::host_backend host;
    tg::ops::maxpool2d_bwd(host, p, x.data(), dy.data(), dx.data());
    ok = check(name, dx, want) && ok;
#if defined(TG_WITH_GPU)
    if (tg::gpu_backend::available()) {
      tg::gpu_backend gpu;
      auto d_x = gpu.upload(x), d_dy = gpu.upload(dy), d_dx = gpu.upload(std::vector<float>(x.size(), NAN));
      tg::ops::maxpool2d_bwd(gpu, p, d_x.data(), d_dy.data(), d_dx.data());
      std::vector<float> got;
      gpu.download(d_dx, got);
      ok = check(layout == tg::ops::channel_order::first ? "gpu nchw" : "gpu nhwc", got, want) && ok;
    } else {
      std::printf("gpu: the package has the GPU library, but this machine has no GPU\n");
    }
#else
    std::printf("gpu: this package was built without the GPU library\n");
#endif
  }
  std::printf(ok ? "consumer: PASS\n" : "consumer: FAIL\n");
  return ok ? 0 : 1;
}
