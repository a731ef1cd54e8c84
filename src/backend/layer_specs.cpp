#include "backend/layer_specs.h"

#include <fmt/format.h>

#include "common/error.h"
#include "graph/conv_geometry.h"
#include "graph/quantize.h"

namespace tauvta::backend {

namespace {

const graph::ValueInfo& value_info(const graph::Graph& g, const std::string& v) {
  const graph::ValueInfo* vi = g.info(v);
  if (!vi || !vi->known_shape) throw Error(fmt::format("value '{}' has no inferred shape", v));
  return *vi;
}

// Checks the node's integer widths match the accelerator's.
void check_widths(const graph::Node& n, const hw::HwConfig& c) {
  const int64_t acc = n.attr_int("acc_bits"), out = n.attr_int("out_bits");
  if (acc != c.acc_width() || out != c.out_width()) {
    throw Error(fmt::format("{}: quantized for {}-bit accumulators and {}-bit outputs, the config "
                            "has {} and {}",
                            n.describe(), acc, out, c.acc_width(), c.out_width()));
  }
}

void check_activation(const graph::Graph& g, const std::string& v, const hw::HwConfig& c) {
  const graph::ValueInfo& vi = value_info(g, v);
  if (!vi.quant.quantized() || vi.quant.bits != c.inp_width()) {
    throw Error(fmt::format("input '{}' is not a {}-bit activation", v, c.inp_width()));
  }
}


std::vector<int64_t> bias_of(const graph::Graph& g, const graph::Node& n, int64_t channels) {
  const std::string& b = n.input(2);
  if (b.empty()) return std::vector<int64_t>(size_t(channels), 0);
  if (!g.is_initializer(b)) throw Error(fmt::format("{}: the bias is not a constant", n.describe()));
  std::vector<int64_t> v = g.initializers.at(b).to_int64();
  if (int64_t(v.size()) != channels) throw Error(fmt::format("{}: {} biases for {} channels", n.describe(), v.size(), channels));
  return v;
}

bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }
int64_t log2_of(int64_t x) {
  int64_t k = 0;
  while ((int64_t(1) << k) < x) ++k;
  return k;
}

}  // namespace

lower::ActShape act_shape(const graph::Graph& g, const std::string& v) {
  const graph::Shape& s = value_info(g, v).shape;
  if (s.size() == 4) return {s[0], s[1], s[2], s[3]};
  if (s.size() == 2) return {s[0], s[1], 1, 1};
  throw Error(fmt::format("value '{}' of shape {} is neither NCHW nor [N, K]", v, graph::shape_string(s)));
}

ConvLayer conv_layer(const graph::Graph& g, const graph::Node& n, const hw::HwConfig& c) {
  check_widths(n, c);
  check_activation(g, n.input(0), c);
  const graph::Shape& xs = value_info(g, n.input(0)).shape;
  if (xs.size() != 4) throw Error("only 2-D convolutions (NCHW inputs) run on the accelerator");
  if (!g.is_initializer(n.input(1))) throw Error(fmt::format("{}: the weights are not constant", n.describe()));
  const graph::Tensor& wt = g.initializers.at(n.input(1));
  const graph::WindowGeometry geo = graph::conv_geometry(n, xs, wt.shape());
  ConvLayer l;
  lower::ConvWorkload& w = l.spec.w;
  w.groups = geo.group;
  w.kind = w.groups > 1 ? lower::OpKind::kGroupConv2d : lower::OpKind::kConv2d;
  w.batch = xs[0];
  w.in_channels = xs[1];
  w.height = xs[2];
  w.width = xs[3];
  w.out_channels = wt.shape()[0];
  w.kernel_h = geo.kernel[0];
  w.kernel_w = geo.kernel[1];
  w.stride_h = geo.strides[0];
  w.stride_w = geo.strides[1];
  w.dilation_h = geo.dilations[0];
  w.dilation_w = geo.dilations[1];
  w.pad_top = geo.pads_begin[0];
  w.pad_left = geo.pads_begin[1];
  w.pad_bottom = std::max<int64_t>(0, geo.pads_end[0]);
  w.pad_right = std::max<int64_t>(0, geo.pads_end[1]);
  if (w.out_height() != geo.output[0] || w.out_width() != geo.output[1]) {
    throw Error(fmt::format("{}: output {}x{} differs from the window rule's {}x{}", n.describe(),
                            geo.output[0], geo.output[1], w.out_height(), w.out_width()));
  }
  l.spec.weights = int32_values(wt);
  l.spec.bias = bias_of(g, n, w.out_channels);
  l.spec.shifts = graph::requant_shifts(n, w.out_channels);
  l.spec.clip_min = n.attr_int("clip_min");
  l.spec.clip_max = n.attr_int("clip_max");
  l.spec.acc_bits = c.acc_width();
  l.op = w.groups == 1 ? "conv2d" : "group_conv2d";
  l.macs = w.macs();
  const lower::ConvGeometry cg = lower::conv_geometry(c, w);
  l.reason = w.groups == 1 ? "GEMM core"
                           : fmt::format("GEMM core, {} groups as {} block-diagonal parts", w.groups, cg.supergroups);
  return l;
}

ConvLayer conv_transpose_layer(const graph::Graph& g, const graph::Node& n, const hw::HwConfig& c) {
  check_widths(n, c);
  check_activation(g, n.input(0), c);
  const graph::Shape& xs = value_info(g, n.input(0)).shape;
  if (xs.size() != 4) throw Error("only 2-D transposed convolutions (NCHW inputs) run on the accelerator");
  if (!g.is_initializer(n.input(1))) throw Error(fmt::format("{}: the weights are not constant", n.describe()));
  const graph::Tensor& wt = g.initializers.at(n.input(1));
  const graph::WindowGeometry geo = graph::conv_transpose_geometry(n, xs, wt.shape());
  if (geo.spatial_rank() != 2) throw Error("only 2-D transposed convolutions run on the accelerator");
  ConvLayer l;
  lower::ConvWorkload& w = l.spec.w;
  w.kind = lower::OpKind::kConv2dTranspose;
  w.groups = geo.group;
  w.batch = xs[0];
  w.in_channels = xs[1];
  w.height = xs[2];
  w.width = xs[3];
  w.out_channels = wt.shape()[1] * geo.group;
  w.kernel_h = geo.kernel[0];
  w.kernel_w = geo.kernel[1];
  w.stride_h = geo.strides[0];
  w.stride_w = geo.strides[1];
  w.dilation_h = geo.dilations[0];
  w.dilation_w = geo.dilations[1];
  w.pad_top = geo.pads_begin[0];
  w.pad_left = geo.pads_begin[1];
  w.pad_bottom = geo.pads_end[0];
  w.pad_right = geo.pads_end[1];
  if (!geo.output_padding.empty()) {
    w.output_pad_h = geo.output_padding[0];
    w.output_pad_w = geo.output_padding[1];
  }
  if (w.pad_bottom < 0 || w.pad_right < 0) throw Error("output_shape larger than the full result: the CPU pads it");
  if (w.out_height() != geo.output[0] || w.out_width() != geo.output[1]) {
    throw Error(fmt::format("{}: output {}x{} differs from the window rule's {}x{}", n.describe(), geo.output[0],
                            geo.output[1], w.out_height(), w.out_width()));
  }
  l.spec.weights = int32_values(wt);
  l.spec.bias = bias_of(g, n, w.out_channels);
  l.spec.shifts = graph::requant_shifts(n, w.out_channels);
  l.spec.clip_min = n.attr_int("clip_min");
  l.spec.clip_max = n.attr_int("clip_max");
  l.spec.acc_bits = c.acc_width();
  l.op = "conv2d_transpose";
  l.macs = w.macs();
  (void)lower::conv_geometry(c, w);  // says why it cannot map
  l.reason = "GEMM core, one GEMM per stride phase (inserted zeros skipped)";
  return l;
}

ConvLayer dense_layer(const graph::Graph& g, const graph::Node& n, const hw::HwConfig& c,
                      const std::map<std::string, std::string>& views) {
  check_widths(n, c);
  check_activation(g, n.input(0), c);
  const graph::Shape& xs = value_info(g, n.input(0)).shape;
  if (xs.size() != 2) throw Error("only 2-D dense inputs [N, K] run on the accelerator");
  if (!g.is_initializer(n.input(1))) throw Error(fmt::format("{}: the weights are not constant", n.describe()));
  const graph::Tensor& wt = g.initializers.at(n.input(1));
  if (wt.rank() != 2 || wt.shape()[1] != xs[1]) throw Error(fmt::format("{}: weights {} for input {}", n.describe(), graph::shape_string(wt.shape()), graph::shape_string(xs)));
  ConvLayer l;
  lower::ConvWorkload& w = l.spec.w;
  w.kind = lower::OpKind::kDense;
  w.batch = xs[0];
  w.out_channels = wt.shape()[0];
  const int64_t K = xs[1], N = w.out_channels;
  std::vector<int32_t> wv = int32_values(wt);
  if (auto it = views.find(n.input(0)); it != views.end()) {
    // The input is the blocked [N/B][C/BI][H][W] tensor: column ((cb*H + y)*W + x)*BI + ci reads
    // channel cb*BI + ci at (y, x); padded channels get zero weights.
    const lower::ActShape s = act_shape(g, it->second);
    const int64_t BI = c.block_in(), cb = lower::ceil_div(s.c, BI), HW = s.h * s.w;
    const int64_t Kp = cb * BI * HW;
    std::vector<int32_t> p(size_t(N * Kp), 0);
    for (int64_t o = 0; o < N; ++o)
      for (int64_t ch = 0; ch < s.c; ++ch)
        for (int64_t hw = 0; hw < HW; ++hw) {
          const int64_t col = ((ch / BI) * HW + hw) * BI + ch % BI;
          p[size_t(o * Kp + col)] = wv[size_t(o * K + ch * HW + hw)];
        }
    wv = std::move(p);
    w.in_channels = Kp;
  } else {
    w.in_channels = K;
  }
  l.spec.weights = std::move(wv);
  l.spec.bias = bias_of(g, n, N);
  l.spec.shifts = graph::requant_shifts(n, N);
  l.spec.clip_min = n.attr_int("clip_min");
  l.spec.clip_max = n.attr_int("clip_max");
  l.spec.acc_bits = c.acc_width();
  l.op = "dense";
  l.reason = "GEMM core";
  l.macs = uint64_t(w.batch) * uint64_t(K) * uint64_t(N);
  return l;
}

ConvLayer avg_pool_layer(const graph::Graph& g, const graph::Node& n, const hw::HwConfig& c) {
  check_widths(n, c);
  check_activation(g, n.input(0), c);
  if (c.wgt_width() < 2) throw Error("1-bit weights cannot hold the unit weights of a pooling window");
  const graph::Shape& xs = value_info(g, n.input(0)).shape;
  if (xs.size() != 4) throw Error("only 2-D pools (NCHW inputs) run on the accelerator");
  ConvLayer l;
  lower::ConvWorkload& w = l.spec.w;
  w.kind = lower::OpKind::kGroupConv2d;
  w.batch = xs[0];
  w.in_channels = w.out_channels = w.groups = xs[1];
  w.height = xs[2];
  w.width = xs[3];
  int64_t count = 0;
  if (n.op_type == "QGlobalAveragePool") {
    w.kernel_h = xs[2];
    w.kernel_w = xs[3];
    count = xs[2] * xs[3];
  } else {
    const graph::WindowGeometry geo = graph::pool_geometry(n, xs);
    if (geo.spatial_rank() != 2) throw Error("only 2-D pools run on the accelerator");
    w.kernel_h = geo.kernel[0];
    w.kernel_w = geo.kernel[1];
    w.stride_h = geo.strides[0];
    w.stride_w = geo.strides[1];
    w.dilation_h = geo.dilations[0];
    w.dilation_w = geo.dilations[1];
    w.pad_top = geo.pads_begin[0];
    w.pad_left = geo.pads_begin[1];
    const int64_t oh = geo.output[0], ow = geo.output[1];
    // Pads so the window rule gives the pool's output size (ceil_mode included).
    w.pad_bottom = std::max<int64_t>(0, (oh - 1) * w.stride_h + (w.kernel_h - 1) * w.dilation_h + 1 - w.height - w.pad_top);
    w.pad_right = std::max<int64_t>(0, (ow - 1) * w.stride_w + (w.kernel_w - 1) * w.dilation_w + 1 - w.width - w.pad_left);
    // Every window must divide by the same power of two (the integer reference's rule).
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        int64_t in_rows = 0, in_cols = 0, pad_rows = 0, pad_cols = 0;
        for (int64_t k = 0; k < w.kernel_h; ++k) {
          const int64_t iy = oy * w.stride_h - w.pad_top + k * w.dilation_h;
          in_rows += iy >= 0 && iy < w.height;
          pad_rows += iy >= -geo.pads_begin[0] && iy < w.height + geo.pads_end[0];
        }
        for (int64_t k = 0; k < w.kernel_w; ++k) {
          const int64_t ix = ox * w.stride_w - w.pad_left + k * w.dilation_w;
          in_cols += ix >= 0 && ix < w.width;
          pad_cols += ix >= -geo.pads_begin[1] && ix < w.width + geo.pads_end[1];
        }
        const int64_t div = geo.count_include_pad ? pad_rows * pad_cols : in_rows * in_cols;
        if (count == 0) count = div;
        if (div != count) {
          throw Error(fmt::format("windows divide by different counts ({} and {}): the exact "
                                  "division runs on the CPU",
                                  count, div));
        }
      }
    }
  }
  if (!is_pow2(count)) {
    throw Error(fmt::format("a window of {} elements is not a power of two: the exact division "
                            "runs on the CPU (no accuracy lost, a few host cycles spent)",
                            count));
  }
  l.spec.weights.assign(size_t(w.out_channels * w.kernel_h * w.kernel_w), 1);
  l.spec.bias.assign(size_t(w.out_channels), 0);
  l.spec.shifts = {n.attr_int("shift") + log2_of(count)};
  l.spec.clip_min = n.attr_int("clip_min");
  l.spec.clip_max = n.attr_int("clip_max");
  l.spec.acc_bits = c.acc_width();
  l.op = "avg_pool";
  l.reason = fmt::format("GEMM core as a depthwise convolution with unit weights, then SHR by "
                         "log2 {}",
                         count);
  l.macs = uint64_t(w.batch * w.out_channels * w.out_height() * w.out_width() * w.kernel_h * w.kernel_w);
  return l;
}

lower::MaxPoolSpec max_pool_spec(const graph::Graph& g, const graph::Node& n) {
  const graph::ValueInfo& vi = value_info(g, n.input(0));
  if (vi.shape.size() != 4) throw Error("only 2-D max pools (NCHW inputs) run on the accelerator");
  if (!vi.quant.quantized()) throw Error("the input is not quantized");
  for (size_t i = 1; i < n.outputs.size(); ++i) {
    if (!n.outputs[i].empty()) throw Error("the Indices output is used: the CPU computes it");
  }
  const graph::WindowGeometry geo = graph::pool_geometry(n, vi.shape);
  lower::MaxPoolSpec p;
  p.in = {vi.shape[0], vi.shape[1], vi.shape[2], vi.shape[3]};
  p.kh = geo.kernel[0];
  p.kw = geo.kernel[1];
  p.sh = geo.strides[0];
  p.sw = geo.strides[1];
  p.dh = geo.dilations[0];
  p.dw = geo.dilations[1];
  p.pad_top = geo.pads_begin[0];
  p.pad_left = geo.pads_begin[1];
  p.oh = geo.output[0];
  p.ow = geo.output[1];
  return p;
}

lower::AddSpec add_spec(const graph::Graph& g, const graph::Node& n, const hw::HwConfig& c) {
  check_widths(n, c);
  for (size_t i = 0; i < 2; ++i) {
    if (g.is_initializer(n.input(i))) throw Error("a constant operand: the CPU adds it");
    check_activation(g, n.input(i), c);
  }
  const graph::Shape& a = value_info(g, n.input(0)).shape;
  if (a != value_info(g, n.input(1)).shape) throw Error("the operands broadcast: the CPU adds them");
  lower::AddSpec s;
  s.shape = act_shape(g, n.input(0));
  s.lhs_shift = n.attr_int_or("lhs_shift", 0);
  s.rhs_shift = n.attr_int_or("rhs_shift", 0);
  s.shift = n.attr_int("shift");
  s.clip_min = n.attr_int("clip_min");
  s.clip_max = n.attr_int("clip_max");
  s.acc_bits = c.acc_width();
  return s;
}

std::string cpu_reason(const graph::Node& n) {
  const std::string& op = n.op_type;
  if (op == "Quantize") return "float to fixed point at the graph's input: host work";
  if (op == "Dequantize") return "fixed point to float at the graph's output: host work";
  if (op == "QMatMul") return "both operands are activations: no constant weight tiles for the GEMM core";
  if (op == "QSub" || op == "QMul") return "the HLS hardware has no ALU negate or MUL";
  if (op == "QConcat") return "per-input requantization and copies: host work";
  if (op == "QClip") return "a standalone clip: host work";
  if (!graph::is_quantized_op(op)) {
    for (const char* s : {"Flatten", "Reshape", "Transpose", "Identity", "Squeeze", "Unsqueeze", "Dropout", "Pad", "Resize", "Upsample", "GlobalMaxPool"}) {
      if (op == s) return "data movement on the host";
    }
    const std::string why = graph::float_fallback_why(n);
    return "float fallback: " + (why.empty() ? std::string("the accelerator has no kernel for this operator") : why);
  }
  return "no accelerator lowering for this operator";
}

bool is_conv_family(const std::string& op) {
  return op == "QConv" || op == "QConvTranspose" || op == "QGemm" || op == "QAveragePool" || op == "QGlobalAveragePool";
}

ConvLayer conv_family_layer(const graph::Graph& g, const graph::Node& n, const hw::HwConfig& c,
                            const std::map<std::string, std::string>& views) {
  const std::string& op = n.op_type;
  return op == "QConv"            ? conv_layer(g, n, c)
         : op == "QConvTranspose" ? conv_transpose_layer(g, n, c)
         : op == "QGemm"          ? dense_layer(g, n, c, views)
                                  : avg_pool_layer(g, n, c);
}

std::optional<lower::FusedAdd> fused_add_of(const lower::AddSpec& a, bool conv_is_lhs) {
  const int64_t conv_shl = -(conv_is_lhs ? a.lhs_shift : a.rhs_shift);
  const int64_t other_shl = -(conv_is_lhs ? a.rhs_shift : a.lhs_shift);
  if (conv_shl < 0 || other_shl < 0 || other_shl > 30) return std::nullopt;
  lower::FusedAdd f;
  f.conv_shl = conv_shl;
  f.other_scale = int64_t(1) << other_shl;
  f.shift = a.shift;
  f.clip_min = a.clip_min;
  f.clip_max = a.clip_max;
  return f;
}

std::vector<int32_t> int32_values(const graph::Tensor& t) {
  if (t.dtype() == graph::DType::kInt32) {
    const int32_t* p = t.data<int32_t>();
    return std::vector<int32_t>(p, p + t.size());
  }
  const std::vector<int64_t> v = t.to_int64();
  return std::vector<int32_t>(v.begin(), v.end());
}

}  // namespace tauvta::backend
