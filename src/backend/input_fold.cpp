#include "backend/input_fold.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "lower/bias_lanes.h"
#include "lower/requant_alu.h"
#include "lower/tensor_layout.h"

namespace tauvta::backend {

graph::Tensor fold_input(const graph::Tensor& x, const InputFold& f) {
  const graph::Shape& s = x.shape();
  if (s.size() != 4) throw InternalError("fold_input: input is not NCHW");
  const int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  const int64_t KH = f.rows() ? f.kernel_h : 1, OH = f.rows() ? f.out_h : H;
  const int64_t CF = f.folded_channels(C), CK = C * KH * f.kernel_w;
  const std::vector<int64_t> v = x.to_int64();
  // Written in place: the folded input of a 224x224 image is millions of values.
  graph::Tensor folded(graph::DType::kInt32, {N, CF, OH, f.out_w});
  int32_t* out = folded.data<int32_t>();
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t ky = 0; ky < KH; ++ky)
      for (int64_t kx = 0; kx < f.kernel_w; ++kx)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t oh = 0; oh < OH; ++oh) {
            const int64_t iy = f.rows() ? oh * f.stride_h - f.pad_top + ky * f.dilation_h : oh;
            if (iy < 0 || iy >= H) continue;
            const int64_t fc = (ky * f.kernel_w + kx) * C + c;
            for (int64_t ow = 0; ow < f.out_w; ++ow) {
              const int64_t ix = ow * f.stride_w - f.pad_left + kx * f.dilation_w;
              if (ix < 0 || ix >= W) continue;
              out[size_t(((n * CF + fc) * OH + oh) * f.out_w + ow)] = int32_t(v[size_t(((n * C + c) * H + iy) * W + ix)]);
            }
          }
    for (size_t k = 0; k < f.constants.size(); ++k) {
      int32_t* plane = out + size_t((n * CF + CK + int64_t(k)) * OH * f.out_w);
      std::fill(plane, plane + OH * f.out_w, int32_t(f.constants[k]));
    }
  }
  return folded;
}

std::optional<InputFold> choose_input_fold(const hw::HwConfig& c, const lower::ConvWorkload& w, const std::string& source) {
  const int64_t BI = c.block_in(), C = w.in_channels, KH = w.kernel_h, KW = w.kernel_w;
  const int64_t none = KH * KW * lower::ceil_div(C, BI);
  const int64_t cols = KH * lower::ceil_div(C * KW, BI);
  const int64_t both = lower::ceil_div(C * KH * KW, BI);
  if (w.groups != 1 || w.kind != lower::OpKind::kConv2d || (KH == 1 && KW == 1) || std::min(cols, both) >= none) {
    return std::nullopt;
  }
  const bool rows = both < cols;  // with KW = 1, cols = none, so a fold that gains folds rows
  InputFold f;
  f.source = source;
  f.kernel_w = KW;
  f.stride_w = w.stride_w;
  f.pad_left = w.pad_left;
  f.dilation_w = w.dilation_w;
  f.out_w = w.out_width();
  if (rows) {
    f.kernel_h = KH;
    f.stride_h = w.stride_h;
    f.pad_top = w.pad_top;
    f.dilation_h = w.dilation_h;
    f.out_h = w.out_height();
  }
  return f;
}

std::string fold_value_name(const InputFold& f) {
  if (!f.rows()) return fmt::format("{}#fold_k{}_s{}_p{}_d{}", f.source, f.kernel_w, f.stride_w, f.pad_left, f.dilation_w);
  std::string name = fmt::format("{}#fold_k{}x{}_s{}x{}_p{}x{}_d{}x{}", f.source, f.kernel_h, f.kernel_w, f.stride_h,
                                 f.stride_w, f.pad_top, f.pad_left, f.dilation_h, f.dilation_w);
  if (!f.constants.empty()) name += fmt::format("_c{}", fmt::join(f.constants, ","));
  return name;
}

std::vector<int64_t> bias_lane_constants(const hw::HwConfig& c, const lower::ConvLayerSpec& spec, const InputFold& f) {
  if (!f.rows() || spec.bias_in_weights) return {};
  const int64_t ck = spec.w.in_channels * spec.w.kernel_h * spec.w.kernel_w;
  const int64_t spare = lower::ceil_div(ck, c.block_in()) * c.block_in() - ck;
  const std::vector<int64_t> adds = lower::requant_adds(spec.bias, spec.channel_shifts(), spec.acc_bits);
  if (std::all_of(adds.begin(), adds.end(), [](int64_t v) { return v == 0; })) return {};  // no ADD to save
  // Every spare lane, not the fewest that do: the count then depends on the geometry alone, so a
  // moved binary point patches the same lanes a fresh compile would choose (and reaches further).
  const std::optional<lower::BiasLanes> b = lower::bias_lanes(c, adds, spare);
  return b ? b->constants : std::vector<int64_t>{};
}

std::string apply_input_fold(const hw::HwConfig& c, lower::ConvLayerSpec& spec, const InputFold& f) {
  lower::ConvWorkload& w = spec.w;
  const int64_t C = w.in_channels, KH = w.kernel_h, KW = w.kernel_w, CO = w.out_channels;
  const bool rows = f.rows();
  std::optional<lower::BiasLanes> lanes;
  if (!f.constants.empty()) {
    if (!rows) return "bias lanes need the kernel's rows folded too";
    const std::vector<int64_t> adds = lower::requant_adds(spec.bias, spec.channel_shifts(), spec.acc_bits);
    lanes = lower::bias_lanes(c, adds, int64_t(f.constants.size()));
    if (!lanes || lanes->constants != f.constants) {
      return fmt::format("its bias and rounding constant no longer fit the {} constant lanes of its folded input",
                         f.constants.size());
    }
  }
  // Weights follow the channels: [CO][(fy*KW + kx)*C + c][ky'][0], fy the folded row (0 when rows
  // stay taps) and ky' the remaining one; then the bias lanes' columns.
  const int64_t CK = C * KW * (rows ? KH : 1), CF = CK + int64_t(f.constants.size()), KHR = rows ? 1 : KH;
  if (!spec.weights.empty()) {
    std::vector<int32_t> folded(size_t(CO * CF * KHR), 0);
    for (int64_t o = 0; o < CO; ++o) {
      for (int64_t ch = 0; ch < C; ++ch)
        for (int64_t ky = 0; ky < KH; ++ky)
          for (int64_t kx = 0; kx < KW; ++kx) {
            const int64_t fc = ((rows ? ky : 0) * KW + kx) * C + ch;
            folded[size_t((o * CF + fc) * KHR + (rows ? 0 : ky))] = spec.weights[size_t(((o * C + ch) * KH + ky) * KW + kx)];
          }
      for (size_t k = 0; lanes && k < f.constants.size(); ++k) {
        folded[size_t(o * CF + CK + int64_t(k))] = lanes->weights[size_t(o) * f.constants.size() + k];
      }
    }
    spec.weights = std::move(folded);
  }
  spec.bias_in_weights = lanes.has_value();
  spec.constant_channels = int64_t(f.constants.size());
  w.in_channels = CF;
  w.width = f.out_w;
  w.kernel_w = 1;
  w.stride_w = 1;
  w.pad_left = w.pad_right = 0;
  w.dilation_w = 1;
  if (rows) {
    w.height = f.out_h;
    w.kernel_h = 1;
    w.stride_h = 1;
    w.pad_top = w.pad_bottom = 0;
    w.dilation_h = 1;
  }
  return "";
}

}  // namespace tauvta::backend
