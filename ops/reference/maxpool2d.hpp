// Naive host reference for 2D max pooling (forward with indices, and both backward forms).
// Independent of dsl/ and lowering/ on purpose: it is what the library is checked against.
// Layout: NCHW packed, x[((n*C + c)*H + h)*W + w]; y, indices, dy likewise with Ho, Wo.
// Semantics (PyTorch's, floor mode): the window of output (ho, wo) has taps h = ho*sh - ph + i*dh,
// w = wo*sw - pw + j*dw; taps in the padding are skipped (padding never wins). The maximum is the
// FIRST tap in row-major (i, j) order holding the largest value; a NaN beats any number, and, as in
// PyTorch's kernels (`val > max || isnan(val)`), a later NaN replaces an earlier one.
// indices hold h*W + w within the input plane; a window without any valid tap gives -inf and -1.
#pragma once
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tg::ref {

struct maxpool2d_params {
  std::int64_t N, C, H, W;
  std::int64_t kh, kw;
  std::int64_t sh = 1, sw = 1;
  std::int64_t ph = 0, pw = 0;  // symmetric padding
  std::int64_t dh = 1, dw = 1;
  std::int64_t Ho() const { return (H + 2 * ph - dh * (kh - 1) - 1) / sh + 1; }
  std::int64_t Wo() const { return (W + 2 * pw - dw * (kw - 1) - 1) / sw + 1; }
  std::int64_t x_size() const { return N * C * H * W; }
  std::int64_t y_size() const { return N * C * Ho() * Wo(); }
};

struct maxpool2d_fwd_result {
  std::vector<double> y;
  std::vector<std::int64_t> indices;
};

inline maxpool2d_fwd_result maxpool2d_fwd(const maxpool2d_params& p, const std::vector<double>& x) {
  assert(std::int64_t(x.size()) == p.x_size());
  const std::int64_t Ho = p.Ho(), Wo = p.Wo();
  maxpool2d_fwd_result r{std::vector<double>(p.y_size()), std::vector<std::int64_t>(p.y_size())};
  for (std::int64_t nc = 0; nc < p.N * p.C; ++nc)
    for (std::int64_t ho = 0; ho < Ho; ++ho)
      for (std::int64_t wo = 0; wo < Wo; ++wo) {
        double best = -std::numeric_limits<double>::infinity();
        std::int64_t arg = -1;
        for (std::int64_t i = 0; i < p.kh; ++i)
          for (std::int64_t j = 0; j < p.kw; ++j) {
            const std::int64_t h = ho * p.sh - p.ph + i * p.dh, w = wo * p.sw - p.pw + j * p.dw;
            if (h < 0 || h >= p.H || w < 0 || w >= p.W) continue;
            const double v = x[(nc * p.H + h) * p.W + w];
            // Strict > keeps the first of equal values; the first valid tap always starts the search
            // (so an all -inf window points at its first valid tap, as PyTorch's does).
            const bool wins = arg < 0 || v > best || std::isnan(v);
            if (wins) { best = v; arg = h * p.W + w; }
          }
        r.y[(nc * Ho + ho) * Wo + wo] = best;
        r.indices[(nc * Ho + ho) * Wo + wo] = arg;
      }
  return r;
}

// dx[n, c, indices[o]] += dy[o] for every output o of the plane.
inline std::vector<double> maxpool2d_bwd_indices(const maxpool2d_params& p, const std::vector<std::int64_t>& indices,
                                                 const std::vector<double>& dy) {
  assert(std::int64_t(dy.size()) == p.y_size() && indices.size() == dy.size());
  const std::int64_t plane_out = p.Ho() * p.Wo(), plane_in = p.H * p.W;
  std::vector<double> dx(p.x_size(), 0.0);
  for (std::int64_t nc = 0; nc < p.N * p.C; ++nc)
    for (std::int64_t o = 0; o < plane_out; ++o) {
      const std::int64_t idx = indices[nc * plane_out + o];
      if (idx >= 0) dx[nc * plane_in + idx] += dy[nc * plane_out + o];
    }
  return dx;
}

// Argmax recomputed from x with the forward's rules.
inline std::vector<double> maxpool2d_bwd(const maxpool2d_params& p, const std::vector<double>& x,
                                         const std::vector<double>& dy) {
  return maxpool2d_bwd_indices(p, maxpool2d_fwd(p, x).indices, dy);
}

}  // namespace tg::ref
