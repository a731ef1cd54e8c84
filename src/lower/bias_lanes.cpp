#include "lower/bias_lanes.h"

#include <algorithm>
#include <cmath>

namespace tauvta::lower {

std::optional<BiasLanes> bias_lanes(const hw::HwConfig& c, const std::vector<int64_t>& values, int64_t lanes) {
  if (lanes < 1) return std::nullopt;
  const int64_t k = int64_t(1) << (c.inp_width() - 1);  // lanes 1.. hold -k
  const int64_t wmin = -(int64_t(1) << (c.wgt_width() - 1)), wmax = -wmin - 1;
  BiasLanes out;
  out.constants.assign(size_t(lanes), -k);
  out.constants[0] = -1;
  out.weights.assign(values.size() * size_t(lanes), 0);
  const int64_t smin = (lanes - 1) * wmin, smax = (lanes - 1) * wmax;
  for (size_t ch = 0; ch < values.size(); ++ch) {
    const int64_t b = values[ch];
    // b = -w0 - k * s with s the sum of lanes 1..: s near -b / k leaves w0 smallest.
    const int64_t s = std::clamp<int64_t>(int64_t(std::llround(-double(b) / double(k))), smin, smax);
    const int64_t w0 = -b - k * s;
    if (w0 < wmin || w0 > wmax) return std::nullopt;
    int32_t* w = &out.weights[ch * size_t(lanes)];
    w[0] = int32_t(w0);
    int64_t left = s;
    for (int64_t j = 1; j < lanes; ++j) {
      w[j] = int32_t(std::clamp(left, wmin, wmax));
      left -= w[j];
    }
    if (left != 0) return std::nullopt;
  }
  return out;
}

}  // namespace tauvta::lower
