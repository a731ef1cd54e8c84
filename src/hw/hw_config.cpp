#include "hw/hw_config.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/json_parse.h"
#include "hw/isa_layout.h"

namespace tauvta::hw {
namespace {

using nlohmann::json;

// One integer key of vta_config.json with its allowed range.
struct IntKey {
  const char* name;
  int HwConfig::*field;
  int lo, hi;
  const char* meaning;
};

const std::vector<IntKey>& int_keys() {
  static const std::vector<IntKey> keys = {
      {"LOG_INP_WIDTH", &HwConfig::log_inp_width, 0, 4, "input bits: 1, 2, 4, 8 or 16"},
      {"LOG_WGT_WIDTH", &HwConfig::log_wgt_width, 0, 4, "weight bits: 1, 2, 4, 8 or 16"},
      {"LOG_ACC_WIDTH", &HwConfig::log_acc_width, 4, 6, "accumulator bits: 16, 32 or 64"},
      {"LOG_BATCH", &HwConfig::log_batch, 0, 6, "GEMM batch rows"},
      {"LOG_BLOCK_IN", &HwConfig::log_block_in, 0, 8, "GEMM input channels"},
      {"LOG_BLOCK_OUT", &HwConfig::log_block_out, 0, 8, "GEMM output channels"},
      {"LOG_UOP_BUFF_SIZE", &HwConfig::log_uop_buff_size, 2, 24, "micro-op buffer bytes"},
      {"LOG_INP_BUFF_SIZE", &HwConfig::log_inp_buff_size, 3, 26, "input buffer bytes"},
      {"LOG_WGT_BUFF_SIZE", &HwConfig::log_wgt_buff_size, 3, 26, "weight buffer bytes"},
      {"LOG_ACC_BUFF_SIZE", &HwConfig::log_acc_buff_size, 3, 26, "accumulator buffer bytes"},
  };
  return keys;
}

struct TimingIntKey {
  const char* name;
  int TimingParams::*field;
  int lo, hi;
};

const std::vector<TimingIntKey>& timing_int_keys() {
  static const std::vector<TimingIntKey> keys = {
      {"LOG_BUS_WIDTH", &TimingParams::log_bus_width, 3, 12},
      {"DRAM_LATENCY_CYCLES", &TimingParams::dram_latency_cycles, 0, 100000},
      {"WRITE_LATENCY_CYCLES", &TimingParams::write_latency_cycles, 0, 100000},
      {"MAX_BURST_BEATS", &TimingParams::max_burst_beats, 1, 256},
      {"MASTER_OUTSTANDING", &TimingParams::master_outstanding, 1, 1024},
      {"PORT_READ_ACCEPTANCE", &TimingParams::port_read_acceptance, 1, 1024},
      {"PORT_WRITE_ACCEPTANCE", &TimingParams::port_write_acceptance, 1, 1024},
      {"BURST_OVERHEAD_CYCLES", &TimingParams::burst_overhead_cycles, 0, 100000},
      {"ROW_OVERHEAD_CYCLES", &TimingParams::row_overhead_cycles, 0, 100000},
      {"CMD_QUEUE_DEPTH", &TimingParams::cmd_queue_depth, 1, 1 << 20},
      {"TOKEN_QUEUE_DEPTH", &TimingParams::token_queue_depth, 1, 1 << 20},
      {"ALU_II", &TimingParams::alu_ii, 1, 1024},
      {"GEMM_II", &TimingParams::gemm_ii, 1, 1024},
      {"GEMM_PIPELINE_DEPTH", &TimingParams::gemm_pipeline_depth, 0, 100000},
      {"ALU_PIPELINE_DEPTH", &TimingParams::alu_pipeline_depth, 0, 100000},
      {"INSN_OVERHEAD_CYCLES", &TimingParams::insn_overhead_cycles, 0, 100000},
  };
  return keys;
}

int read_int(const json& v, const std::string& source, const std::string& key) {
  if (!v.is_number_integer()) {
    throw Error(fmt::format("{}: key {} must be an integer, got {}", source, key, v.dump()));
  }
  // get<int>() would silently wrap a huge value into range.
  if (v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t(INT32_MAX)
                             : (v.get<int64_t>() < INT32_MIN || v.get<int64_t>() > INT32_MAX)) {
    throw Error(fmt::format("{}: key {} = {} is out of range", source, key, v.dump()));
  }
  return v.get<int>();
}

bool read_bool(const json& v, const std::string& source, const std::string& key) {
  if (!v.is_boolean()) throw Error(fmt::format("{}: {} must be true or false, got {}", source, key, v.dump()));
  return v.get<bool>();
}

double read_number(const json& v, const std::string& source, const std::string& key) {
  if (!v.is_number()) {
    throw Error(fmt::format("{}: key {} must be a number, got {}", source, key, v.dump()));
  }
  return v.get<double>();
}

void check_range(const std::string& source, const std::string& key, int value, int lo, int hi,
                 const char* meaning) {
  if (value < lo || value > hi) {
    throw Error(fmt::format("{}: {} = {} is out of range [{}, {}] ({})", source, key, value, lo,
                            hi, meaning));
  }
}

// The TIMING keys an implementation determines, stated or derived (datapath_timing).
struct DerivedKey {
  const char* name;
  int TimingParams::*field;
  int DatapathTiming::*derived;
  bool depth;  // a fill/drain depth: unstated, VTA HLS's depth unless the datapath is deeper
};
constexpr DerivedKey kDerivedKeys[] = {
    {"GEMM_II", &TimingParams::gemm_ii, &DatapathTiming::gemm_ii, false},
    {"ALU_II", &TimingParams::alu_ii, &DatapathTiming::alu_ii, false},
    {"GEMM_PIPELINE_DEPTH", &TimingParams::gemm_pipeline_depth, &DatapathTiming::gemm_pipeline_depth, true},
    {"ALU_PIPELINE_DEPTH", &TimingParams::alu_pipeline_depth, &DatapathTiming::alu_pipeline_depth, true},
    {"INSN_OVERHEAD_CYCLES", &TimingParams::insn_overhead_cycles, &DatapathTiming::insn_overhead, false},
};

// Reads TIMING into `c`; `stated` collects the keys given. ALU_LANES, ALU_MUL and DATAFLOW were
// TIMING keys before the IMPLEMENTATION object held them: still read there, into c.impl.
void parse_timing(const json& t, const std::string& source, HwConfig& c, std::vector<std::string>& stated) {
  if (!t.is_object()) throw Error(fmt::format("{}: TIMING must be an object", source));
  TimingParams& out = c.timing;
  for (const auto& [key, value] : t.items()) {
    const std::string path = "TIMING." + key;
    const std::string& key_name = key;  // lambdas cannot capture structured bindings before clang 16
    stated.push_back(key);
    auto it = std::find_if(timing_int_keys().begin(), timing_int_keys().end(),
                           [&](const TimingIntKey& k) { return key_name == k.name; });
    if (it != timing_int_keys().end()) {
      out.*(it->field) = read_int(value, source, path);
    } else if (key == "CLOCK_MHZ") {
      out.clock_mhz = read_number(value, source, path);
    } else if (key == "DRAM_BANDWIDTH_GBPS") {
      out.dram_bandwidth_gbps = read_number(value, source, path);
    } else if (key == "ALU_MUL") {
      c.impl.alu_mul = read_bool(value, source, path);
    } else if (key == "DATAFLOW") {
      c.impl.dataflow = read_bool(value, source, path);
    } else if (key == "ALU_LANES") {
      c.impl.alu_lanes = read_int(value, source, path);
    } else {
      throw Error(fmt::format("{}: unknown key {}", source, path));
    }
  }
}

// The derived TIMING keys: those not in `stated` follow from the implementation; a stated one may
// be slower than the datapath (a measured bitstream, a what-if) but not faster.
void derive_timing(HwConfig& c, const std::vector<std::string>& stated, const std::string& source) {
  const DatapathTiming d = datapath_timing(c.impl, c.block_in(), c.batch() * c.block_out());
  for (const DerivedKey& k : kDerivedKeys) {
    const int derived = d.*(k.derived);
    const bool given = std::find(stated.begin(), stated.end(), k.name) != stated.end();
    int& value = c.timing.*(k.field);
    if (!given) {
      value = k.depth ? std::max(kHlsPipelineDepth, derived) : derived;
    } else if (value < derived) {
      throw Error(fmt::format(
          "{}: TIMING.{} = {} is faster than the datapath its IMPLEMENTATION builds ({}: {}); leave the key "
          "out to derive it, or change the IMPLEMENTATION",
          source, k.name, value, derived,
          k.depth ? fmt::format("TREE_LEVELS_PER_STAGE {}, ALU_LANES {}",
                                c.impl.tree_levels_per_stage == Implementation::kTreeVta
                                    ? std::string("vta")
                                    : std::to_string(c.impl.tree_levels_per_stage),
                                c.impl.alu_lanes)
                  : fmt::format("ACC_READ_PORTS {}, PIPELINE {}, INLINE {}", c.impl.acc_read_ports,
                                c.impl.pipeline, c.impl.inline_modules)));
    }
  }
}

}  // namespace

HwConfig HwConfig::from_json(const json& j, const std::string& source) {
  if (!j.is_object()) throw Error(fmt::format("{}: a hardware config must be a JSON object", source));
  HwConfig c;
  bool has_block = false, has_in = false, has_out = false;
  const json* timing = nullptr;  // read after IMPLEMENTATION, whose keys the legacy ones override
  for (const auto& [key, value] : j.items()) {
    if (key == "TARGET" || key == "HW_VER") {
      if (!value.is_string()) {
        throw Error(fmt::format("{}: key {} must be a string, got {}", source, key, value.dump()));
      }
      (key == "TARGET" ? c.target : c.hw_ver) = value.get<std::string>();
    } else if (key == "LOG_BLOCK") {
      has_block = true;
      c.log_block_in = c.log_block_out = read_int(value, source, key);
      check_range(source, key, c.log_block_in, 0, 8, "GEMM block size");
    } else if (key == "TIMING") {
      timing = &value;
    } else if (key == "IMPLEMENTATION") {
      parse_implementation(value, source, c.impl);
    } else if (key == "NAME" || key == "PEAK_GOPS") {
      // Derived values written by to_json(); recomputed, not trusted.
    } else {
      const std::string& key_name = key;  // lambdas cannot capture structured bindings before clang 16
      auto it = std::find_if(int_keys().begin(), int_keys().end(),
                             [&](const IntKey& k) { return key_name == k.name; });
      if (it == int_keys().end()) throw Error(fmt::format("{}: unknown key {}", source, key));
      c.*(it->field) = read_int(value, source, key);
      has_in |= key == "LOG_BLOCK_IN";
      has_out |= key == "LOG_BLOCK_OUT";
    }
  }
  if (has_block && (has_in || has_out)) {
    const int block = j.at("LOG_BLOCK").get<int>();
    if ((has_in && j.at("LOG_BLOCK_IN").get<int>() != block) ||
        (has_out && j.at("LOG_BLOCK_OUT").get<int>() != block)) {
      throw Error(fmt::format(
          "{}: LOG_BLOCK = {} contradicts LOG_BLOCK_IN/LOG_BLOCK_OUT; give one or the other",
          source, block));
    }
  }
  if (has_in != has_out && !has_block) {
    throw Error(fmt::format("{}: LOG_BLOCK_IN and LOG_BLOCK_OUT must be given together", source));
  }
  std::vector<std::string> stated;
  if (timing) parse_timing(*timing, source, c, stated);
  hw::validate(c.impl, source);
  c.validate(source);  // before deriving: the block sizes must be in range
  derive_timing(c, stated, source);
  c.validate(source);
  return c;
}

HwConfig HwConfig::with_timing(const json& t, const std::string& source) const {
  HwConfig c = *this;
  std::vector<std::string> stated;
  parse_timing(t, source, c, stated);
  hw::validate(c.impl, source);
  // Keys this config had keep their values: only what `t` states is new.
  for (const DerivedKey& k : kDerivedKeys) stated.push_back(k.name);
  derive_timing(c, stated, source);
  c.validate(source);
  return c;
}

HwConfig HwConfig::with_implementation(const Implementation& built_as, const std::string& source) const {
  HwConfig c = *this;
  c.impl = built_as;
  hw::validate(c.impl, source);
  derive_timing(c, {}, source);
  c.validate(source);
  return c;
}

HwConfig HwConfig::load(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open hardware config", path.string()));
  json j;
  try {
    j = parse_json_bounded(path.string(), in);
  } catch (const json::parse_error& e) {
    throw Error(fmt::format("{}: invalid JSON: {}", path.string(), e.what()));
  }
  return from_json(j, path.string());
}

void HwConfig::validate(const std::string& source) const {
  for (const IntKey& k : int_keys()) check_range(source, k.name, this->*(k.field), k.lo, k.hi, k.meaning);
  for (const TimingIntKey& k : timing_int_keys()) {
    check_range(source, std::string("TIMING.") + k.name, timing.*(k.field), k.lo, k.hi,
                "timing parameter");
  }
  if (!(timing.clock_mhz > 0 && timing.clock_mhz <= 10000)) {
    throw Error(fmt::format("{}: TIMING.CLOCK_MHZ = {} is out of range (0, 10000]", source,
                            timing.clock_mhz));
  }
  if (!(timing.dram_bandwidth_gbps > 0 && timing.dram_bandwidth_gbps <= 100000)) {
    throw Error(fmt::format("{}: TIMING.DRAM_BANDWIDTH_GBPS = {} is out of range (0, 100000]",
                            source, timing.dram_bandwidth_gbps));
  }
  // Every element must be whole bytes: the hardware addresses SRAM and DRAM in elements.
  auto whole_bytes = [&](const char* what, int log_bits, const char* keys) {
    if (log_bits < 3) {
      throw Error(fmt::format("{}: one {} element is {} bits, not a whole byte ({} too small)",
                              source, what, 1 << log_bits, keys));
    }
  };
  whole_bytes("input", log_batch + log_block_in + log_inp_width,
              "LOG_BATCH + LOG_BLOCK_IN + LOG_INP_WIDTH");
  whole_bytes("weight", log_block_out + log_block_in + log_wgt_width,
              "LOG_BLOCK_OUT + LOG_BLOCK_IN + LOG_WGT_WIDTH");
  whole_bytes("output", log_batch + log_block_out + log_inp_width,
              "LOG_BATCH + LOG_BLOCK_OUT + LOG_INP_WIDTH");
  auto depth_ok = [&](const char* buffer, const char* key, int log_size, int log_depth,
                      int elem_bytes) {
    if (log_depth < 0) {
      throw Error(fmt::format("{}: {} = {} gives a {} buffer of {} bytes, smaller than one element "
                              "({} bytes)",
                              source, key, log_size, buffer, 1 << log_size, elem_bytes));
    }
    // hw_spec.h declares index fields of log2(depth) bits; C has no named 0-bit bit-field.
    if (log_depth < 1) {
      throw Error(fmt::format("{}: {} = {} gives a {} buffer of 1 element ({} bytes); VTA needs at "
                              "least 2 (its index fields would be 0 bits wide)",
                              source, key, log_size, buffer, elem_bytes));
    }
    if (log_depth > 16) {
      throw Error(fmt::format("{}: {} = {} gives a {} buffer of 2^{} elements; LOAD/STORE "
                              "sram_base is 16 bits, so at most 2^16",
                              source, key, log_size, buffer, log_depth));
    }
  };
  depth_ok("micro-op", "LOG_UOP_BUFF_SIZE", log_uop_buff_size, log_uop_depth(), 4);
  depth_ok("input", "LOG_INP_BUFF_SIZE", log_inp_buff_size, log_inp_depth(), inp_elem_bytes());
  depth_ok("weight", "LOG_WGT_BUFF_SIZE", log_wgt_buff_size, log_wgt_depth(), wgt_elem_bytes());
  depth_ok("accumulator", "LOG_ACC_BUFF_SIZE", log_acc_buff_size, log_acc_depth(),
           acc_elem_bytes());
  // The encoding constraints of docs/vta_isa.md: building the layout throws if a format does not fit.
  IsaLayout::check_encodable(*this, source);
}

double HwConfig::dram_bytes_per_cycle() const {
  const double dram = timing.dram_bandwidth_gbps * 1000.0 / timing.clock_mhz;  // bytes per cycle
  return std::min<double>(bus_bytes(), dram);
}

namespace {

int log2_exact(const std::string& name, const std::string& part, int64_t v) {
  if (v < 1 || (v & (v - 1)) != 0) {
    throw Error(fmt::format("config name '{}': {} {} is not a power of two", name, part, v));
  }
  int k = 0;
  while ((int64_t(1) << k) < v) ++k;
  return k;
}

int64_t name_number(const std::string& name, const std::string& part, const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) {
    throw Error(fmt::format("config name '{}': {} '{}' is not a number", name, part, text));
  }
  return std::stoll(text);
}

}  // namespace

HwConfig HwConfig::from_name(const std::string& name) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (true) {
    const size_t u = name.find('_', at);
    parts.push_back(name.substr(at, u == std::string::npos ? std::string::npos : u - at));
    if (u == std::string::npos) break;
    at = u + 1;
  }
  HwConfig c;
  if (parts.size() == 7) {  // a target prefix
    c.target = parts[0];
    parts.erase(parts.begin());
    // A board name (pynq, de10nano, ultra96, ...): it is written into JSON reports and artifacts,
    // so arbitrary bytes (not even UTF-8) are refused here rather than when writing them.
    const bool ok = !c.target.empty() && std::all_of(c.target.begin(), c.target.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.';
    });
    if (!ok) {
      throw Error(fmt::format("config name '{}': target '{}' is not a board name (letters, digits, '-' and '.')",
                              name, c.target));
    }
  }
  if (parts.size() != 6) {
    throw Error(fmt::format("config name '{}': expected BATCHxBLOCK_iIwWaA_UOP_INP_WGT_ACC, e.g. "
                            "1x16_i8w8a32_15_15_18_17",
                            name));
  }
  std::vector<std::string> dims;
  for (size_t a = 0;;) {
    const size_t x = parts[0].find('x', a);
    dims.push_back(parts[0].substr(a, x == std::string::npos ? std::string::npos : x - a));
    if (x == std::string::npos) break;
    a = x + 1;
  }
  if (dims.size() != 2 && dims.size() != 3) {
    throw Error(fmt::format("config name '{}': shape '{}' is not BATCHxBLOCK or BATCHxBLOCK_INxBLOCK_OUT", name, parts[0]));
  }
  c.log_batch = log2_exact(name, "batch", name_number(name, "batch", dims[0]));
  c.log_block_in = log2_exact(name, "block", name_number(name, "block", dims[1]));
  c.log_block_out = dims.size() == 3 ? log2_exact(name, "block_out", name_number(name, "block_out", dims[2])) : c.log_block_in;
  const std::string& w = parts[1];
  const size_t iw = w.find('w'), ia = w.find('a');
  if (w.empty() || w[0] != 'i' || iw == std::string::npos || ia == std::string::npos || ia < iw) {
    throw Error(fmt::format("config name '{}': widths '{}' are not iIwWaA, e.g. i8w8a32", name, w));
  }
  c.log_inp_width = log2_exact(name, "input width", name_number(name, "input width", w.substr(1, iw - 1)));
  c.log_wgt_width = log2_exact(name, "weight width", name_number(name, "weight width", w.substr(iw + 1, ia - iw - 1)));
  c.log_acc_width = log2_exact(name, "accumulator width", name_number(name, "accumulator width", w.substr(ia + 1)));
  c.log_uop_buff_size = int(name_number(name, "LOG_UOP_BUFF_SIZE", parts[2]));
  c.log_inp_buff_size = int(name_number(name, "LOG_INP_BUFF_SIZE", parts[3]));
  c.log_wgt_buff_size = int(name_number(name, "LOG_WGT_BUFF_SIZE", parts[4]));
  c.log_acc_buff_size = int(name_number(name, "LOG_ACC_BUFF_SIZE", parts[5]));
  c.validate("config name '" + name + "'");
  return c;
}

std::string HwConfig::name() const {
  const std::string shape = log_block_in == log_block_out
                                ? fmt::format("{}x{}", batch(), block_in())
                                : fmt::format("{}x{}x{}", batch(), block_in(), block_out());
  return fmt::format("{}_i{}w{}a{}_{}_{}_{}_{}", shape, inp_width(), wgt_width(), acc_width(),
                     log_uop_buff_size, log_inp_buff_size, log_wgt_buff_size, log_acc_buff_size);
}

json HwConfig::to_json() const {
  json j;
  j["TARGET"] = target;
  j["HW_VER"] = hw_ver;
  for (const IntKey& k : int_keys()) j[k.name] = this->*(k.field);
  // VTA's own vta_config.json has one LOG_BLOCK; keep that form whenever it can express the config.
  if (log_block_in == log_block_out) {
    j.erase("LOG_BLOCK_IN");
    j.erase("LOG_BLOCK_OUT");
    j["LOG_BLOCK"] = log_block_in;
  }
  json t;
  t["CLOCK_MHZ"] = timing.clock_mhz;
  t["DRAM_BANDWIDTH_GBPS"] = timing.dram_bandwidth_gbps;
  for (const TimingIntKey& k : timing_int_keys()) t[k.name] = timing.*(k.field);
  j["TIMING"] = t;
  j["IMPLEMENTATION"] = hw::to_json(impl);
  j["NAME"] = name();
  j["PEAK_GOPS"] = peak_gops();
  return j;
}

bool operator==(const TimingParams& a, const TimingParams& b) {
  for (const TimingIntKey& k : timing_int_keys()) {
    if (a.*(k.field) != b.*(k.field)) return false;
  }
  return a.clock_mhz == b.clock_mhz && a.dram_bandwidth_gbps == b.dram_bandwidth_gbps;
}

bool operator==(const HwConfig& a, const HwConfig& b) {
  for (const IntKey& k : int_keys()) {
    if (a.*(k.field) != b.*(k.field)) return false;
  }
  return a.target == b.target && a.hw_ver == b.hw_ver && a.timing == b.timing && a.impl == b.impl;
}

}  // namespace tauvta::hw
