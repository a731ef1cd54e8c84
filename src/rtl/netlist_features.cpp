#include "rtl/netlist_features.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <initializer_list>
#include <iterator>

#include "rtl/verilog_emit.h"

namespace tauvta::rtl {

const char* family_name(Family f) { return f == Family::kXc7 ? "xc7" : "xcup"; }

const char* module_name(NetlistModule m) {
  switch (m) {
    case NetlistModule::kGemm: return "gemm";
    case NetlistModule::kAlu: return "alu";
    case NetlistModule::kFetch: return "fetch";
    case NetlistModule::kLoad: return "load";
    case NetlistModule::kComputeCtrl: return "compute_ctrl";
    case NetlistModule::kStore: return "store";
    case NetlistModule::kCmdQueues: return "cmd_queues";
    case NetlistModule::kTokenQueues: return "token_queues";
    case NetlistModule::kControl: return "control";
    case NetlistModule::kCompute: return "compute";
    case NetlistModule::kCount: break;
  }
  return "?";
}

const char* feature_name(NetlistFeature f) {
  switch (f) {
    case NetlistFeature::kOne: return "one";
    case NetlistFeature::kDspProducts: return "dsp_products";
    case NetlistFeature::kLutPpBits: return "lut_pp_bits";
    case NetlistFeature::kLutPpDepthBits: return "lut_pp_depth_bits";
    case NetlistFeature::kAdd2Bits: return "add2_bits";
    case NetlistFeature::kCsaBits: return "csa_bits";
    case NetlistFeature::kCsaDepthBits: return "csa_depth_bits";
    case NetlistFeature::kCsaLuts: return "csa_luts";
    case NetlistFeature::kDelaySrl: return "delay_srl";
    case NetlistFeature::kOperandFf: return "operand_ff";
    case NetlistFeature::kProductRegFf: return "product_reg_ff";
    case NetlistFeature::kTreeRegFf: return "tree_reg_ff";
    case NetlistFeature::kAccFf: return "acc_ff";
    case NetlistFeature::kOutLaneBits: return "out_lane_bits";
    case NetlistFeature::kDelayFf: return "delay_ff";
    case NetlistFeature::kAluLaneBits: return "alu_lane_bits";
    case NetlistFeature::kAluShiftBits: return "alu_shift_bits";
    case NetlistFeature::kAluMulDsp: return "alu_mul_dsp";
    case NetlistFeature::kAluPassBits: return "alu_pass_bits";
    case NetlistFeature::kAluSinglePassBits: return "alu_single_pass_bits";
    case NetlistFeature::kAluMultiPassLaneBits: return "alu_multi_pass_lane_bits";
    case NetlistFeature::kAluOperandBits: return "alu_operand_bits";
    case NetlistFeature::kBusBits: return "bus_bits";
    case NetlistFeature::kElemBits: return "elem_bits";
    case NetlistFeature::kNarrowLaneMuxBits: return "narrow_lane_mux_bits";
    case NetlistFeature::kWideGatherBits: return "wide_gather_bits";
    case NetlistFeature::kAddrBits: return "addr_bits";
    case NetlistFeature::kHostBits: return "host_bits";
    case NetlistFeature::kQueuePtrBits: return "queue_ptr_bits";
    case NetlistFeature::kCount: break;
  }
  return "?";
}

namespace {

double& at(NetlistFeatures& f, NetlistFeature k) { return f[size_t(k)]; }

// Partial-product bits of an iw x ww product truncated to its low pw bits.
int truncated_pp_bits(int iw, int ww, int pw) {
  int n = 0;
  for (int i = 0; i < iw; ++i) n += std::max(0, std::min(ww, pw - i));
  return n;
}

int ceil_log2(int v) {
  int n = 0;
  while ((1 << n) < v) ++n;
  return n;
}

// 3:2 carry-save levels that reduce n operands to two (Dadda's heights 2, 3, 4, 6, 9, 13, ...).
int csa_levels(int n) {
  int levels = 0;
  for (int h = 2; h < n; h = h * 3 / 2) ++levels;
  return levels;
}

// LUTs per operand bit of one sum of n signed operands (its compressor and carry chain), as
// yosys 0.23 builds it alone: tools/synth/compressor_study.py, operands of 8 bits (README.md,
// "The netlist features"). The cost grows with the compressor's depth, on UltraScale+ much
// faster (ABC maps it into LUT6 + MUXF7/8/9). Between measured counts, linear in log2(n).
double compressor_luts_per_bit(Family family, int n) {
  struct Point {
    int n;
    double xc7, xcup;
  };
  static constexpr Point kMeasured[] = {{2, 0.50, 0.50}, {3, 0.67, 0.67}, {4, 1.09, 1.09},
                                        {8, 1.36, 2.80}, {16, 2.14, 4.43}, {32, 2.24, 5.19}};
  auto at_point = [family](const Point& p) { return family == Family::kXc7 ? p.xc7 : p.xcup; };
  if (n <= kMeasured[0].n) return at_point(kMeasured[0]);
  for (size_t i = 1; i < std::size(kMeasured); ++i) {
    const Point &a = kMeasured[i - 1], &b = kMeasured[i];
    if (n <= b.n) {
      const double x = std::log2(double(n) / a.n) / std::log2(double(b.n) / a.n);
      return at_point(a) + x * (at_point(b) - at_point(a));
    }
  }
  return at_point(kMeasured[std::size(kMeasured) - 1]);
}

// One sum of `n` operands: `narrow` of `w` bits and, when `wide` > 0, one more of `wide` bits
// (the accumulator). A two-operand add is its carry chain; more operands go through a
// compressor first.
void add_sum(NetlistFeatures& f, Family family, double lanes, int n, int w, int wide) {
  const int operands = n + (wide > 0 ? 1 : 0);
  if (operands < 2) return;
  const double widest = std::max(w, wide);
  at(f, NetlistFeature::kAdd2Bits) += lanes * widest;
  if (operands >= 3) {
    const double bits = double(n) * w + wide;
    at(f, NetlistFeature::kCsaBits) += lanes * bits;
    at(f, NetlistFeature::kCsaDepthBits) += lanes * bits * csa_levels(operands);
    at(f, NetlistFeature::kCsaLuts) += lanes * bits * compressor_luts_per_bit(family, operands);
  }
}

NetlistFeatures gemm(const DatapathShape& s, Family family) {
  NetlistFeatures f{};
  const double lanes = double(s.batch) * s.block_out;
  const int pw = s.product_width, aw = s.acc_width;
  const double in_dsp = s.dsp_products, in_lut = s.products - s.dsp_products;
  // On 7-series yosys packs each product's operand registers, its M register, the first tree
  // level's adder (the post-adder, P = M + PCIN) and its register, and for BLOCK_IN 1 the
  // accumulate, into the DSP48E1. UltraScale+'s DSP48E2 is left with the multiplier alone. With
  // a DSP limit the registers are absorbed in proportion and the adders only when every product
  // is in a DSP (an extrapolation: yosys binds all products one way).
  const bool xc7 = family == Family::kXc7;
  const bool absorb = xc7 && in_lut == 0 && in_dsp > 0;
  const double kept = xc7 ? in_lut / double(s.products) : 1.0;  // registers left in the fabric
  at(f, NetlistFeature::kOne) = 1;
  at(f, NetlistFeature::kDspProducts) = in_dsp;
  // A LUT product is a compressor over its partial-product rows (the narrower operand's bits).
  const double pp = in_lut * truncated_pp_bits(s.inp_width, s.wgt_width, pw);
  at(f, NetlistFeature::kLutPpBits) = pp;
  at(f, NetlistFeature::kLutPpDepthBits) = pp * ceil_log2(std::min(s.inp_width, s.wgt_width));
  at(f, NetlistFeature::kOperandFf) =
      kept * (double(s.batch) * s.block_in * s.inp_width + double(s.block_out) * s.block_in * s.wgt_width);
  at(f, NetlistFeature::kProductRegFf) = kept * double(s.products) * pw;
  // The tree, one pipeline stage at a time: the values entering a stage (products, or the sums
  // of the stage before) are summed in groups, one group per registered output, each group one
  // multi-operand sum at the values' width (the widths grow a bit per level only in the sum).
  int n = s.block_in, w = pw, first = 1;
  if (absorb && s.tree_levels >= 1) {  // level 1 is in the DSPs' post-adders
    n = (n + 1) / 2;
    w = std::min(pw + 1, aw);
    first = 2;
  }
  int start_n = n, start_w = w;
  double tree_ff = 0;
  for (int level = first; level <= s.tree_levels; ++level) {
    n = (n + 1) / 2;
    w = std::min(w + 1, aw);
    if (s.tree_level_registered(level)) {
      for (int g = 0; g < n; ++g) add_sum(f, family, lanes, start_n / n, start_w, 0);
      tree_ff += double(n) * w;
      start_n = n;
      start_w = w;
    }
  }
  // The last stage adds its values and the accumulator (none of it in the fabric when a
  // BLOCK_IN 1 core's accumulate is in the DSP48E1).
  const bool acc_in_dsp = absorb && s.block_in == 1;
  if (!acc_in_dsp && s.dot_width < aw) {
    // The generator sign-extends the dot with a concatenation before the accumulate
    // (gemm_core_rtl.cpp), and alumacc does not merge an add through one: the last tree levels
    // are one sum at the dot's width and the accumulate a two-operand add of its own.
    add_sum(f, family, lanes, start_n, start_w, 0);
    add_sum(f, family, lanes, 1, s.dot_width, aw);
  } else if (!acc_in_dsp) {
    add_sum(f, family, lanes, start_n, start_w, aw);
  }
  at(f, NetlistFeature::kTreeRegFf) = lanes * tree_ff;
  at(f, NetlistFeature::kAccFf) = lanes * aw;
  at(f, NetlistFeature::kOutLaneBits) = lanes * s.out_width;
  // The accumulator operand passes acc_r and acc_q[0..S-1]: a chain of 3 or more becomes one
  // SRL16E per bit (xilinx_srl), a shorter one stays in flip-flops (acc_q[0] in the DSP's C
  // register when the accumulate is absorbed).
  const int chain = 1 + s.tree_registers + 1;
  at(f, NetlistFeature::kDelayFf) = chain < 3 ? lanes * aw * (chain - (acc_in_dsp ? 1 : 0)) : 0;
  at(f, NetlistFeature::kDelaySrl) = chain >= 3 ? lanes * aw : 0;
  return f;
}

NetlistFeatures alu(const DatapathShape& s) {
  NetlistFeatures f{};
  const double lane_bits = double(s.alu_lanes) * s.acc_width;
  // mul2dsp splits an ACC x ACC product truncated to ACC bits into 17-bit signed chunks and drops
  // the partial products at or above bit ACC: k(k+1)/2 DSPs (ACC 16: 1, 32: 3, 64: 10).
  const int k = (s.acc_width + 16) / 17;
  at(f, NetlistFeature::kOne) = 1;
  at(f, NetlistFeature::kAluLaneBits) = lane_bits;
  at(f, NetlistFeature::kAluShiftBits) = lane_bits * ceil_log2(s.acc_width);
  at(f, NetlistFeature::kAluMulDsp) = s.alu_mul ? double(s.alu_lanes) * (k * (k + 1) / 2) : 0;
  at(f, NetlistFeature::kAluPassBits) = s.alu_passes > 1 ? lane_bits * s.alu_passes : 0;
  at(f, NetlistFeature::kAluSinglePassBits) = s.alu_passes == 1 ? lane_bits : 0;
  at(f, NetlistFeature::kAluMultiPassLaneBits) = s.alu_passes > 1 ? lane_bits : 0;
  at(f, NetlistFeature::kAluOperandBits) = 2.0 * s.alu_vector * s.acc_width;
  return f;
}

// One stream of a load or store engine: its element width and buffer address bits.
struct Stream {
  int elem_bits, addr_bits;
};

// `reads`: the streams come from the bus (tauvta_unpack picks an element narrower than a beat
// with a lane multiplexer); the store's writes place it with a load enable per lane
// (tauvta_pack), no multiplexer.
void add_streams(NetlistFeatures& f, int bus_bits, std::initializer_list<Stream> streams,
                 bool reads = true) {
  at(f, NetlistFeature::kBusBits) = bus_bits;
  for (const Stream& st : streams) {
    at(f, NetlistFeature::kElemBits) += st.elem_bits;
    at(f, NetlistFeature::kAddrBits) += st.addr_bits;
    if (st.elem_bits < bus_bits) {
      if (!reads) continue;
      // An R:1 multiplexer per element bit, R = beat / element lanes: one LUT6 takes a 4:1, so
      // R <= 4 is one LUT a bit and wider ones R / 4 (with MUXF7/F8 joining them).
      const int lanes = bus_bits / st.elem_bits;
      at(f, NetlistFeature::kNarrowLaneMuxBits) += double(st.elem_bits) * std::max(1, lanes / 4);
    } else {
      at(f, NetlistFeature::kWideGatherBits) += st.elem_bits - bus_bits;
    }
  }
}

// The pointers and count of `count` queues of `depth` words (tauvta_fifo; the memory is priced
// apart, queue_memory).
void add_queue(NetlistFeatures& f, int depth, int count = 1) {
  const int pw = std::max(1, ceil_log2(depth));
  at(f, NetlistFeature::kQueuePtrBits) += count * (3 * pw + 1);
}

NetlistFeatures accelerator_part(NetlistModule m, const hw::HwConfig& c, const DatapathShape& s) {
  NetlistFeatures f{};
  at(f, NetlistFeature::kOne) = 1;
  const AcceleratorShape a = accelerator_shape(c);
  const int bus = 8 << a.log_bus_bytes;
  auto buf = [&](BufferId id) { return s.buffer(id); };
  switch (m) {
    case NetlistModule::kFetch:
      add_streams(f, bus, {{128, 0}});
      add_queue(f, a.fetch_buffer);
      break;
    case NetlistModule::kLoad:
      add_streams(f, bus, {{buf(BufferId::kInp).width, buf(BufferId::kInp).log_depth},
                           {buf(BufferId::kWgt).width, buf(BufferId::kWgt).log_depth}});
      break;
    case NetlistModule::kComputeCtrl:
      add_streams(f, bus, {{buf(BufferId::kUop).width, buf(BufferId::kUop).log_depth},
                           {buf(BufferId::kAcc).width, buf(BufferId::kAcc).log_depth}});
      at(f, NetlistFeature::kHostBits) = host_width(s);
      break;
    case NetlistModule::kStore:
      add_streams(f, bus, {{buf(BufferId::kOut).width, buf(BufferId::kOut).log_depth}}, false);
      add_queue(f, 4);
      break;
    case NetlistModule::kCmdQueues:
      add_queue(f, a.cmd_queue_depth, 3);
      break;
    case NetlistModule::kTokenQueues:
      at(f, NetlistFeature::kQueuePtrBits) = 4.0 * std::bit_width(unsigned(a.token_queue_depth));
      break;
    case NetlistModule::kControl:
    case NetlistModule::kCompute:
    case NetlistModule::kGemm:
    case NetlistModule::kAlu:
    case NetlistModule::kCount:
      break;
  }
  return f;
}

}  // namespace

NetlistFeatures netlist_features(NetlistModule module, const hw::HwConfig& config,
                                 const DatapathShape& shape, Family family) {
  switch (module) {
    case NetlistModule::kGemm: return gemm(shape, family);
    case NetlistModule::kAlu: return alu(shape);
    default: return accelerator_part(module, config, shape);
  }
}

QueueMemory queue_memory(NetlistModule module, const hw::HwConfig& config, const DatapathShape& shape) {
  const AcceleratorShape a = accelerator_shape(config);
  switch (module) {
    case NetlistModule::kFetch: return {128, ceil_log2(a.fetch_buffer), 1};
    case NetlistModule::kStore: return {shape.buffer(BufferId::kOut).width, 2, 1};
    case NetlistModule::kCmdQueues: return {128, ceil_log2(a.cmd_queue_depth), 3};
    default: return {};
  }
}

}  // namespace tauvta::rtl
