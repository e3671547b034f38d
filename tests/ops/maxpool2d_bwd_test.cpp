// maxpool2d_fwd (values and indices), maxpool2d_bwd (argmax recomputed) and maxpool2d_bwd_indices on
// the host backend against the naive reference (ops/reference/maxpool2d.hpp), on random problems:
// NCHW and NHWC, fp32/fp16/bf16, dilation 1-3, stride larger than the window, asymmetric padding,
// ties (small integers), NaNs in x (NaN wins, the last NaN wins), and windows made only of padding.
//
// Seeds: TG_SEED=<n> sets the base seed (default in support.hpp); TG_OPS_CASES=<n> the number of random cases.
#include "../../examples/common/harness.hpp"
#include "lowering/host.hpp"
#include "ops/maxpool2d_bwd.hpp"
#include "ops/reference/maxpool2d.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

#include <cstdlib>
#include <limits>
#include <sstream>

namespace {
using namespace tg;
using namespace tg::test;

const std::vector<int> kNCHW{0, 1, 2, 3}, kNHWC{0, 2, 3, 1};

std::string describe(const ops::maxpool2d_problem& p) {
  std::ostringstream s;
  s << "N" << p.N << " C" << p.C << " in " << p.in[0] << "x" << p.in[1] << " win " << p.window[0] << "x" << p.window[1] << " s "
    << p.stride[0] << "," << p.stride[1] << " d " << p.dilation[0] << "," << p.dilation[1] << " pl " << p.pad_l[0] << "," << p.pad_l[1]
    << " pr " << p.pad_r[0] << "," << p.pad_r[1] << (p.layout == ops::channel_order::first ? " nchw" : " nhwc");
  return s.str();
}

// Does every window of dimension d hold at least one input position (not only padding)?
bool every_window_touches_input(const ops::maxpool2d_problem& p) {
  for (int d = 0; d < 2; ++d)
    for (i64 o = 0; o < p.out(d); ++o) {
      bool any = false;
      for (i64 k = 0; k < p.window[d]; ++k) {
        const i64 h = o * p.stride[d] - p.pad_l[d] + k * p.dilation[d];
        any = any || (h >= 0 && h < p.in[d]);
      }
      if (!any) return false;
    }
  return true;
}

// The reference takes symmetric padding only. Padding (pl, pr) in a dimension equals symmetric padding
// min(pl, pr) of the input extended by |pl - pr| cells of -inf on the side with more padding: the extended
// cells take part in the max but lose to any finite value or NaN, as padding does, as long as every
// window still holds a real cell (checked above) and x holds no -inf (the tests draw none).
struct sym_reference {
  ref::maxpool2d_params rp{};
  i64 lead[2] = {0, 0};  // extension before the input, per dim
  i64 ext[2] = {0, 0};   // extended lengths
  i64 in[2] = {0, 0};
  explicit sym_reference(const ops::maxpool2d_problem& p) {
    for (int d = 0; d < 2; ++d) {
      in[d] = p.in[d];
      lead[d] = std::max<i64>(0, p.pad_l[d] - p.pad_r[d]);
      ext[d] = p.in[d] + std::abs(p.pad_l[d] - p.pad_r[d]);
    }
    rp = ref::maxpool2d_params{p.N, p.C, ext[0], ext[1], p.window[0], p.window[1], p.stride[0], p.stride[1],
                               std::min(p.pad_l[0], p.pad_r[0]), std::min(p.pad_l[1], p.pad_r[1]), p.dilation[0], p.dilation[1]};
  }
  vec extend(const vec& x) const {
    vec e(static_cast<std::size_t>(rp.x_size()), -std::numeric_limits<double>::infinity());
    for (i64 nc = 0; nc < rp.N * rp.C; ++nc)
      for (i64 h = 0; h < in[0]; ++h)
        for (i64 w = 0; w < in[1]; ++w) e[(nc * ext[0] + h + lead[0]) * ext[1] + w + lead[1]] = x[(nc * in[0] + h) * in[1] + w];
    return e;
  }
  vec crop(const vec& e) const {
    vec x(static_cast<std::size_t>(rp.N * rp.C * in[0] * in[1]));
    for (i64 nc = 0; nc < rp.N * rp.C; ++nc)
      for (i64 h = 0; h < in[0]; ++h)
        for (i64 w = 0; w < in[1]; ++w) x[(nc * in[0] + h) * in[1] + w] = e[(nc * ext[0] + h + lead[0]) * ext[1] + w + lead[1]];
    return x;
  }
  i64 index(i64 e) const {  // flat position in the extended plane -> in the real plane
    if (e < 0) return e;
    const i64 h = e / ext[1] - lead[0], w = e % ext[1] - lead[1];
    return h < 0 || h >= in[0] || w < 0 || w >= in[1] ? -2 : h * in[1] + w;  // -2: the reference picked an extension cell
  }
};

struct pool_case {
  ops::maxpool2d_problem p;
  int dtype = 0;
  bool ints = false, nans = false;
};

pool_case random_case(std::mt19937_64& rng, int i) {
  pool_case c;
  c.dtype = i % 3;
  c.ints = (i / 3) % 2 == 0;
  c.nans = (i / 2) % 3 == 0;
  auto& p = c.p;
  do {
    p.N = pick(rng, 1, 2);
    p.C = pick(rng, 1, 4);
    p.layout = (i / 6) % 2 ? ops::channel_order::last : ops::channel_order::first;
    for (int d = 0; d < 2; ++d) {
      p.window[d] = pick(rng, 1, 3);
      p.dilation[d] = pick(rng, 1, 3);
      const i64 span = p.dilation[d] * (p.window[d] - 1) + 1;
      p.stride[d] = i % 5 == 0 ? span + pick(rng, 1, 2) : pick(rng, 1, 3);  // every 5th: stride larger than the window
      p.pad_l[d] = pick(rng, 0, span / 2);
      p.pad_r[d] = i % 4 == 1 ? p.pad_l[d] : pick(rng, 0, span / 2);
      p.in[d] = std::max<i64>(1, span - p.pad_l[d] - p.pad_r[d] + pick(rng, 0, 9));
    }
  } while (!every_window_touches_input(p));
  return c;
}

template <class T>
void run_case(const pool_case& c, std::mt19937_64& rng) {
  const auto& p = c.p;
  SCOPED_TRACE(describe(p) + " " + dtype_traits<T>::name + (c.ints ? " ints" : " decimals") + (c.nans ? " nans" : ""));
  const std::vector<i64> xl{p.N, p.C, p.in[0], p.in[1]}, yl{p.N, p.C, p.out(0), p.out(1)};
  const auto& phys = p.layout == ops::channel_order::first ? kNCHW : kNHWC;
  vec xd(static_cast<std::size_t>(ex::volume(xl)));
  for (auto& e : xd) e = c.ints ? double(pick(rng, -2, 2)) : std::uniform_real_distribution<double>(-1, 1)(rng);
  if (c.nans)
    for (i64 k = 0, n = std::max<i64>(1, i64(xd.size()) / 12); k < n; ++k) xd[pick(rng, 0, i64(xd.size()) - 1)] = std::nan("");
  const auto x = ex::to_dtype<T>(xd), dy = ex::to_dtype<T>(ex::random_tensor(ex::volume(yl), 2, rng));
  const vec xr = ex::to_double(x), dyr = ex::to_double(dy);

  const sym_reference sym(p);
  const auto fwd = ref::maxpool2d_fwd(sym.rp, sym.extend(xr));
  const vec ref_dx = sym.crop(ref::maxpool2d_bwd(sym.rp, sym.extend(xr), dyr));
  vec ref_idx(fwd.indices.size());
  for (std::size_t k = 0; k < ref_idx.size(); ++k) ref_idx[k] = double(sym.index(fwd.indices[k]));

  const auto xp = ex::permute(x, xl, phys, true), dyp = ex::permute(dy, yl, phys, true);
  host_backend be;
  std::vector<T> y(dy.size()), dx(x.size()), dx_idx(x.size());
  std::vector<std::int32_t> idx(dy.size(), 0x7e7e7e7e);
  ex::poison(y); ex::poison(dx); ex::poison(dx_idx);
  ops::maxpool2d_fwd(be, p, xp.data(), y.data(), idx.data());
  ops::maxpool2d_bwd(be, p, xp.data(), dyp.data(), dx.data());
  ops::maxpool2d_bwd_indices(be, p, idx.data(), dyp.data(), dx_idx.data());

  EXPECT_TRUE(matches("y", y, yl, phys, fwd.y, 0.0, 0.0));
  const auto gi = ex::permute(idx, yl, phys, false);
  EXPECT_TRUE(matches("indices", gi, yl, kNCHW, ref_idx, 0.0, 0.0));
  EXPECT_TRUE(matches("dx (argmax recomputed)", dx, xl, phys, ref_dx, dtype_traits<T>::rtol, dtype_traits<T>::atol));
  EXPECT_TRUE(matches("dx (from indices)", dx_idx, xl, phys, ref_dx, dtype_traits<T>::rtol, dtype_traits<T>::atol));
}

TEST(MaxPool2dBwd, RandomProblemsMatchReference) {
  const int n = num_cases(100);
  for (int i = 0; i < n; ++i) {
    const std::uint64_t seed = base_seed() + 0x100000ull + std::uint64_t(i);
    SCOPED_TRACE(testing::Message() << "TG_SEED=" << base_seed() << " case " << i << " (rng seed " << seed << ")");
    std::mt19937_64 rng(seed);
    const pool_case c = random_case(rng, i);
    with_dtype(c.dtype, [&](auto t) { run_case<decltype(t)>(c, rng); });
    if (HasFailure()) break;
  }
}

// A few hand-made cases with exact expectations, in both layouts and all dtypes.
template <class T>
void hand_case(const ops::maxpool2d_problem& p0, const vec& x_nchw, const vec& dy_nchw, const vec& want_dx,
               const std::vector<std::int32_t>& want_idx) {
  for (auto layout : {ops::channel_order::first, ops::channel_order::last}) {
    auto p = p0;
    p.layout = layout;
    SCOPED_TRACE(describe(p) + " " + dtype_traits<T>::name);
    const std::vector<i64> xl{p.N, p.C, p.in[0], p.in[1]}, yl{p.N, p.C, p.out(0), p.out(1)};
    const auto& phys = layout == ops::channel_order::first ? kNCHW : kNHWC;
    const auto xp = ex::permute(ex::to_dtype<T>(x_nchw), xl, phys, true), dyp = ex::permute(ex::to_dtype<T>(dy_nchw), yl, phys, true);
    host_backend be;
    std::vector<T> y(dyp.size()), dx(xp.size()), dx2(xp.size());
    std::vector<std::int32_t> idx(dyp.size(), 0x7e7e7e7e);
    ex::poison(dx); ex::poison(dx2);
    ops::maxpool2d_fwd(be, p, xp.data(), y.data(), idx.data());
    ops::maxpool2d_bwd(be, p, xp.data(), dyp.data(), dx.data());
    ops::maxpool2d_bwd_indices(be, p, idx.data(), dyp.data(), dx2.data());
    EXPECT_EQ(ex::permute(idx, yl, phys, false), want_idx);
    EXPECT_TRUE(matches("dx", dx, xl, phys, want_dx, 0.0, 0.0));
    EXPECT_TRUE(matches("dx (indices)", dx2, xl, phys, want_dx, 0.0, 0.0));
  }
}

ops::maxpool2d_problem square(i64 in, i64 win, i64 stride = 1, i64 pad = 0, i64 dil = 1) {
  ops::maxpool2d_problem p;
  for (int d = 0; d < 2; ++d) { p.in[d] = in; p.window[d] = win; p.stride[d] = stride; p.pad_l[d] = p.pad_r[d] = pad; p.dilation[d] = dil; }
  return p;
}

TEST(MaxPool2dBwd, TiesGoToTheFirstMaximum) {
  // 3x3 plane, 2x2 windows, stride 1:  1 3 3 / 3 1 1 / 1 1 1  (as in the reference's own test)
  const vec x{1, 3, 3, 3, 1, 1, 1, 1, 1}, dy{1, 2, 3, 4};
  for (int k = 0; k < 3; ++k)
    with_dtype(k, [&](auto t) { hand_case<decltype(t)>(square(3, 2), x, dy, {0, 3, 0, 3, 4, 0, 0, 0, 0}, {1, 1, 3, 4}); });
}

TEST(MaxPool2dBwd, NaNWinsAndTheLastNaNWins) {
  const double nan = std::nan("");
  // One 2x2 window: 1 NaN / 5 NaN -> the NaN at position 3; then 7 9 / NaN 9 -> position 2.
  for (int k = 0; k < 3; ++k) {
    with_dtype(k, [&](auto t) { hand_case<decltype(t)>(square(2, 2), {1, nan, 5, nan}, {2}, {0, 0, 0, 2}, {3}); });
    with_dtype(k, [&](auto t) { hand_case<decltype(t)>(square(2, 2), {7, 9, nan, 9}, {2}, {0, 0, 2, 0}, {2}); });
  }
}

TEST(MaxPool2dBwd, PaddingNeverWins) {
  // A 1x1 plane of -5 under a 3x3 window with padding 1: the only real cell wins.
  for (int k = 0; k < 3; ++k) with_dtype(k, [&](auto t) { hand_case<decltype(t)>(square(1, 3, 1, 1), {-5}, {3}, {3}, {0}); });
}

// With dilation a window can lie entirely in padding although the padding is at most half the window:
// in 2, window 2, dilation 3 (span 4), padding 2 -> 3 outputs; window 1's taps (-1, 2) both miss the input.
// The reference (and PyTorch) give y = -inf for such a window; its index is -1 in the reference (PyTorch
// leaves an out-of-range position). It must route no gradient.
TEST(MaxPool2dBwd, WindowOfPaddingOnlyGivesMinusInfinity) {
  ops::maxpool2d_problem p;
  p.in[0] = 2; p.in[1] = 3; p.window[0] = 2; p.window[1] = 1; p.stride[0] = 1; p.stride[1] = 1;
  p.dilation[0] = 3; p.dilation[1] = 1; p.pad_l[0] = p.pad_r[0] = 2; p.pad_l[1] = p.pad_r[1] = 0;
  ASSERT_NO_THROW(p.validate("test"));
  ASSERT_EQ(p.out(0), 3);
  ASSERT_FALSE(every_window_touches_input(p));
  const vec x{4, -3, 7, 1, 8, -2};
  const ref::maxpool2d_params rp{1, 1, 2, 3, 2, 1, 1, 1, 2, 0, 3, 1};
  const auto fwd = ref::maxpool2d_fwd(rp, x);
  ASSERT_EQ(fwd.y.size(), 9u);
  const auto xf = ex::to_dtype<float>(x);
  const std::vector<float> dy{1, 2, 3, 4, 5, 6, 7, 8, 9};
  host_backend be;
  std::vector<float> y(9), dx(6), dx2(6);
  std::vector<std::int32_t> idx(9, 0x7e7e7e7e);
  ex::poison(y); ex::poison(dx); ex::poison(dx2);
  ops::maxpool2d_fwd(be, p, xf.data(), y.data(), idx.data());
  for (int o = 0; o < 9; ++o) {
    EXPECT_EQ(double(y[o]), fwd.y[o]) << "output " << o;
    if (fwd.indices[o] >= 0) EXPECT_EQ(idx[o], fwd.indices[o]) << "output " << o;
    else EXPECT_TRUE(idx[o] < 0 || idx[o] >= 6) << "output " << o << ": index " << idx[o] << " points into the input";
  }
  // dx: the windows of output rows 0 and 2 reach input rows 1 and 0; row 1's windows route nothing.
  const vec want = ref::maxpool2d_bwd(rp, x, vec(dy.begin(), dy.end()));
  ops::maxpool2d_bwd(be, p, xf.data(), dy.data(), dx.data());
  EXPECT_EQ(ex::to_double(dx), want);
  ops::maxpool2d_bwd_indices(be, p, idx.data(), dy.data(), dx2.data());
  EXPECT_EQ(ex::to_double(dx2), want);
}
}  // namespace
