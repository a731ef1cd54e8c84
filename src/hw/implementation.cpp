#include "hw/implementation.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace tauvta::hw {

using nlohmann::json;

const char* binding_name(ProductBinding b) {
  switch (b) {
    case ProductBinding::kAuto: return "auto";
    case ProductBinding::kDsp: return "dsp";
    case ProductBinding::kLut: return "lut";
    case ProductBinding::kHls: return "hls";
  }
  return "?";
}

ProductBinding parse_binding(const std::string& text, const std::string& what) {
  for (ProductBinding b : {ProductBinding::kAuto, ProductBinding::kDsp, ProductBinding::kLut, ProductBinding::kHls}) {
    if (text == binding_name(b)) return b;
  }
  throw Error(fmt::format("{}: product binding '{}' is not one of hls, auto, dsp, lut", what, text));
}

bool binds_to_dsp(ProductBinding b, int inp_width, int wgt_width) {
  switch (b) {
    case ProductBinding::kDsp: return true;
    case ProductBinding::kLut: return false;
    case ProductBinding::kAuto: return auto_binds_to_dsp(inp_width, wgt_width);
    case ProductBinding::kHls: return hls_binds_to_dsp(inp_width, wgt_width);
  }
  return false;
}

namespace {

constexpr std::array<const char*, 5> kArrayKindNames = {"none", "partition-cyclic", "partition-block",
                                                        "reshape-cyclic", "reshape-block"};

int impl_int(const json& v, const std::string& source, const std::string& key, int lo, int hi) {
  if (!v.is_number_integer()) {
    throw Error(fmt::format("{}: {} must be an integer, got {}", source, key, v.dump()));
  }
  const bool in = v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t(std::max(hi, 0))
                                         : v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
  if (!in) throw Error(fmt::format("{}: {} = {} is out of range [{}, {}]", source, key, v.dump(), lo, hi));
  return v.get<int>();
}

bool impl_bool(const json& v, const std::string& source, const std::string& key) {
  if (!v.is_boolean()) throw Error(fmt::format("{}: {} must be true or false, got {}", source, key, v.dump()));
  return v.get<bool>();
}

std::string impl_string(const json& v, const std::string& source, const std::string& key) {
  if (!v.is_string()) throw Error(fmt::format("{}: {} must be a string, got {}", source, key, v.dump()));
  return v.get<std::string>();
}

void parse_acc_array(const json& j, const std::string& source, AccArray& a) {
  const std::string at = "IMPLEMENTATION.ACC_ARRAY";
  if (!j.is_object()) throw Error(fmt::format("{}: {} must be an object", source, at));
  for (const auto& [key, value] : j.items()) {
    const std::string path = at + "." + key;
    if (key == "KIND") {
      const std::string k = impl_string(value, source, path);
      auto it = std::find(kArrayKindNames.begin(), kArrayKindNames.end(), k);
      if (it == kArrayKindNames.end()) {
        throw Error(fmt::format("{}: {} = \"{}\" is not one of none, partition-cyclic, partition-block, "
                                "reshape-cyclic, reshape-block",
                                source, path, k));
      }
      a.kind = ArrayKind(it - kArrayKindNames.begin());
    } else if (key == "DIM") {
      a.dim = impl_int(value, source, path, 1, 2);
    } else if (key == "FACTOR") {
      a.factor = impl_int(value, source, path, 1, 1 << 16);
    } else {
      throw Error(fmt::format("{}: unknown key {} (KIND, DIM, FACTOR)", source, path));
    }
  }
}

}  // namespace

const char* array_kind_name(ArrayKind k) {
  const size_t i = size_t(k);
  return i < kArrayKindNames.size() ? kArrayKindNames[i] : "?";
}

void parse_implementation(const json& j, const std::string& source, Implementation& o) {
  if (!j.is_object()) throw Error(fmt::format("{}: IMPLEMENTATION must be an object", source));
  for (const auto& [key, value] : j.items()) {
    const std::string path = "IMPLEMENTATION." + key;
    if (key == "BINDING") {
      o.binding = parse_binding(impl_string(value, source, path), source + ": " + path);
    } else if (key == "DSP_LIMIT") {
      if (value.is_string()) {
        if (value.get<std::string>() != "board") {
          throw Error(fmt::format("{}: {} must be \"board\" or a number of products, got {}", source, path,
                                  value.dump()));
        }
        o.dsp_limit = Implementation::kDspLimitBoard;
      } else {
        o.dsp_limit = impl_int(value, source, path, 0, 1 << 24);
      }
    } else if (key == "TREE_LEVELS_PER_STAGE") {
      if (value.is_string()) {
        if (value.get<std::string>() != "vta") {
          throw Error(fmt::format("{}: {} must be \"vta\" or a number of adder levels, got {}", source, path,
                                  value.dump()));
        }
        o.tree_levels_per_stage = Implementation::kTreeVta;
      } else {
        o.tree_levels_per_stage = impl_int(value, source, path, 0, 16);
      }
    } else if (key == "ACC_READ_PORTS") {
      o.acc_read_ports = impl_int(value, source, path, 1, 2);
    } else if (key == "ALU_LANES") {
      o.alu_lanes = impl_int(value, source, path, 0, 1 << 16);
    } else if (key == "ALU_MUL") {
      o.alu_mul = impl_bool(value, source, path);
    } else if (key == "PIPELINE") {
      o.pipeline = impl_bool(value, source, path);
    } else if (key == "DATAFLOW") {
      o.dataflow = impl_bool(value, source, path);
    } else if (key == "INLINE") {
      o.inline_modules = impl_bool(value, source, path);
    } else if (key == "HLS_MHZ") {
      if (!value.is_number()) throw Error(fmt::format("{}: {} must be a number, got {}", source, path, value.dump()));
      o.hls_mhz = value.get<double>();
    } else if (key == "ACC_ARRAY") {
      parse_acc_array(value, source, o.acc_array);
    } else if (key == "SYN_STRATEGY") {
      o.syn_strategy = impl_int(value, source, path, 0, 7);
    } else if (key == "IMPL_STRATEGY") {
      o.impl_strategy = impl_int(value, source, path, 0, 31);
    } else {
      throw Error(fmt::format("{}: unknown key {} (BINDING, DSP_LIMIT, TREE_LEVELS_PER_STAGE, ACC_READ_PORTS, "
                              "ALU_LANES, ALU_MUL, PIPELINE, DATAFLOW, INLINE, HLS_MHZ, ACC_ARRAY, "
                              "SYN_STRATEGY, IMPL_STRATEGY)",
                              source, path));
    }
  }
  validate(o, source);
}

void validate(const Implementation& o, const std::string& source) {
  if (o.dsp_limit < Implementation::kDspLimitBoard || o.dsp_limit > (1 << 24)) {
    throw Error(fmt::format("{}: IMPLEMENTATION.DSP_LIMIT = {} is out of range [0, 2^24]", source, o.dsp_limit));
  }
  if (o.tree_levels_per_stage < Implementation::kTreeVta || o.tree_levels_per_stage > 16) {
    throw Error(fmt::format("{}: IMPLEMENTATION.TREE_LEVELS_PER_STAGE = {} is out of range [0, 16]", source,
                            o.tree_levels_per_stage));
  }
  if (o.acc_read_ports != 1 && o.acc_read_ports != 2) {
    throw Error(fmt::format("{}: IMPLEMENTATION.ACC_READ_PORTS = {} must be 1 or 2", source, o.acc_read_ports));
  }
  if (o.alu_lanes < 0 || o.alu_lanes > (1 << 16)) {
    throw Error(fmt::format("{}: IMPLEMENTATION.ALU_LANES = {} is out of range [0, 65536]", source, o.alu_lanes));
  }
  if (!(o.hls_mhz >= 0 && o.hls_mhz <= 10000)) {
    throw Error(fmt::format("{}: IMPLEMENTATION.HLS_MHZ = {} is out of range [0, 10000]", source, o.hls_mhz));
  }
  const AccArray& a = o.acc_array;
  if (a.kind != ArrayKind::kNone && (a.factor < 2 || (a.factor & (a.factor - 1)) != 0)) {
    throw Error(fmt::format("{}: IMPLEMENTATION.ACC_ARRAY.FACTOR = {} must be a power of two of at least 2",
                            source, a.factor));
  }
  if (a.dim != 1 && a.dim != 2) {
    throw Error(fmt::format("{}: IMPLEMENTATION.ACC_ARRAY.DIM = {} must be 1 or 2", source, a.dim));
  }
}

json to_json(const Implementation& o) {
  json j;
  j["BINDING"] = binding_name(o.binding);
  if (o.dsp_limit == Implementation::kDspLimitBoard) {
    j["DSP_LIMIT"] = "board";
  } else {
    j["DSP_LIMIT"] = o.dsp_limit;
  }
  if (o.tree_levels_per_stage == Implementation::kTreeVta) {
    j["TREE_LEVELS_PER_STAGE"] = "vta";
  } else {
    j["TREE_LEVELS_PER_STAGE"] = o.tree_levels_per_stage;
  }
  j["ACC_READ_PORTS"] = o.acc_read_ports;
  j["ALU_LANES"] = o.alu_lanes;
  j["ALU_MUL"] = o.alu_mul;
  j["PIPELINE"] = o.pipeline;
  j["DATAFLOW"] = o.dataflow;
  j["INLINE"] = o.inline_modules;
  j["HLS_MHZ"] = o.hls_mhz;
  j["ACC_ARRAY"] = {{"KIND", array_kind_name(o.acc_array.kind)},
                    {"DIM", o.acc_array.dim},
                    {"FACTOR", o.acc_array.factor}};
  j["SYN_STRATEGY"] = o.syn_strategy;
  j["IMPL_STRATEGY"] = o.impl_strategy;
  return j;
}

namespace {
int tree_levels(int block_in) {
  int levels = 0;
  while ((1 << levels) < block_in) ++levels;
  return levels;
}
}  // namespace

int tree_levels_per_stage(const Implementation& impl, int block_in) {
  if (impl.tree_levels_per_stage != Implementation::kTreeVta) return impl.tree_levels_per_stage;
  const int levels = tree_levels(block_in);
  return levels >= 2 ? levels - 1 : 0;
}

DatapathTiming datapath_timing(const Implementation& impl, int block_in, int alu_vector) {
  DatapathTiming t;
  const int levels = tree_levels(block_in);
  const int per = tree_levels_per_stage(impl, block_in);
  // Registers after every `per` levels and never after the last: the accumulate stage registers
  // the tree's result together with the accumulator add.
  t.tree_registers = per == 0 || levels == 0 ? 0 : (levels - 1) / per;
  // Operands registered, products registered, the registered tree levels, accumulate-and-register.
  t.gemm_latency = 1 + 1 + t.tree_registers + 1;
  t.alu_lanes = impl.alu_lanes == 0 ? alu_vector : std::min(impl.alu_lanes, alu_vector);
  t.alu_passes = (alu_vector + t.alu_lanes - 1) / t.alu_lanes;
  // A whole vector: operands, per-operation results, select (three registers). In passes: the held
  // vector goes through the lanes one registered pass at a time.
  t.alu_latency = t.alu_passes == 1 ? 3 : t.alu_passes + 1;
  const int read_cycles = impl.acc_read_ports == 2 ? 1 : 2;
  t.alu_issue_cycles = std::max(read_cycles, t.alu_passes);
  // The timing model charges passes x ALU_II per ALU micro-op: ALU_II is the read cycles with one
  // pass, and 1 once passes dominate (the reads overlap the passes).
  t.gemm_pipeline_depth = t.gemm_latency;
  t.alu_pipeline_depth = t.alu_latency;
  if (impl.pipeline) {
    t.gemm_ii = 1;
    t.alu_ii = t.alu_passes > 1 ? 1 : read_cycles;
  } else {
    // Not pipelined: a micro-op goes through the whole datapath before the next one starts.
    t.gemm_ii = t.gemm_latency;
    t.alu_ii = t.alu_latency;
  }
  // A sub-module that is not inlined adds its start/done handshake to every instruction.
  t.insn_overhead = 1 + (impl.inline_modules ? 0 : 1);
  return t;
}

}  // namespace tauvta::hw
