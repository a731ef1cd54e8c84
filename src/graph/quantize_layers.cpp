// QuantBuilder's per-operator rules: how each float operator becomes an integer one (or stays a
// float fallback). docs/quantization.md is the specification these follow.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "common/error.h"
#include "graph/quantize_builder.h"

namespace tauvta::graph::detail {

namespace {

// Bits of the constants an elementwise operator applies (VTA's ALU immediates are 16-bit).
constexpr int kConstantBits = 16;

DType storage_for(int bits) { return bits <= 8 ? DType::kInt8 : bits <= 16 ? DType::kInt16 : DType::kInt32; }

// [rows, cols] row-major -> [cols, rows].
std::vector<float> transposed(const std::vector<float>& a, int64_t rows, int64_t cols) {
  std::vector<float> t(a.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) t[size_t(c * rows + r)] = a[size_t(r * cols + c)];
  }
  return t;
}

// The float weights of a linear layer in the layout its integer operator uses, with the number
// of output channels and how channels are laid out.
struct LinearWeights {
  std::string op;         // integer operator
  std::vector<float> w;   // QConv: [M, C/g, k...]; QConvTranspose: [C, M/g, k...]; QGemm: [N, K]
  Shape shape;
  std::vector<float> bias;  // empty or one per output channel
  int64_t channels = 0;     // output channels
  bool channel_axis0 = true;  // output channels are the weight's axis 0
};

}  // namespace

bool QuantBuilder::linear_layer(const Node& n, std::set<std::string>& fused) {
  const Tensor wt = src_.initializers.at(n.input(1)).cast(DType::kFloat32);
  LinearWeights lw;
  lw.w = std::vector<float>(wt.floats().begin(), wt.floats().end());
  lw.shape = wt.shape();
  const std::string& op = n.op_type;
  std::vector<float> bias_src;
  if (!n.input(2).empty()) {
    const Tensor bt = src_.initializers.at(n.input(2)).cast(DType::kFloat32);
    bias_src.assign(bt.floats().begin(), bt.floats().end());
  }
  if (op == "Conv" || op == "ConvTranspose") {
    if (wt.rank() != 3 && wt.rank() != 4) return false;  // 1-D and 2-D convolutions only
    const int64_t group = n.attr_int_or("group", 1);
    lw.op = "Q" + op;
    lw.channels = op == "Conv" ? lw.shape[0] : lw.shape[1] * group;
    lw.channel_axis0 = op == "Conv";
    lw.bias = bias_src;
  } else {  // Gemm, MatMul: weights become [N, K]
    if (wt.rank() != 2) return false;
    const bool trans_b = op == "Gemm" && n.attr_int_or("transB", 0) != 0;
    if (op == "Gemm" && n.attr_int_or("transA", 0) != 0) return false;
    const int64_t k = trans_b ? lw.shape[1] : lw.shape[0], m = trans_b ? lw.shape[0] : lw.shape[1];
    if (!trans_b) lw.w = transposed(lw.w, k, m);
    lw.shape = {m, k};
    lw.op = "QGemm";
    lw.channels = m;
    if (op == "Gemm") {
      const float alpha = n.attr_float_or("alpha", 1.0f), beta = n.attr_float_or("beta", 1.0f);
      for (float& x : lw.w) x *= alpha;
      if (!bias_src.empty()) {
        if (bias_src.size() != 1 && int64_t(bias_src.size()) != m) return false;  // 2-D bias
        lw.bias.resize(size_t(m));
        for (int64_t c = 0; c < m; ++c) lw.bias[size_t(c)] = beta * bias_src[bias_src.size() == 1 ? 0 : size_t(c)];
      }
    }
  }
  if (!lw.bias.empty() && int64_t(lw.bias.size()) != lw.channels) return false;

  const std::string x = int_input(n.input(0));
  const int f_in = frac_of(x), in_bits = bits_of(x);
  const Fusion fusion = find_fusion(n);
  int f_out = activation_frac(fusion.output);
  const int bits = opt_.act_bits;

  // Weight formats: one per tensor, or one per output channel (axis 0 only).
  const WeightFormat* imported = imported_weight_format(n, lw.channel_axis0, lw.channels);
  const bool per_channel = (opt_.per_channel || (imported && imported->frac_bits.size() > 1)) && lw.channel_axis0;
  const int64_t slice = int64_t(lw.w.size()) / lw.shape[0];
  std::vector<int> fw(size_t(lw.channels));
  if (imported != nullptr) {  // the model's own binary points: its integers, exactly
    for (int64_t c = 0; c < lw.channels; ++c) {
      fw[size_t(c)] = imported->frac_bits[imported->frac_bits.size() > 1 ? size_t(c) : 0];
    }
  } else if (per_channel) {
    for (int64_t c = 0; c < lw.channels; ++c) {
      ValueHistogram h;
      h.add(std::span<const float>(lw.w.data() + c * slice, size_t(slice)));
      fw[size_t(c)] = choose_frac_bits(h, opt_.wgt_bits, opt_.wgt_stat, opt_.percentile);
    }
  } else {
    ValueHistogram h;
    h.add(lw.w);
    std::fill(fw.begin(), fw.end(), choose_frac_bits(h, opt_.wgt_bits, opt_.wgt_stat, opt_.percentile));
  }
  // Shifts f_in + fw - f_out the accumulator cannot do. Too negative: the output binary point
  // moves to max_shift() bits finer than the product's (lossless: the product has no finer
  // bits). Too large: the weights get coarser until the shift is fitted_shift(), where the
  // accumulator holds the output range; what they lose is far below an output step.
  f_out = fit_output_frac(n, fusion.output, f_out, f_in + *std::min_element(fw.begin(), fw.end()),
                          std::numeric_limits<int>::min() / 2);
  int coarsened = 0, fw_before = 0;
  for (int& f : fw) {
    if (f_in + f - f_out > max_shift()) {
      ++coarsened;
      fw_before = f;
      f = f_out + fitted_shift() - f_in;
    }
  }
  if (coarsened) {
    res_.warnings.push_back(fmt::format(
        "{}: weights moved from q{}.{} to q{}.{}{} so that the requantization shift fits the {}-bit accumulator "
        "(input q{}.{}, output q{}.{}: shift {} -> {})",
        n.describe(), opt_.wgt_bits, fw_before, opt_.wgt_bits, f_out + fitted_shift() - f_in,
        per_channel ? fmt::format(" in {} output channel(s)", coarsened) : std::string(), opt_.acc_bits, in_bits,
        f_in, bits, f_out, f_in + fw_before - f_out, fitted_shift()));
  }
  std::vector<int64_t> wq(lw.w.size());
  for (size_t i = 0; i < lw.w.size(); ++i) {
    const int f = per_channel ? fw[i / size_t(slice)] : fw[0];
    wq[i] = quantize_value(lw.w[i], f, opt_.wgt_bits);
  }
  QuantParams wqp{opt_.wgt_bits, *std::min_element(fw.begin(), fw.end()), {}};
  if (per_channel) wqp.channel_frac_bits = fw;
  const std::string w_name = add_initializer(
      n.input(1), Tensor::from_int64(storage_for(opt_.wgt_bits), lw.shape, wq), wqp);

  // Biases at the product's binary point, in the accumulator's width.
  std::string b_name;
  std::vector<int64_t> bq(size_t(lw.channels), 0);
  if (!lw.bias.empty()) {
    int clipped = 0;
    for (int64_t c = 0; c < lw.channels; ++c) {
      const int f = f_in + fw[size_t(c)];
      bq[size_t(c)] = quantize_value(lw.bias[size_t(c)], f, opt_.acc_bits);
      if (std::fabs(std::ldexp(double(lw.bias[size_t(c)]), f)) > std::ldexp(1.0, opt_.acc_bits - 1)) ++clipped;
    }
    if (clipped) {
      res_.warnings.push_back(fmt::format("{}: {} bias value(s) clipped to the {}-bit accumulator range",
                                          n.describe(), clipped, opt_.acc_bits));
    }
    QuantParams bqp{opt_.acc_bits, f_in + fw[0], {}};
    if (per_channel) {
      for (int f : fw) bqp.channel_frac_bits.push_back(f_in + f);
      bqp.frac_bits = f_in + *std::min_element(fw.begin(), fw.end());
    }
    b_name = add_initializer(n.input(2).empty() ? n.name + "_bias" : n.input(2),
                             Tensor::from_int64(opt_.acc_bits <= 32 ? DType::kInt32 : DType::kInt64,
                                                {lw.channels}, bq),
                             bqp);
  }

  // Worst case accumulator per output channel: max|x| * sum|w| + |b|.
  const double x_mag = std::ldexp(1.0, in_bits - 1);
  std::vector<double> l1(size_t(lw.channels), 0.0);
  if (lw.channel_axis0) {
    for (size_t i = 0; i < wq.size(); ++i) l1[i / size_t(slice)] += double(std::llabs(wq[i]));
  } else {  // ConvTranspose [C, M/g, k...]: channel m of group gi is (gi, m % (M/g))
    const int64_t group = n.attr_int_or("group", 1), cin = lw.shape[0], mg = lw.shape[1];
    const int64_t taps = int64_t(wq.size()) / (cin * mg);
    for (int64_t c = 0; c < cin; ++c) {
      const int64_t gi = c / (cin / group);
      for (int64_t m = 0; m < mg; ++m) {
        for (int64_t t = 0; t < taps; ++t) {
          l1[size_t(gi * mg + m)] += double(std::llabs(wq[size_t((c * mg + m) * taps + t)]));
        }
      }
    }
  }
  double worst = 0;
  int64_t worst_c = 0;
  for (int64_t c = 0; c < lw.channels; ++c) {
    const double v = x_mag * l1[size_t(c)] + double(std::llabs(bq[size_t(c)]));
    if (v > worst) {
      worst = v;
      worst_c = c;
    }
  }
  check_accumulator(n, worst, fmt::format(" in output channel {}", worst_c));

  Node q;
  q.name = n.name;
  q.op_type = lw.op;
  q.inputs = {x, w_name};
  if (!b_name.empty()) q.inputs.push_back(b_name);
  if (lw.op != "QGemm") q.attrs = n.attrs;  // Conv's geometry attributes, with Conv's meaning
  const auto clip = clip_bounds(fusion, f_out, bits);
  std::vector<int64_t> shifts;
  for (int f : fw) shifts.push_back(int64_t(f_in) + f - f_out);
  add_requant_attrs(q, shifts[0], clip, bits, fusion);
  if (per_channel) q.attrs["shift"] = shifts;
  q.outputs = {int_output(fusion.output, f_out, bits)};
  for (const Node* absorbed : {fusion.act, fusion.fake_quant}) {
    if (absorbed != nullptr) fused.insert(absorbed->name);
  }

  QuantLayer layer{q.name, q.op_type, q.outputs[0], f_in, wqp.frac_bits, f_out, {}, clip.first,
                   clip.second, worst};
  for (int64_t s : shifts) layer.shifts.push_back(int(s));
  if (!per_channel) layer.shifts.resize(1);
  res_.layers.push_back(std::move(layer));
  emit(std::move(q));
  return true;
}

void QuantBuilder::matmul(const Node& n, std::set<std::string>& fused) {
  const std::string a = int_input(n.input(0)), b = int_input(n.input(1));
  const int fa = frac_of(a), fb = frac_of(b);
  const Fusion fusion = find_fusion(n);
  const int f_out = fit_output_frac(n, fusion.output, activation_frac(fusion.output), fa + fb, fa + fb);
  const int bits = opt_.act_bits;
  int64_t k = 1;
  if (const ValueInfo* vi = src_.info(n.input(1)); vi && vi->known_shape && !vi->shape.empty()) {
    k = vi->shape.size() >= 2 ? vi->shape[vi->shape.size() - 2] : vi->shape[0];
  }
  const double worst = std::ldexp(1.0, bits_of(a) - 1) * std::ldexp(1.0, bits_of(b) - 1) * double(k);
  check_accumulator(n, worst, "");
  Node q;
  q.name = n.name;
  q.op_type = "QMatMul";
  q.inputs = {a, b};
  const auto clip = clip_bounds(fusion, f_out, bits);
  add_requant_attrs(q, int64_t(fa) + fb - f_out, clip, bits, fusion);
  q.outputs = {int_output(fusion.output, f_out, bits)};
  for (const Node* absorbed : {fusion.act, fusion.fake_quant}) {
    if (absorbed != nullptr) fused.insert(absorbed->name);
  }
  res_.layers.push_back({q.name, q.op_type, q.outputs[0], fa, fb, f_out, {fa + fb - f_out}, clip.first,
                         clip.second, worst});
  emit(std::move(q));
}

std::string QuantBuilder::constant_operand(const std::string& init, int frac_cap) {
  const Tensor t = src_.initializers.at(init).cast(DType::kFloat32);
  ValueHistogram h;
  h.add(t.floats());
  const int f = std::min(choose_frac_bits(h, kConstantBits, CalibStatistic::kMax, 0), frac_cap);
  std::vector<int64_t> q;
  for (float x : t.floats()) q.push_back(quantize_value(x, f, kConstantBits));
  return add_initializer(init, Tensor::from_int64(DType::kInt16, t.shape(), q), {kConstantBits, f, {}});
}

bool QuantBuilder::elementwise(const Node& n, std::set<std::string>& fused) {
  const std::string& a0 = n.input(0);
  const std::string& b0 = n.input(1);
  const bool ca = src_.is_initializer(a0), cb = src_.is_initializer(b0);
  if (ca && cb) return false;
  const bool mul = n.op_type == "Mul";
  // A constant gets a finer binary point than the activation it meets, but at most 8 bits finer
  // for Add/Sub so that aligning it costs the activation few accumulator bits.
  std::string a, b;
  if (ca) {
    b = int_input(b0);
    a = constant_operand(a0, mul ? kMaxFracBits : frac_of(b) + 8);
  } else {
    a = int_input(a0);
    b = cb ? constant_operand(b0, mul ? kMaxFracBits : frac_of(a) + 8) : int_input(b0);
  }
  const int fa = frac_of(a), fb = frac_of(b);
  const Fusion fusion = find_fusion(n);
  // The product's (Mul) or the aligned operands' (Add, Sub) binary point. Add/Sub align at the
  // finer operand's binary point, but shift the coarser one left by at most acc_bits - 1 - its
  // bits, so that it and the sum stay inside the accumulator; a finer operand beyond that is
  // shifted right instead (ConvNeXt's layer scale 1e-6 makes its residual branch 25 bits finer
  // than the trunk). A positive operand shift keeps the add on the CPU (docs/compiler.md).
  const int coarse_bits = fa <= fb ? bits_of(a) : bits_of(b);
  const int f_acc = mul ? fa + fb : std::min(std::max(fa, fb), std::min(fa, fb) + opt_.acc_bits - 1 - coarse_bits);
  const int f_out = fit_output_frac(n, fusion.output, activation_frac(fusion.output), f_acc, f_acc);
  const int bits = opt_.act_bits;
  const double ma = std::ldexp(1.0, bits_of(a) - 1), mb = std::ldexp(1.0, bits_of(b) - 1);
  Node q;
  q.name = n.name;
  q.op_type = "Q" + n.op_type;
  q.inputs = {a, b};
  const auto clip = clip_bounds(fusion, f_out, bits);
  const int64_t shift = int64_t(f_acc) - f_out;
  double worst = 0;
  if (mul) {
    worst = ma * mb;
  } else {
    // Align both operands at f_acc (left shifts, or a right shift for an operand finer than it),
    // add, requantize.
    q.attrs["lhs_shift"] = int64_t(std::min(fa - f_acc, max_shift()));
    q.attrs["rhs_shift"] = int64_t(std::min(fb - f_acc, max_shift()));
    worst = std::ldexp(ma, f_acc - fa) + std::ldexp(mb, f_acc - fb);
  }
  check_accumulator(n, worst, "");
  add_requant_attrs(q, shift, clip, bits, fusion);
  q.outputs = {int_output(fusion.output, f_out, bits)};
  for (const Node* absorbed : {fusion.act, fusion.fake_quant}) {
    if (absorbed != nullptr) fused.insert(absorbed->name);
  }
  res_.layers.push_back({q.name, q.op_type, q.outputs[0], fa, fb, f_out, {int(shift)}, clip.first,
                         clip.second, worst});
  emit(std::move(q));
  return true;
}

bool QuantBuilder::clip(const Node& n) {
  if (src_.is_initializer(n.input(0)) || n.outputs.size() != 1) return false;
  Fusion f;
  if (n.op_type == "Relu") {
    f.lo = 0;
  } else {
    if (n.has_attr("min")) f.lo = n.attr_float("min");
    if (n.has_attr("max")) f.hi = n.attr_float("max");
    for (size_t k : {size_t(1), size_t(2)}) {
      const std::string& v = n.input(k);
      if (v.empty()) continue;
      if (!src_.is_initializer(v) || src_.initializers.at(v).size() != 1) return false;
      (k == 1 ? f.lo : f.hi) = src_.initializers.at(v).to_float()[0];
    }
  }
  const std::string x = int_input(n.input(0));
  const int frac = frac_of(x), bits = bits_of(x);
  Node q;
  q.name = n.name;
  q.op_type = "QClip";
  q.inputs = {x};
  const auto clip = clip_bounds(f, frac, bits);
  add_requant_attrs(q, 0, clip, bits, Fusion{});
  q.outputs = {int_output(n.outputs[0], frac, bits)};
  emit(std::move(q));
  return true;
}

void QuantBuilder::fake_quant(const Node& n) {
  check_fake_quant(n);
  const std::string x = int_input(n.input(0));
  const int f_in = frac_of(x), in_bits = bits_of(x);
  const std::string& y = n.outputs.at(0);
  const int f = activation_frac(y);
  const int bits = opt_.act_bits;
  Fusion fu;
  fu.lo = std::ldexp(double(n.attr_int("qmin")), -f);
  fu.hi = std::ldexp(double(n.attr_int("qmax")), -f);
  const auto clip = clip_bounds(fu, f, bits);
  const bool output = std::count(src_.outputs.begin(), src_.outputs.end(), y) != 0;
  if (f == f_in && in_bits == bits && clip == clip_bounds(Fusion{}, f, bits) && !output) {
    int_of_[y] = x;  // the format already holds exactly this range: nothing to do
    res_.value_map[y] = x;
    return;
  }
  Node q;
  q.name = n.name;
  q.op_type = "QClip";
  q.inputs = {x};
  add_requant_attrs(q, int64_t(f_in) - f, clip, bits, Fusion{});
  q.outputs = {int_output(y, f, bits)};
  emit(std::move(q));
}

bool QuantBuilder::average_pool(const Node& n) {
  if (src_.is_initializer(n.input(0)) || n.outputs.size() != 1) return false;
  const ValueInfo* in = src_.info(n.input(0));
  if (in == nullptr || !in->known_shape || (in->shape.size() != 3 && in->shape.size() != 4)) return false;
  const bool global = n.op_type == "GlobalAveragePool";
  const std::string x = int_input(n.input(0));
  const int f_in = frac_of(x);
  const int f_out =
      fit_output_frac(n, n.outputs[0], activation_frac(n.outputs[0]), f_in, f_in);
  const int bits = opt_.act_bits;
  int64_t window = 1;
  if (global) {
    for (size_t d = 2; d < in->shape.size(); ++d) window *= in->shape[d];
  } else {
    for (int64_t k : n.attr_ints("kernel_shape")) window *= k;
  }
  Node q;
  q.name = n.name;
  q.op_type = "Q" + n.op_type;
  q.inputs = {x};
  if (!global) q.attrs = n.attrs;
  const int64_t shift = int64_t(f_in) - f_out;
  add_requant_attrs(q, shift, clip_bounds(Fusion{}, f_out, bits), bits, Fusion{});
  q.outputs = {int_output(n.outputs[0], f_out, bits)};
  // Windows whose element count is not a power of two divide exactly on the CPU.
  bool varying = false;
  if (!global && n.attr_int_or("count_include_pad", 0) == 0) {
    for (int64_t p : n.attr_ints_or("pads", {})) varying |= p != 0;
    varying |= n.attr_string_or("auto_pad", "NOTSET") != "NOTSET" &&
               n.attr_string_or("auto_pad", "NOTSET") != "VALID";
  }
  varying |= !global && n.attr_int_or("ceil_mode", 0) != 0;
  if (varying || (window & (window - 1)) != 0) {
    res_.cpu_fallbacks.push_back(fmt::format(
        "{}: divides window sums by {} (not a power of two) with an exact integer division on the CPU",
        q.name + " (" + q.op_type + ")", varying ? "per-window counts" : std::to_string(window)));
  }
  const double worst = std::ldexp(double(window), bits - 1 + int(std::max<int64_t>(0, -shift)));
  check_accumulator(n, worst, "");
  res_.layers.push_back({q.name, q.op_type, q.outputs[0], f_in, 0, f_out, {int(shift)},
                         q.attr_int("clip_min"), q.attr_int("clip_max"), worst});
  emit(std::move(q));
  return true;
}

void QuantBuilder::concat(const Node& n) {
  int lo = std::numeric_limits<int>::max() / 2, hi = std::numeric_limits<int>::min() / 2;
  for (const std::string& v : n.inputs) {
    if (src_.is_initializer(v)) continue;
    const int f = frac_of(int_input(v));
    lo = std::min(lo, f);
    hi = std::max(hi, f);
  }
  const int f_out = fit_output_frac(n, n.outputs.at(0), activation_frac(n.outputs.at(0)), lo, hi);
  const int bits = opt_.act_bits;
  Node q;
  q.name = n.name;
  q.op_type = "QConcat";
  q.attrs["axis"] = n.attr_int("axis");
  std::vector<int64_t> shifts;
  for (const std::string& v : n.inputs) {
    std::string iv;
    if (src_.is_initializer(v)) {
      const Tensor t = src_.initializers.at(v).cast(DType::kFloat32);
      std::vector<int64_t> qv;
      for (float x : t.floats()) qv.push_back(quantize_value(x, f_out, bits));
      iv = add_initializer(v, Tensor::from_int64(DType::kInt32, t.shape(), qv), {bits, f_out, {}});
    } else {
      iv = int_input(v);
    }
    q.inputs.push_back(iv);
    // Inputs more than max_shift() bits apart cannot all be aligned: the outliers' shifts are
    // clamped (fit_output_frac warned).
    shifts.push_back(std::clamp<int64_t>(int64_t(frac_of(iv)) - f_out, -max_shift(), max_shift()));
  }
  add_requant_attrs(q, 0, clip_bounds(Fusion{}, f_out, bits), bits, Fusion{});
  q.attrs.erase("shift");
  q.attrs["shifts"] = shifts;
  q.outputs = {int_output(n.outputs[0], f_out, bits)};
  emit(std::move(q));
}

void QuantBuilder::pass_through(const Node& n) {
  Node q = n;
  q.inputs[0] = int_input(n.input(0));
  for (size_t k = 1; k < q.inputs.size(); ++k) {
    if (!q.inputs[k].empty()) q.inputs[k] = float_input(q.inputs[k]);
  }
  q.outputs.resize(1);
  q.outputs[0] = int_output(n.outputs[0], frac_of(q.inputs[0]), bits_of(q.inputs[0]));
  emit(std::move(q));
}

void QuantBuilder::float_fallback(const Node& n, const std::string& why) {
  Node q = n;
  for (std::string& v : q.inputs) {
    if (!v.empty()) v = float_input(v);
  }
  for (const std::string& o : n.outputs) {
    if (o.empty()) continue;
    float_of_[o] = o;
    res_.value_map[o] = o;
    if (const ValueInfo* s = src_.info(o)) res_.graph.values[o] = *s;
  }
  res_.cpu_fallbacks.push_back(fmt::format("{}: {}", n.describe(), why));
  emit(std::move(q));
}

}  // namespace tauvta::graph::detail
