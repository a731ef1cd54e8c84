#include "dse/design_mapping.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "fpga/bram_mapping.h"
#include "fpga/clock_model.h"

namespace tauvta::dse {

namespace {

int log2i(int x) { return int(std::lround(std::log2(double(x)))); }

}  // namespace

hw::HwConfig architecture(const DesignSpace& s, const Design& d) {
  hw::HwConfig c;
  c.target = s.device().name;
  c.log_batch = log2i(s.value(d, Knob::kBatch));
  c.log_block_in = log2i(s.value(d, Knob::kBlockIn));
  c.log_block_out = log2i(s.value(d, Knob::kBlockOut));
  c.log_inp_width = c.log_wgt_width = log2i(s.precision());
  c.log_acc_width = log2i(s.value(d, Knob::kAccWidth));
  c.log_inp_buff_size = s.value(d, Knob::kInpBuf);
  c.log_wgt_buff_size = s.value(d, Knob::kWgtBuf);
  c.log_acc_buff_size = s.value(d, Knob::kAccBuf);
  c.log_uop_buff_size = s.value(d, Knob::kUopBuf);
  return c;
}

bool encodable(const hw::HwConfig& c) {
  try {
    c.validate("design");
    return true;
  } catch (const Error&) {
    return false;
  }
}

namespace {

// The ACC buffer's memories under an array option: `copies` x `banks` memories of
// width x 2^log_depth.
fpga::Resources acc_memories(fpga::Family family, const rtl::BufferShape& acc, const ArrayOption& a) {
  int width = acc.width, log_depth = acc.log_depth, banks = 1;
  const int lf = log2i(std::max(1, a.factor));
  if (a.type == 1 || a.type == 2) {  // partition
    if (a.dim == 1) {
      log_depth -= lf;
      banks = a.factor;
    } else {
      width /= a.factor;
      banks = a.factor;
    }
  } else if (a.type == 3 || a.type == 4) {  // reshape: factor words side by side in one
    if (a.dim == 1) {
      log_depth -= lf;
      width *= a.factor;
    }
  }
  fpga::Resources r = fpga::map_memory(family, width, std::max(0, log_depth)).resources;
  const double n = double(banks) * acc.copies;
  r.lut *= n;
  r.ff *= n;
  r.bram36 *= n;
  r.uram *= n;
  return r;
}

}  // namespace

int dsp_product_limit(const fpga::Device& device) { return int(std::floor(device.total.dsp * 0.95)); }

double block_ram_fmax_mhz(const fpga::Device& device) {
  // RAMB36 maximum frequency without ECC: 7-series -1 388 MHz (DS187); UltraScale+ -1 645 MHz,
  // -2 737 MHz (DS925).
  if (device.family == fpga::Family::kXc7) return 388;
  return std::strcmp(device.speed_grade, "-1") == 0 ? 645 : 737;
}

int hls_tree_levels_per_stage(const hw::HwConfig& c, const rtl::RtlOptions& o, const fpga::Device& device,
                              double hls_mhz) {
  const double period = 1000.0 / hls_mhz;
  rtl::RtlOptions t = o;
  const int levels = std::max(1, int(std::ceil(std::log2(double(c.block_in())))));
  // Fewest registers first: the whole tree in one stage, then ever shorter stages.
  for (int per = levels; per >= 1; --per) {
    t.tree_levels_per_stage = per == levels ? 0 : per;
    const rtl::DatapathShape s = rtl::shape_of(c, t);
    const fpga::ClockEstimate e = fpga::estimate_clock(s, device, 1, 0);
    const double worst = std::max(e.stage_ns[int(fpga::Stage::kTree)], e.stage_ns[int(fpga::Stage::kAccumulate)]);
    if (worst <= period) return t.tree_levels_per_stage;
  }
  return 1;
}

MappedDesign map_design(const DesignSpace& s, const Design& d, const hw::HwConfig& board) {
  MappedDesign m;
  hw::HwConfig& c = m.config;
  c = architecture(s, d);
  hw::TimingParams& t = c.timing;
  t = board.timing;
  const double mhz = s.value(d, Knob::kImplMhz);
  t.clock_mhz = mhz;
  // The memory's latency is a time: the same nanoseconds take more cycles at a faster clock.
  const double scale = mhz / board.timing.clock_mhz;
  t.dram_latency_cycles = int(std::ceil(board.timing.dram_latency_cycles * scale));
  t.write_latency_cycles = int(std::ceil(board.timing.write_latency_cycles * scale));
  t.log_bus_width = log2i(s.value(d, Knob::kBusWidth));
  t.alu_lanes = s.value(d, Knob::kAluLanes);
  t.alu_mul = s.value(d, Knob::kAluMul) != 0;
  t.dataflow = s.value(d, Knob::kDataflow) != 0;
  // A sub-module that is not inlined adds its start/done handshake to every instruction.
  t.insn_overhead_cycles = board.timing.insn_overhead_cycles + (s.value(d, Knob::kInline) ? 0 : 1);

  rtl::RtlOptions& o = m.rtl;
  o.binding = rtl::ProductBinding(s.value(d, Knob::kBinding));
  o.acc_read_ports = s.value(d, Knob::kAccPorts);
  o.max_dsp_products = s.value(d, Knob::kDspLimit) ? dsp_product_limit(s.device()) : 0;
  const bool pipelined = s.value(d, Knob::kPipeline) != 0;
  o.tree_levels_per_stage =
      pipelined ? hls_tree_levels_per_stage(c, o, s.device(), s.value(d, Knob::kHlsMhz)) : 0;

  // The timing the generated datapath has (rtl::shape_of): its latencies as fill/drain, and the
  // ALU's issue interval exactly as the RTL's: max(read cycles, passes) per micro-op, which the
  // timing model's passes x ALU_II gives with ALU_II = 1 once there are passes.
  const rtl::DatapathShape sh = rtl::shape_of(c, o);
  t.gemm_pipeline_depth = sh.gemm_latency;
  t.alu_pipeline_depth = sh.alu_latency;
  if (pipelined) {
    t.gemm_ii = 1;
    t.alu_ii = sh.alu_passes > 1 ? 1 : (o.acc_read_ports == 2 ? 1 : 2);
  } else {
    // Not pipelined: a micro-op goes through the whole datapath before the next one starts.
    t.gemm_ii = sh.gemm_latency;
    t.alu_ii = sh.alu_latency;
  }

  m.acc_array.type = s.value(d, Knob::kArrayType);
  if (m.acc_array.type != 0) {
    m.acc_array.dim = s.value(d, Knob::kArrayDim);
    m.acc_array.factor = s.value(d, Knob::kArrayFactor);
  }
  return m;
}

fpga::ResourceEstimate design_resources(const MappedDesign& m, const fpga::Device& device) {
  fpga::ResourceEstimate e = fpga::estimate_resources(m.config, m.rtl, device);
  if (m.acc_array.type != 0) {
    const rtl::DatapathShape sh = rtl::shape_of(m.config, m.rtl);
    fpga::Resources& acc = e.parts[size_t(fpga::Part::kAcc)];
    acc = acc_memories(device.family, sh.buffer(rtl::BufferId::kAcc), m.acc_array);
    e.total = {};
    for (const fpga::Resources& r : e.parts) e.total += r;
    fpga::judge(e, device);
  }
  return e;
}

bool array_option_saves(const DesignSpace& s, const Design& d) {
  const hw::HwConfig c = architecture(s, d);
  rtl::RtlOptions o;
  o.acc_read_ports = s.value(d, Knob::kAccPorts);
  const rtl::DatapathShape sh = rtl::shape_of(c, o);
  const rtl::BufferShape& acc = sh.buffer(rtl::BufferId::kAcc);
  ArrayOption a{s.value(d, Knob::kArrayType), s.value(d, Knob::kArrayDim), s.value(d, Knob::kArrayFactor)};
  if (a.dim == 1 && a.factor >= (1 << acc.log_depth)) return false;
  if (a.dim == 2 && (a.factor >= acc.width || acc.width % a.factor != 0)) return false;
  const fpga::Resources plain = acc_memories(s.device().family, acc, {});
  const fpga::Resources split = acc_memories(s.device().family, acc, a);
  return split.bram36 < plain.bram36;
}

std::string timing_key(const hw::HwConfig& config) {
  nlohmann::json j = config.to_json();
  j.erase("TARGET");
  return j.dump();
}

}  // namespace tauvta::dse
