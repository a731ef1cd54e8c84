#include "backend/op_runner.h"

#include "lower/conv_plan.h"

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "common/error.h"
#include "cpu/int_executor.h"
#include "lower/loaded_program.h"
#include "lower/tensor_layout.h"
#include "runtime/device.h"

namespace tauvta::backend {

namespace {

std::vector<int64_t> uniform(std::mt19937_64& rng, size_t n, int bits) {
  const int64_t lo = -(int64_t(1) << (bits - 1)), hi = (int64_t(1) << (bits - 1)) - 1;
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<int64_t> v(n);
  for (int64_t& x : v) x = d(rng);
  return v;
}

}  // namespace

lower::ConvLayerSpec random_layer(const hw::HwConfig& c, const lower::ConvWorkload& w, uint64_t seed,
                                  bool bias) {
  std::mt19937_64 rng(seed);
  lower::ConvLayerSpec s;
  s.w = w;
  const uint64_t k = uint64_t(w.in_channels / w.groups) * uint64_t(w.kernel_h * w.kernel_w);
  const auto wv = uniform(rng, size_t(w.out_channels) * k, c.wgt_width());
  s.weights.assign(wv.begin(), wv.end());
  const std::vector<int64_t> b = uniform(rng, size_t(w.out_channels), std::min(16, c.acc_width() - 2));
  if (bias) s.bias = b;
  // A shift near log2 of the typical accumulator keeps outputs spread over the output range.
  int64_t shift = 0;
  const double typical = double(int64_t(1) << (c.inp_width() + c.wgt_width() - 2)) * std::sqrt(double(k));
  const int64_t max_shift = bias ? c.acc_width() - 2 : std::min(c.acc_width() - 2, 17);
  while (double(int64_t(1) << shift) * double(int64_t(1) << (c.inp_width() - 2)) < typical && shift < max_shift) ++shift;
  s.shifts = {shift};
  s.clip_min = 0;
  s.clip_max = (int64_t(1) << (c.out_width() - 1)) - 1;
  s.acc_bits = c.acc_width();
  return s;
}

std::vector<int64_t> reference_output(const hw::HwConfig& c, const lower::ConvLayerSpec& spec,
                                      const std::vector<int64_t>& x) {
  using graph::DType;
  using graph::Tensor;
  const lower::ConvWorkload& w = spec.w;
  graph::Graph g;
  g.name = "op";
  g.inputs = {"x"};
  g.outputs = {"y"};
  graph::Node n;
  n.name = "op";
  const bool transposed = w.kind == lower::OpKind::kConv2dTranspose;
  n.op_type = transposed ? "QConvTranspose" : "QConv";
  if (transposed) n.attrs["output_padding"] = std::vector<int64_t>{w.output_pad_h, w.output_pad_w};
  n.inputs = {"x", "w", "b"};
  n.outputs = {"y"};
  n.attrs["group"] = w.groups;
  n.attrs["strides"] = std::vector<int64_t>{w.stride_h, w.stride_w};
  n.attrs["dilations"] = std::vector<int64_t>{w.dilation_h, w.dilation_w};
  n.attrs["pads"] = std::vector<int64_t>{w.pad_top, w.pad_left, w.pad_bottom, w.pad_right};
  n.attrs["kernel_shape"] = std::vector<int64_t>{w.kernel_h, w.kernel_w};
  if (spec.shifts.size() == 1) {
    n.attrs["shift"] = spec.shifts[0];
  } else {
    n.attrs["shift"] = spec.shifts;
  }
  n.attrs["clip_min"] = spec.clip_min;
  n.attrs["clip_max"] = spec.clip_max;
  n.attrs["out_bits"] = int64_t(c.out_width());
  n.attrs["acc_bits"] = int64_t(c.acc_width());
  g.nodes.push_back(n);
  const std::vector<int64_t> wv(spec.weights.begin(), spec.weights.end());
  const graph::Shape ws = transposed ? graph::Shape{w.in_channels, w.out_channels / w.groups, w.kernel_h, w.kernel_w}
                                     : graph::Shape{w.out_channels, w.in_channels / w.groups, w.kernel_h, w.kernel_w};
  g.initializers["w"] = Tensor::from_int64(c.wgt_width() <= 8 ? DType::kInt8 : DType::kInt16, ws, wv);
  g.initializers["b"] = Tensor::from_int64(c.acc_width() <= 32 ? DType::kInt32 : DType::kInt64, {w.out_channels},
                                           spec.bias.empty() ? std::vector<int64_t>(size_t(w.out_channels), 0) : spec.bias);
  cpu::TensorMap in;
  in["x"] = Tensor::from_int64(DType::kInt32, {w.batch, w.in_channels, w.height, w.width}, x);
  return cpu::run_int(g, in).at("y").to_int64();
}

OpRun run_op(const hw::HwConfig& c, const lower::ConvWorkload& w, const std::optional<lower::Schedule>& given,
             const OpRunOptions& o) {
  lower::ConvLayerSpec spec = random_layer(c, w, o.seed, o.bias);
  spec.weights_per_batch_block = o.tvm_template;
  const lower::Schedule s = given ? *given : lower::default_schedule(c, w, spec.acc_vectors(c));
  const lower::ActShape in{w.batch, w.in_channels, w.height, w.width};
  const lower::ActShape out{w.batch, w.out_channels, w.out_height(), w.out_width()};
  const lower::Program p = lower::lower_conv_program(c, spec, s);
  OpRun r;
  r.schedule = s;
  r.macs = w.macs();
  r.insns = p.num_insns();
  if (o.timing_only) {
    lower::ProgramTimer timer(c);
    r.report = timer.time(p);
  } else {
    std::mt19937_64 rng(o.seed ^ 0x9e3779b97f4a7c15ull);
    const std::vector<int64_t> x = uniform(rng, size_t(in.elems()), c.inp_width());
    runtime::Device dev(c, p.image_bytes + (uint64_t(16) << 20));
    lower::LoadedProgram lp(dev, p);
    const std::vector<int32_t> x32(x.begin(), x.end());
    lp.write_region("input", lower::pack_activation(c, in, c.block_in(), x32));
    sim::RunOptions ro;
    ro.check_hazards = o.check_hazards;
    r.report = lp.run_layer(0, ro);
    const std::vector<int32_t> got = lower::unpack_activation(c, out, c.block_out(), lp.read_region("output"));
    const std::vector<int64_t> want = reference_output(c, spec, x);
    r.verified = true;
    for (size_t i = 0; i < want.size(); ++i) {
      if (int64_t(got[i]) != want[i]) {
        r.verified = false;
        r.mismatch = fmt::format("output element {} is {}, the integer reference says {}", i, got[i], want[i]);
        break;
      }
    }
  }
  r.seconds_at_clock = double(r.report.cycles) / (c.timing.clock_mhz * 1e6);
  r.gops = c.gops(r.macs, r.report.cycles);
  return r;
}

}  // namespace tauvta::backend
