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

  hw::Implementation& impl = c.impl;
  impl.alu_lanes = s.value(d, Knob::kAluLanes);
  impl.alu_mul = s.value(d, Knob::kAluMul) != 0;
  impl.dataflow = s.value(d, Knob::kDataflow) != 0;
  impl.inline_modules = s.value(d, Knob::kInline) != 0;
  impl.pipeline = s.value(d, Knob::kPipeline) != 0;
  impl.binding = hw::ProductBinding(s.value(d, Knob::kBinding));
  impl.acc_read_ports = s.value(d, Knob::kAccPorts);
  impl.dsp_limit = s.value(d, Knob::kDspLimit) ? dsp_product_limit(s.device()) : 0;
  impl.hls_mhz = s.value(d, Knob::kHlsMhz);
  impl.tree_levels_per_stage = 0;
  if (impl.pipeline) {
    impl.tree_levels_per_stage =
        hls_tree_levels_per_stage(c, rtl::options_of(c, impl.dsp_limit), s.device(), impl.hls_mhz);
  }
  const int array_type = s.value(d, Knob::kArrayType);
  if (array_type != 0) {
    impl.acc_array = {hw::ArrayKind(array_type), s.value(d, Knob::kArrayDim), s.value(d, Knob::kArrayFactor)};
  }
  impl.syn_strategy = s.value(d, Knob::kSynStrategy);
  impl.impl_strategy = s.value(d, Knob::kImplStrategy);

  // The timing the generated datapath has: its latencies as fill/drain, its issue intervals, the
  // handshake of a module not inlined; derived exactly as a config file's TIMING keys are.
  const hw::DatapathTiming dt = hw::datapath_timing(impl, c.block_in(), c.batch() * c.block_out());
  t.gemm_pipeline_depth = dt.gemm_pipeline_depth;
  t.alu_pipeline_depth = dt.alu_pipeline_depth;
  t.gemm_ii = dt.gemm_ii;
  t.alu_ii = dt.alu_ii;
  t.insn_overhead_cycles = board.timing.insn_overhead_cycles - 1 + dt.insn_overhead;
  m.rtl = fpga::rtl_options(c, s.device());
  return m;
}

fpga::ResourceEstimate design_resources(const MappedDesign& m, const fpga::Device& device) {
  return fpga::estimate_resources(m.config, m.rtl, device);
}

bool array_option_saves(const DesignSpace& s, const Design& d) {
  const hw::HwConfig c = architecture(s, d);
  rtl::RtlOptions o;
  o.acc_read_ports = s.value(d, Knob::kAccPorts);
  const rtl::DatapathShape sh = rtl::shape_of(c, o);
  const rtl::BufferShape& acc = sh.buffer(rtl::BufferId::kAcc);
  const hw::AccArray a{hw::ArrayKind(s.value(d, Knob::kArrayType)), s.value(d, Knob::kArrayDim),
                       s.value(d, Knob::kArrayFactor)};
  if (a.dim == 1 && a.factor >= (1 << acc.log_depth)) return false;
  if (a.dim == 2 && (a.factor >= acc.width || acc.width % a.factor != 0)) return false;
  const fpga::Resources plain = fpga::acc_memories(s.device().family, acc, {});
  const fpga::Resources split = fpga::acc_memories(s.device().family, acc, a);
  return split.bram36 < plain.bram36;
}

std::string timing_key(const hw::HwConfig& config) {
  nlohmann::json j = config.to_json();
  j.erase("TARGET");
  // The implementation's choices that change cycles are in TIMING already (derived) or are kept
  // here: ALU lanes and MUL, DATAFLOW. The rest change resources only.
  const hw::Implementation& impl = config.impl;
  j["IMPLEMENTATION"] = {{"ALU_LANES", impl.alu_lanes}, {"ALU_MUL", impl.alu_mul}, {"DATAFLOW", impl.dataflow}};
  return j.dump();
}

}  // namespace tauvta::dse
