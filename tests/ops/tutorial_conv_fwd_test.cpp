// The op written in docs/new-op.md (convolution forward), checked against the naive reference, so the
// tutorial cannot drift from the library.
#include <gtest/gtest.h>
#include <random>
#include <vector>
#include "dsl/compose/group_dims.hpp"
#include "dsl/compose/im2col.hpp"
#include "lowering/gemm.hpp"
#include "lowering/host.hpp"
#include "ops/conv_problem.hpp"
#include "ops/reference/conv.hpp"

namespace tutorial {
using namespace tg;
// --8<-- [start:op]
// y = x (*) w: per group, y[G, (N, out...), K] = im2col(x)[G, (N, out...), (taps..., C)] * w[G, K, (taps..., C)].
template <int ND, class T, class Backend>
void conv_fwd(Backend& be, const ops::conv_problem& p, const T* x, const T* w, T* y) {
  p.validate("conv_fwd", sizeof(T));  // names x, w, y in its messages (ops::conv_fwd_tensors)
  using spatial = seq_range<3, 3 + ND>;
  const auto a = make_view(x, im2col<ND>(p.x_desc<ND>(), p.geometry<ND>()));                                  // A [G, M, K]
  const auto b = make_view(w, group_dims(p.w_desc<ND>(), seq<0>{}, seq<1>{}, seq_cat<spatial, seq<2>>{}));    // B [G, N, K]
  const auto c = make_view(y, group_dims(p.y_desc<ND>(), seq<0>{}, seq_cat<seq<1>, spatial>{}, seq<2>{}));    // C [G, M, N]
  gemm(be, single(make_gemm_views(a, b, c)));
}
// --8<-- [end:op]
}  // namespace tutorial

TEST(Tutorial, ConvForwardMatchesReference) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  tg::ops::conv_problem p;
  p.ndim = 2; p.G = 2; p.N = 2; p.K = 6; p.C = 4; p.layout = tg::ops::conv_layout::gnhwc;
  for (int d = 0; d < 2; ++d) { p.filter[d] = 3; p.in[d] = 9; p.stride[d] = 2; p.dilation[d] = 1; p.pad_l[d] = 1; p.pad_r[d] = 0; }
  tg::ref::conv_params r{2, p.G, p.N, p.K, p.C};
  for (int d = 0; d < 2; ++d) { r.filter[d] = 3; r.in[d] = 9; r.stride[d] = 2; r.pad_l[d] = 1; r.pad_r[d] = 0; }
  // GNHWC x and GNHWK y with one spatial position per row: canonical [G][N][C][H][W] -> [G][N][H][W][C].
  auto to_gnhwc = [](const std::vector<double>& v, long G, long N, long C, long S) {
    std::vector<float> o(v.size());
    for (long g = 0; g < G; ++g) for (long n = 0; n < N; ++n) for (long c = 0; c < C; ++c) for (long s = 0; s < S; ++s)
      o[((g * N + n) * S + s) * C + c] = float(v[((g * N + n) * C + c) * S + s]);
    return o;
  };
  std::vector<double> x(r.x_size()), w(r.w_size());
  for (auto& e : x) e = u(rng);
  for (auto& e : w) e = u(rng);
  const auto xp = to_gnhwc(x, p.G, p.N, p.C / p.G, 81);
  const auto wp = to_gnhwc(w, p.G, p.K / p.G, p.C / p.G, 9);  // GKYXC
  std::vector<float> y(r.y_size(), -12345.0f);
  tg::host_backend be;
  tutorial::conv_fwd<2>(be, p, xp.data(), wp.data(), y.data());
  const auto ref = to_gnhwc(tg::ref::conv_fwd(r, x, w), p.G, p.N, p.K / p.G, p.out(0) * p.out(1));
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], ref[i], 1e-4) << i;
}
