// Host time of the TMA GEMM's planning per call (no GPU needed): for the convolutions' GEMM batches of
// the benchmark's cases, the plan computed afresh (what every call did before plan_cache.hpp) against
// a cache hit (the key built from the views, the lookup, the copy out). The GPU benchmark times a call
// with events around the whole call, so this host time is inside its numbers.
//   cmake --build build --target tg_host_plan_bench && build/tg_host_plan_bench
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include "lowering/gpu/tma_gemm/plan_cache.hpp"
#include "ops/conv_problem.hpp"
#include "ops/convnd_bwd_data.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"

namespace {
using tg::index_t;
template <class F>
double median_us(F f) {
  std::vector<double> t;
  for (int rep = 0; rep < 9; ++rep) {
    const auto a = std::chrono::steady_clock::now();
    for (int i = 0; i < 200; ++i) f();
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count() / 200);
  }
  std::nth_element(t.begin(), t.begin() + 4, t.end());
  return t[4];
}
volatile int sink;

template <int ND>
void bench(const char* name, const tg::ops::conv_problem& p) {
  static tg::half_t d[1];
  const auto yd = p.y_desc<ND>(), wd = p.w_desc<ND>(), xd = p.x_desc<ND>();
  const auto data = tg::ops::make_col2im_batch(p.geometry<ND>(), d, d, d, yd, wd, xd);
  using spatial = tg::seq_range<3, 3 + ND>;
  const auto weight = tg::single(tg::make_gemm_views(tg::make_view(d, tg::group_dims(yd, tg::seq<0>{}, tg::seq<2>{}, tg::seq_cat<tg::seq<1>, spatial>{})),
                                                     tg::make_view(d, tg::im2col_t<ND>(xd, p.geometry<ND>())),
                                                     tg::make_view(d, tg::group_dims(wd, tg::seq<0>{}, tg::seq<1>{}, tg::seq_cat<spatial, tg::seq<2>>{}))));
  const double dv = median_us([&] { sink = static_cast<int>(tg::tma_gemm::views_of(data).size()); });
  const double df = median_us([&] { sink = tg::tma_gemm::plan_views<256, 128>(data).ok; });
  const double dc = median_us([&] { sink = tg::tma_gemm::plan_views_cached<256, 128>(data).ok; });
  const double wf = median_us([&] { sink = tg::tma_gemm::plan_views<256, 128>(weight).ok; });
  const double wc = median_us([&] { sink = tg::tma_gemm::plan_views_cached<256, 128>(weight).ok; });
  std::printf("| %s | %lld | %.2f | %.2f | %.2f | %.2f | %.2f |\n", name, static_cast<long long>(data.count()), dv, df, dc, wf, wc);
}

tg::ops::conv_problem conv(int nd, index_t N, index_t K, index_t C, index_t in, index_t f, index_t s, index_t pad) {
  tg::ops::conv_problem p;
  p.ndim = nd, p.N = N, p.K = K, p.C = C;
  for (int d = 0; d < nd; ++d) p.in[d] = in, p.filter[d] = f, p.stride[d] = s, p.pad_l[d] = p.pad_r[d] = pad;
  return p;
}
}  // namespace

int main() {
  std::printf("| case (channels-last) | backward data GEMMs | its views, built once, us | backward data fresh us | cached us | backward weight fresh us | cached us |\n"
              "|---|---|---|---|---|---|---|\n");
  bench<2>("seed N128 K256 C128 71x71 3x3 s2", conv(2, 128, 256, 128, 71, 3, 2, 1));
  bench<2>("resnet50 3x3 C64 56x56 N128", conv(2, 128, 64, 64, 56, 3, 1, 1));
  bench<2>("resnet50 1x1 s2 C256->512 56x56", conv(2, 128, 512, 256, 56, 1, 2, 0));
  bench<3>("unet3d 3^3 C64 N2 32x64x64", conv(3, 2, 64, 64, 32, 3, 1, 1));
  bench<3>("3-d stride 2 (8 classes) N2 C64 16^3", conv(3, 2, 64, 64, 16, 3, 2, 1));
}
