// Naive host reference for 3D average pooling backward. Independent of dsl/ and lowering/ on purpose.
// Layout: NCDHW packed, dx[(((n*C + c)*D + d)*H + h)*W + w]; dy likewise with the output sizes.
// The window of output o has taps i[a] = o[a]*s[a] - pl[a] + t[a]*dil[a], t[a] in [0, k[a]).
// Divisor: count_include_pad -> k0*k1*k2 (PyTorch's default; in floor mode a window never leaves the
// padded input, so this is the full window volume), else the number of taps inside the unpadded input
// (the seed's "effective window"; a window with none contributes nothing).
#pragma once
#include <array>
#include <cassert>
#include <cstdint>
#include <vector>

namespace tg::ref {

struct avgpool3d_params {
  std::int64_t N, C, D, H, W;
  std::array<std::int64_t, 3> k;                 // window (d, h, w)
  std::array<std::int64_t, 3> s = {1, 1, 1};     // stride
  std::array<std::int64_t, 3> pl = {0, 0, 0};    // left padding
  std::array<std::int64_t, 3> pr = {0, 0, 0};    // right padding
  std::array<std::int64_t, 3> dil = {1, 1, 1};   // dilation
  bool count_include_pad = true;
  std::array<std::int64_t, 3> in() const { return {D, H, W}; }
  std::int64_t out(int a) const { return (in()[a] + pl[a] + pr[a] - dil[a] * (k[a] - 1) - 1) / s[a] + 1; }
  std::int64_t x_size() const { return N * C * D * H * W; }
  std::int64_t y_size() const { return N * C * out(0) * out(1) * out(2); }
};

inline std::vector<double> avgpool3d_bwd(const avgpool3d_params& p, const std::vector<double>& dy) {
  assert(std::int64_t(dy.size()) == p.y_size());
  const std::array<std::int64_t, 3> in = p.in(), out = {p.out(0), p.out(1), p.out(2)};
  std::vector<double> dx(p.x_size(), 0.0);
  auto inside = [&](int a, std::int64_t o, std::int64_t t, std::int64_t& i) {
    i = o * p.s[a] - p.pl[a] + t * p.dil[a];
    return i >= 0 && i < in[a];
  };
  for (std::int64_t nc = 0; nc < p.N * p.C; ++nc)
    for (std::int64_t od = 0; od < out[0]; ++od)
      for (std::int64_t oh = 0; oh < out[1]; ++oh)
        for (std::int64_t ow = 0; ow < out[2]; ++ow) {
          std::int64_t id, ih, iw, valid = 0;
          for (std::int64_t td = 0; td < p.k[0]; ++td)
            for (std::int64_t th = 0; th < p.k[1]; ++th)
              for (std::int64_t tw = 0; tw < p.k[2]; ++tw)
                valid += inside(0, od, td, id) && inside(1, oh, th, ih) && inside(2, ow, tw, iw);
          const std::int64_t divisor = p.count_include_pad ? p.k[0] * p.k[1] * p.k[2] : valid;
          if (divisor == 0) continue;
          const double g = dy[((nc * out[0] + od) * out[1] + oh) * out[2] + ow] / double(divisor);
          for (std::int64_t td = 0; td < p.k[0]; ++td)
            for (std::int64_t th = 0; th < p.k[1]; ++th)
              for (std::int64_t tw = 0; tw < p.k[2]; ++tw)
                if (inside(0, od, td, id) && inside(1, oh, th, ih) && inside(2, ow, tw, iw))
                  dx[((nc * in[0] + id) * in[1] + ih) * in[2] + iw] += g;
        }
  return dx;
}

}  // namespace tg::ref
