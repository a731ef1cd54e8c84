// HwConfig: the messages invalid configs produce, derived sizes and names, the preset files and
// the JSON round trip.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "hw/hw_config.h"
#include "hw_test_util.h"

namespace tauvta::hw {
namespace {

using nlohmann::json;

json default_json() {
  return json::parse(R"({"TARGET": "pynq", "HW_VER": "0.0.2", "LOG_INP_WIDTH": 3,
    "LOG_WGT_WIDTH": 3, "LOG_ACC_WIDTH": 5, "LOG_BATCH": 0, "LOG_BLOCK": 4,
    "LOG_UOP_BUFF_SIZE": 15, "LOG_INP_BUFF_SIZE": 15, "LOG_WGT_BUFF_SIZE": 18,
    "LOG_ACC_BUFF_SIZE": 17})");
}

std::string config_error(const json& j) {
  try {
    HwConfig::from_json(j, "test.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

json with(json j, const std::string& key, json value) {
  j[key] = std::move(value);
  return j;
}

TEST(HwConfig, DefaultDerivedSizes) {
  const HwConfig c = HwConfig::from_json(default_json());
  EXPECT_EQ(c.name(), "1x16_i8w8a32_15_15_18_17");
  EXPECT_EQ(c.inp_elem_bytes(), 16);
  EXPECT_EQ(c.wgt_elem_bytes(), 256);
  EXPECT_EQ(c.acc_elem_bytes(), 64);
  EXPECT_EQ(c.out_elem_bytes(), 16);
  EXPECT_EQ(c.log_uop_depth(), 13);
  EXPECT_EQ(c.log_inp_depth(), 11);
  EXPECT_EQ(c.log_wgt_depth(), 10);
  EXPECT_EQ(c.log_acc_depth(), 11);
  EXPECT_EQ(c.out_depth(), 2048u);
  EXPECT_DOUBLE_EQ(c.peak_gops(), 51.2);
  EXPECT_EQ(c.bus_bytes(), 8);
}

TEST(HwConfig, Names) {
  HwConfig c;
  c.log_block_out = 5;
  EXPECT_EQ(c.name(), "1x16x32_i8w8a32_15_15_18_17");
  c = HwConfig{};
  c.log_batch = 2;
  c.log_block_in = c.log_block_out = 3;
  c.log_inp_width = c.log_wgt_width = 2;
  EXPECT_EQ(c.name(), "4x8_i4w4a32_15_15_18_17");
}

TEST(HwConfig, MustFailMessages) {
  const json d = default_json();
  EXPECT_EQ(config_error(with(d, "LOG_INP_WIDTH", 5)),
            "test.json: LOG_INP_WIDTH = 5 is out of range [0, 4] (input bits: 1, 2, 4, 8 or 16)");
  EXPECT_EQ(config_error(with(d, "LOG_ACC_WIDTH", 3)),
            "test.json: LOG_ACC_WIDTH = 3 is out of range [4, 6] (accumulator bits: 16, 32 or 64)");
  EXPECT_EQ(config_error(with(d, "LOG_BATCH", "0")),
            "test.json: key LOG_BATCH must be an integer, got \"0\"");
  EXPECT_EQ(config_error(with(d, "LOG_BATCH", 4294967296ull)),
            "test.json: key LOG_BATCH = 4294967296 is out of range");
  EXPECT_EQ(config_error(with(d, "LOG_BATCHES", 0)), "test.json: unknown key LOG_BATCHES");
  EXPECT_EQ(config_error(with(d, "TIMING", json{{"CLOCK", 100}})),
            "test.json: unknown key TIMING.CLOCK");
  EXPECT_EQ(config_error(with(d, "TIMING", json{{"CLOCK_MHZ", 0}})),
            "test.json: TIMING.CLOCK_MHZ = 0 is out of range (0, 10000]");
  EXPECT_EQ(config_error(with(d, "LOG_BLOCK_IN", 3)),
            "test.json: LOG_BLOCK = 4 contradicts LOG_BLOCK_IN/LOG_BLOCK_OUT; give one or the "
            "other");
  json only_in = d;
  only_in.erase("LOG_BLOCK");
  only_in["LOG_BLOCK_IN"] = 4;
  EXPECT_EQ(config_error(only_in),
            "test.json: LOG_BLOCK_IN and LOG_BLOCK_OUT must be given together");
  EXPECT_EQ(config_error(with(with(d, "LOG_INP_WIDTH", 0), "LOG_BLOCK", 1)),
            "test.json: one input element is 2 bits, not a whole byte (LOG_BATCH + LOG_BLOCK_IN + "
            "LOG_INP_WIDTH too small)");
  EXPECT_EQ(config_error(with(d, "LOG_INP_BUFF_SIZE", 3)),
            "test.json: LOG_INP_BUFF_SIZE = 3 gives a input buffer of 8 bytes, smaller than one "
            "element (16 bytes)");
  EXPECT_EQ(config_error(with(d, "LOG_UOP_BUFF_SIZE", 2)),
            "test.json: LOG_UOP_BUFF_SIZE = 2 gives a micro-op buffer of 1 element (4 bytes); VTA "
            "needs at least 2 (its index fields would be 0 bits wide)");
  EXPECT_EQ(config_error(with(d, "LOG_INP_BUFF_SIZE", 21)),
            "test.json: LOG_INP_BUFF_SIZE = 21 gives a input buffer of 2^17 elements; LOAD/STORE "
            "sram_base is 16 bits, so at most 2^16");
}

TEST(HwConfig, NotEncodableMessages) {
  const json d = default_json();
  // A = 12: GEMM word 1 needs 2 * (12 + 11 + 10) = 66 bits.
  EXPECT_EQ(config_error(with(d, "LOG_ACC_BUFF_SIZE", 18)),
            "test.json: config 1x16_i8w8a32_15_15_18_18 cannot be encoded: GEMM instruction field "
            "wgt_factor_in (10 bits) ends at bit 130, past the 128-bit instruction (reduce a "
            "buffer size)");
  // U = 14: iter_in moves to word 1 and pushes the GEMM factors past bit 128.
  EXPECT_EQ(config_error(with(d, "LOG_UOP_BUFF_SIZE", 16)),
            "test.json: config 1x16_i8w8a32_16_15_18_17 cannot be encoded: GEMM instruction field "
            "wgt_factor_out (10 bits) ends at bit 132, past the 128-bit instruction (reduce a "
            "buffer size)");
  // A small micro-op buffer frees room in word 0, so only the 32-bit micro-op overflows.
  EXPECT_EQ(config_error(with(with(d, "LOG_UOP_BUFF_SIZE", 7), "LOG_INP_BUFF_SIZE", 16)),
            "test.json: config 1x16_i8w8a32_7_16_18_17 cannot be encoded: a GEMM micro-op needs "
            "11 + 12 + 10 = 33 bits (acc, inp, wgt index) but has 32 (reduce a buffer size)");
}

// The TIMING keys an IMPLEMENTATION determines: derived when left out (never below VTA's measured
// depth of 4), kept when stated slower, refused when stated faster.
TEST(HwConfig, ImplementationDerivesItsTimingKeys) {
  const HwConfig stock = HwConfig::from_json(json::object());
  EXPECT_EQ(stock, HwConfig{});
  EXPECT_EQ(stock.timing.alu_ii, 2);
  EXPECT_EQ(stock.timing.gemm_pipeline_depth, 4);
  EXPECT_FALSE(stock.impl.alu_mul);
  const HwConfig two = HwConfig::from_json(json::parse(R"({"IMPLEMENTATION": {"ACC_READ_PORTS": 2, "INLINE": false}})"));
  EXPECT_EQ(two.timing.alu_ii, 1);
  EXPECT_EQ(two.timing.insn_overhead_cycles, 2);
  const HwConfig serial = HwConfig::from_json(json::parse(R"({"IMPLEMENTATION": {"PIPELINE": false, "TREE_LEVELS_PER_STAGE": 0}})"));
  EXPECT_EQ(serial.timing.gemm_ii, 3);  // operands, products, accumulate: one micro-op at a time
  EXPECT_EQ(serial.timing.gemm_pipeline_depth, 4);
  const HwConfig deep = HwConfig::from_json(json::parse(R"({"IMPLEMENTATION": {"TREE_LEVELS_PER_STAGE": 1}})"));
  EXPECT_EQ(deep.timing.gemm_pipeline_depth, 6);  // three tree registers for 16 products
  const HwConfig slow = HwConfig::from_json(json::parse(R"({"TIMING": {"ALU_II": 18}})"));
  EXPECT_EQ(slow.timing.alu_ii, 18);
  EXPECT_THROW(HwConfig::from_json(json::parse(R"({"TIMING": {"GEMM_PIPELINE_DEPTH": 5}, "IMPLEMENTATION": {"TREE_LEVELS_PER_STAGE": 1}})")),
               Error);
  // TIMING's old ALU_LANES, ALU_MUL and DATAFLOW keys still load, into IMPLEMENTATION.
  const HwConfig legacy = HwConfig::from_json(json::parse(R"({"TIMING": {"ALU_MUL": true, "ALU_LANES": 8, "DATAFLOW": false}})"));
  EXPECT_TRUE(legacy.impl.alu_mul);
  EXPECT_EQ(legacy.impl.alu_lanes, 8);
  EXPECT_FALSE(legacy.impl.dataflow);
  EXPECT_EQ(legacy.timing.alu_ii, 1);  // two passes of 8 lanes: the reads overlap them
}

TEST(HwConfig, JsonRoundTrip) {
  for (HwConfig c : testing::random_valid_configs(200, 21)) {
    c.target = "ultra96";
    c.timing.clock_mhz = 333.3;
    c.timing.dram_bandwidth_gbps = 19.2;
    hw::Implementation impl = c.impl;
    impl.alu_mul = true;
    impl.alu_lanes = 4;
    impl.acc_read_ports = 2;
    impl.dsp_limit = 100;
    c = c.with_implementation(impl);  // the TIMING keys that follow from it derived anew
    const json j = c.to_json();
    EXPECT_EQ(HwConfig::from_json(j), c) << j.dump();
    EXPECT_EQ(HwConfig::from_json(json::parse(j.dump())), c) << j.dump();
    EXPECT_EQ(j.at("NAME"), c.name());
    // VTA's single LOG_BLOCK key whenever BLOCK_IN == BLOCK_OUT.
    EXPECT_EQ(j.contains("LOG_BLOCK"), c.log_block_in == c.log_block_out);
    EXPECT_NE(j.contains("LOG_BLOCK_IN"), c.log_block_in == c.log_block_out);
  }
}

std::filesystem::path preset(const std::string& name) {
  return std::filesystem::path(TAUVTA_SOURCE_DIR) / "configs" / (name + ".json");
}

TEST(HwConfig, PresetsLoad) {
  size_t count = 0;
  for (const auto& e : std::filesystem::directory_iterator(preset("pynq").parent_path())) {
    if (e.path().extension() != ".json") continue;
    EXPECT_NO_THROW(HwConfig::load(e.path())) << e.path();
    ++count;
  }
  EXPECT_GE(count, 7u);

  HwConfig pynq = HwConfig::load(preset("pynq"));
  EXPECT_EQ(pynq.target, "pynq");
  EXPECT_EQ(pynq, HwConfig{}) << "configs/pynq.json must be the built-in default";

  const HwConfig ultra96 = HwConfig::load(preset("ultra96"));
  EXPECT_EQ(ultra96.name(), "1x16_i8w8a32_15_15_18_17");
  EXPECT_EQ(ultra96.timing.clock_mhz, 333);
  EXPECT_EQ(ultra96.timing.log_bus_width, 7);
  const HwConfig zcu104 = HwConfig::load(preset("zcu104"));
  EXPECT_EQ(zcu104.timing.clock_mhz, 333);
  EXPECT_EQ(zcu104.timing.dram_bandwidth_gbps, 19.2);
  EXPECT_EQ(zcu104.bus_bytes(), 16);

  EXPECT_EQ(HwConfig::load(preset("pynq_b4_blk8")).name(), "4x8_i8w8a32_15_15_18_17");
  EXPECT_EQ(HwConfig::load(preset("pynq_w4a4")).name(), "1x16_i4w4a32_15_14_17_17");
  EXPECT_EQ(HwConfig::load(preset("pynq_w2a2")).name(), "1x16_i2w2a32_15_13_16_17");
  EXPECT_EQ(HwConfig::load(preset("pynq_w1a1")).name(), "1x16_i1w1a32_15_12_15_17");
  EXPECT_EQ(HwConfig::load(preset("pynq_w16")).name(), "1x16_i16w16a64_15_16_19_18");
}

// The width presets keep every buffer as deep as the encoding allows: one more bit in any buffer
// size no longer validates.
TEST(HwConfig, WidthPresetsAreMaximal) {
  for (const char* name : {"pynq_w4a4", "pynq_w2a2", "pynq_w1a1", "pynq_w16"}) {
    const HwConfig c = HwConfig::load(preset(name));
    for (int HwConfig::*f : {&HwConfig::log_uop_buff_size, &HwConfig::log_inp_buff_size,
                             &HwConfig::log_wgt_buff_size, &HwConfig::log_acc_buff_size}) {
      HwConfig bigger = c;
      ++(bigger.*f);
      EXPECT_THROW(bigger.validate(), Error) << name << " " << bigger.name();
    }
  }
}

TEST(HwConfig, LoadErrorsNameTheFile) {
  try {
    HwConfig::load("/nonexistent/x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/x.json: cannot open hardware config");
  }
}

}  // namespace
}  // namespace tauvta::hw
