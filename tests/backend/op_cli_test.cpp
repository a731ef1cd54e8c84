// `tauvta op` end to end: every record of the committed sample log through --record (bit-exact
// against the integer reference, JSON report keys), the whole log through --log, config names,
// and the must-fail messages for illegal knobs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace tauvta {
namespace {

using testing::run_tauvta;

const std::string kSample = std::string(TAUVTA_SOURCE_DIR) + "/tests/data/tuning/sample_vta.log";

std::vector<std::string> record_lines() {
  std::ifstream in(kSample);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l[0] != '#' && l.find("-device=vta") != std::string::npos) lines.push_back(l);
  }
  return lines;
}

std::filesystem::path temp_dir(const std::string& name) {
  const std::filesystem::path d = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

TEST(OpCli, EveryRecordOfTheSampleRunsBitExactWithItsOwnConfig) {
  const std::filesystem::path dir = temp_dir("op_records");
  const std::vector<std::string> lines = record_lines();
  ASSERT_EQ(lines.size(), 10u);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::filesystem::path report = dir / fmt::format("r{}.json", i);
    const auto r = run_tauvta("op --record '" + lines[i] + "' --check-hazards --report " + report.string());
    ASSERT_EQ(r.code, 0) << lines[i] << "\n" << r.out;
    EXPECT_NE(r.out.find("verified"), std::string::npos) << r.out;
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(report));
    for (const char* key : {"cycles", "seconds_at_clock", "gops", "schedule", "schedule_entity", "task", "config"}) {
      EXPECT_TRUE(j.contains(key)) << key;
    }
    EXPECT_GT(j["cycles"].get<uint64_t>(), 0u);
    EXPECT_TRUE(j["verified"].get<bool>());
  }
  // The record of line 6 has an outer factor TVM ignores: said, not refused.
  const auto r = run_tauvta("op --record '" + lines[3] + "' --timing-only");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("note: tile_h: [1, 7] runs as 2 tile(s) of 7"), std::string::npos) << r.out;
  // The dense blocked 1x16 under a 4x8 target ran a 1x16 GEMM core: timed on the 1x16 board
  // config with its own tiles, one batch block per tile as TVM's dense template computes.
  const auto d = run_tauvta("op --record '" + lines[9] + "'");
  EXPECT_EQ(d.code, 0) << d.out;
  EXPECT_NE(d.out.find("dense 4x128 -> 64 on 1x16_i8w8a32_15_15_18_17"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("schedule: tile_b=-1x1,tile_ci=1x8,tile_co=4x1,oc_nthread=1"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("timed on the board config pynq_1x16_i8w8a32_15_15_18_17"), std::string::npos) << d.out;
  // A config given by the user is timed as given: the same tiles in elements on 4x8.
  const auto g = run_tauvta("op --record '" + lines[9] + "' --config 4x8_i8w8a32_15_16_16_18");
  EXPECT_EQ(g.code, 0) << g.out;
  EXPECT_NE(g.out.find("schedule: tile_b=-1x1,tile_ci=-1x16,tile_co=-1x2,oc_nthread=1"), std::string::npos) << g.out;
  EXPECT_NE(g.out.find("tile_b, tile_ci and tile_co rescaled to the same tiles in elements"), std::string::npos) << g.out;
}

// TVM's dense template loads the weight tile again for every batch block (its batch loop is
// outside the reduction); tauvta's own programs load it once for the blocks of a tile. A record
// with four batch blocks moves four times the weights of the same layer run as tauvta lowers it.
TEST(OpCli, RecordsReloadWeightsPerBatchBlockAsTvmsTemplateDoes) {
  const std::filesystem::path dir = temp_dir("op_batch_blocks");
  const std::string rec =
      R"({"input": ["ext_dev -device=vta -keys=cpu -model=pynq_1x16_i8w8a32_15_15_18_17", "dense_packed.vta", )"
      R"([["TENSOR", [4, 8, 1, 16], "int8"], ["TENSOR", [4, 8, 16, 16], "int8"], null, "int32"], {}], )"
      R"("config": {"index": 5, "code_hash": null, "entity": [["tile_b", "sp", [1, 4]], ["tile_ci", "sp", [1, 8]], )"
      R"(["tile_co", "sp", [1, 4]], ["oc_nthread", "ot", 1]]}, "result": [[4e-05], 0, 2.5, 1560000000.0], )"
      R"("version": 0.2, "tvm_version": "0.7.dev0"})";
  const auto r = run_tauvta("op --record '" + rec + "' --check-hazards --report " + (dir / "tvm.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("tile_b [1, 4] timed as one batch block per tile"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verified"), std::string::npos) << r.out;
  const auto own = run_tauvta("op dense --batch 4 --ci 128 --co 64 --schedule tile_b=1x4,tile_ci=1x8,tile_co=1x4 --report " +
                              (dir / "own.json").string());
  ASSERT_EQ(own.code, 0) << own.out;
  const nlohmann::json tvm = nlohmann::json::parse(std::ifstream(dir / "tvm.json"));
  const nlohmann::json mine = nlohmann::json::parse(std::ifstream(dir / "own.json"));
  EXPECT_EQ(mine["bytes"]["load_WGT"].get<uint64_t>(), 128u * 64u);
  EXPECT_EQ(tvm["bytes"]["load_WGT"].get<uint64_t>(), 4u * 128u * 64u);
  EXPECT_EQ(tvm["bytes"]["load_INP"], mine["bytes"]["load_INP"]);
  EXPECT_GT(tvm["cycles"].get<uint64_t>(), mine["cycles"].get<uint64_t>());
}

TEST(OpCli, LogModeRunsEveryRecordAndWritesTables) {
  const std::filesystem::path dir = temp_dir("op_log");
  const auto r = run_tauvta("op --log " + kSample + " --report " + (dir / "log.json").string() + " --csv " +
                            (dir / "log.csv").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("10 VTA records (1 of other targets skipped)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("10 of 10 records verified bit-exact"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir / "log.json"));
  ASSERT_EQ(j["records"].size(), 10u);
  EXPECT_TRUE(j["configs"].contains("pynq_4x8_i8w8a32_15_16_16_18"));
  EXPECT_EQ(j["records"][0]["line"], 3);
  // The transposed convolution (line 12, k4 s2) is timed as TVM's template computes it: a stride-1
  // convolution over the dilated 7x7 input (4x4 with zeros between), the same 8x8 output; the
  // others as they are.
  for (const auto& rec : j["records"]) {
    if (rec["line"] == 12) {
      EXPECT_EQ(rec["timed_workload"], "conv2d 1x64x7x7 -> 32 k4x4 s1x1 p2,2,2,2 d1x1 g1") << rec.dump();
      EXPECT_EQ(rec["macs"].get<uint64_t>(), 4u * 64 * 32 * 4 * 4 * 16) << rec.dump();
    } else {
      EXPECT_EQ(rec["timed_workload"], rec["workload"]) << rec.dump();
    }
  }
  std::ifstream csv(dir / "log.csv");
  int rows = 0;
  for (std::string l; std::getline(csv, l);) ++rows;
  EXPECT_EQ(rows, 11);
  // Existing outputs are not overwritten without --force.
  const auto again = run_tauvta("op --log " + kSample + " --csv " + (dir / "log.csv").string());
  EXPECT_EQ(again.code, 1);
  EXPECT_NE(again.out.find("exists"), std::string::npos) << again.out;
}

TEST(OpCli, LogModeComparesWithTheBoardAndTakesTimingOverrides) {
  const std::filesystem::path dir = temp_dir("op_log_board");
  auto r = run_tauvta("op --log " + kSample + " --timing-only --report " + (dir / "a.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  // Nine of the sample's ten records carry a board time (one failed on the board: no time).
  EXPECT_NE(r.out.find("model vs board over 9 records: median |error|"), std::string::npos) << r.out;
  const nlohmann::json a = nlohmann::json::parse(std::ifstream(dir / "a.json"));
  EXPECT_EQ(a["board_comparison"]["records"], 9);
  for (const auto& rec : a["records"]) {
    if (!rec.contains("board_seconds")) continue;
    const double want = rec["seconds_at_clock"].get<double>() / rec["board_seconds"].get<double>() - 1;
    EXPECT_NEAR(rec["error"].get<double>(), want, 1e-12);
  }
  // A slower port: every record takes longer, and the resolved configs say why.
  r = run_tauvta("op --log " + kSample + " --timing-only --timing '{\"DRAM_LATENCY_CYCLES\": 600}' --report " +
                 (dir / "b.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json b = nlohmann::json::parse(std::ifstream(dir / "b.json"));
  for (size_t i = 0; i < a["records"].size(); ++i) {
    EXPECT_GT(b["records"][i]["cycles"].get<uint64_t>(), a["records"][i]["cycles"].get<uint64_t>()) << i;
  }
  for (const auto& [name, c] : b["configs"].items()) EXPECT_EQ(c["TIMING"]["DRAM_LATENCY_CYCLES"], 600) << name;

  const std::pair<std::string, std::string> bad[] = {
      {"--timing '{\"NOPE\": 1}'", "--timing: unknown key TIMING.NOPE"},
      {"--timing '{\"MAX_BURST_BEATS\": 0}'", "TIMING.MAX_BURST_BEATS"},
      {"--timing '{nope'", "--timing object: invalid JSON"},
      {"--timing /nonexistent/t.json", "--timing /nonexistent/t.json: cannot open"},
  };
  for (const auto& [flag, want] : bad) {
    r = run_tauvta("op --log " + kSample + " --timing-only " + flag);
    EXPECT_EQ(r.code, 1) << flag << "\n" << r.out;
    EXPECT_NE(r.out.find(want), std::string::npos) << flag << "\n" << r.out;
  }
}

// The calibrated Pynq model against the 31 board records it was fitted to (docs/timing_model.md):
// the median error the issue asks for, every record of the July 2019 sessions within 12%, the
// 4x8 bitstream's records within 25% (record 30 was +59% at the 1x16-fitted port rate), and the
// August 2019 1x16 session and the 4x8 session timed with the bitstreams they ran
// (hw/bitstreams.cpp).
TEST(OpCli, CalibratedModelMatchesTheBoardRecords) {
  const std::string log = std::string(TAUVTA_SOURCE_DIR) + "/tests/data/calibration/tophub_vta_v0.10_calibration.jsonl";
  const std::filesystem::path dir = temp_dir("op_log_calibration");
  const auto r = run_tauvta("op --log " + log + " --timing-only --report " + (dir / "c.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir / "c.json"));
  EXPECT_LE(j["board_comparison"]["median_abs_error"].get<double>(), 0.08) << r.out;
  // The error by kind of record: the 1x16 and 4x8 bitstreams' 3x3 and 1x1 layers apart, counts
  // adding up to the records compared, the 4x8 kinds each within 25%.
  const auto& kinds = j["board_comparison"]["by_kind"];
  ASSERT_EQ(kinds.size(), 4u) << kinds.dump(1);
  int counted = 0;
  for (const auto& k : kinds) {
    counted += k["records"].get<int>();
    const std::string name = k["kind"];
    if (name.find("on 4x8") != std::string::npos) {
      EXPECT_LE(k["max_abs_error"].get<double>(), 0.25) << name;
    }
  }
  EXPECT_EQ(counted, j["board_comparison"]["records"].get<int>());
  EXPECT_NE(r.out.find("by kind (template, kernel, config)"), std::string::npos) << r.out;
  for (const auto& rec : j["records"]) {
    const int line = rec["line"];
    const bool july = line <= 10 || line >= 22;
    if (july) {
      EXPECT_LT(std::abs(rec["error"].get<double>()), 0.12) << "line " << line << "\n" << r.out;
    }
    // The August 2019 records (lines 11-21) ran the bitstream with the slow tensor ALU, the 4x8
    // ones (lines 22-31) the bitstream whose data port is as wide as the ACP.
    const char* bitstream = line <= 10   ? "HLS design"
                            : line <= 21 ? "pynq-1x16-2019-08-slow-alu"
                                         : "pynq-4x8-2019-full-rate-port";
    EXPECT_EQ(rec["bitstream"].get<std::string>(), bitstream) << "line " << line;
  }
  // By session: the three sessions apart, August's timed with its bitstream and within 8% median.
  const auto& sessions = j["board_comparison"]["by_session"];
  ASSERT_EQ(sessions.size(), 3u) << sessions.dump(1);
  for (const auto& k : sessions) {
    const std::string name = k["kind"];
    if (name.find("measured 2019-08-09") != std::string::npos) {
      EXPECT_NE(name.find("bitstream pynq-1x16-2019-08-slow-alu"), std::string::npos) << name;
      EXPECT_EQ(k["records"].get<int>(), 11);
      EXPECT_LE(k["median_abs_error"].get<double>(), 0.08) << name;
    }
  }
  ASSERT_EQ(j["bitstreams"].size(), 2u);
  EXPECT_EQ(j["bitstreams"][0]["records"].get<int>(), 11);
  EXPECT_EQ(j["bitstreams"][0]["timing"]["ALU_II"].get<int>(), 18);
  EXPECT_EQ(j["bitstreams"][1]["records"].get<int>(), 10);
  EXPECT_EQ(j["bitstreams"][1]["timing"]["DRAM_BANDWIDTH_GBPS"].get<double>(), 0.8);
  EXPECT_NE(r.out.find("11 record(s) timed with bitstream pynq-1x16-2019-08-slow-alu"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("10 record(s) timed with bitstream pynq-4x8-2019-full-rate-port"), std::string::npos) << r.out;

  // Without the bitstreams every record is timed as the HLS design: the August session is then
  // far off (its median was 46%), record 30 at +59%, the July 1x16 ones unchanged.
  const auto hls = run_tauvta("op --log " + log + " --timing-only --no-bitstreams --report " + (dir / "h.json").string());
  ASSERT_EQ(hls.code, 0) << hls.out;
  const nlohmann::json h = nlohmann::json::parse(std::ifstream(dir / "h.json"));
  EXPECT_TRUE(h["bitstreams"].empty());
  for (const auto& k : h["board_comparison"]["by_session"]) {
    const std::string name = k["kind"];
    EXPECT_EQ(name.find("bitstream"), std::string::npos) << name;
    if (name.find("measured 2019-08-09") != std::string::npos) {
      EXPECT_GT(k["median_abs_error"].get<double>(), 0.3) << name;
    }
  }
  for (size_t i = 0; i < j["records"].size(); ++i) {
    const int line = j["records"][i]["line"];
    if (line <= 10) {
      EXPECT_EQ(j["records"][i]["error"], h["records"][i]["error"]) << line;
    }
    if (line == 30) {
      EXPECT_GT(h["records"][i]["error"].get<double>(), 0.5);
    }
  }
}

TEST(OpCli, IllegalKnobsAreRefusedNamingTheKnob) {
  std::string line = record_lines()[0];  // 4 input-channel blocks
  line.replace(line.find("[\"tile_ci\", \"sp\", [4, 1]]"), 25, "[\"tile_ci\", \"sp\", [1, 8]]");
  auto r = run_tauvta("op --record '" + line + "'");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("tile_ci: inner factor 8 exceeds the 4 input-channel blocks of this workload"), std::string::npos)
      << r.out;

  r = run_tauvta("op conv2d --ci 64 --height 56 --width 56 --co 64 --kernel 3 --pad 1 --schedule tile_h=1x56,tile_w=1x56,tile_ci=1x4,tile_co=1x4,oc_nthread=2");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("tile_h/tile_w/tile_ci: an input tile of"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("of each of 2 virtual thread(s)"), std::string::npos) << r.out;

  r = run_tauvta("op conv2d --ci 64 --height 14 --width 14 --co 64 --kernel 3 --schedule tile_x=1x2");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("tile_x"), std::string::npos) << r.out;

  r = run_tauvta("op --record '{\"input\": [\"llvm -device=arm_cpu\", \"conv2d_nchw.arm_cpu\", []]}'");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("not a VTA record"), std::string::npos) << r.out;
}

// TVM's group_conv2d_packed tiles output channels over every group: a record whose tile_co spans
// 8 groups of one block each (and its outer factor, 4 tiles of the 32 blocks) runs bit-exact with
// the hazard checker, moving the same data as one group per tile in fewer instructions; a span that
// is not whole groups is refused naming the knob.
TEST(OpCli, GroupRecordsWithTilesSpanningGroupsRun) {
  auto record = [](int tile_co, int cin_g, int groups) {
    return fmt::format(
        R"({{"input": ["ext_dev -device=vta -keys=cpu -model=pynq_1x16_i8w8a32_15_15_18_17", "group_conv2d_packed.vta", )"
        R"([["TENSOR", [1, 32, 14, 14, 1, 16], "int8"], ["TENSOR", [32, {}, 3, 3, 16, 16], "int8"], [1, 1], [1, 1, 1, 1], )"
        R"([1, 1], {}, "int32"], {{}}], "config": {{"index": 7, "code_hash": null, "entity": [["tile_b", "sp", [1, 1]], )"
        R"(["tile_h", "sp", [7, 2]], ["tile_w", "sp", [1, 14]], ["tile_ci", "sp", [1, 1]], ["tile_co", "sp", [{}, {}]], )"
        R"(["oc_nthread", "ot", 2], ["h_nthread", "ot", 1]]}}, "result": [[8e-05], 0, 2.5, 1700000000.0], "version": 0.2, )"
        R"("tvm_version": "0.7.dev0"}})",
        cin_g, groups, 32 / tile_co, tile_co);
  };
  const std::filesystem::path dir = temp_dir("op_group_span");
  uint64_t insns[2] = {}, inp_bytes[2] = {}, out_bytes[2] = {};
  for (int k = 0; k < 2; ++k) {
    const int tile_co = k == 0 ? 1 : 8;
    const std::string report = (dir / fmt::format("r{}.json", tile_co)).string();
    const auto r = run_tauvta("op --record '" + record(tile_co, 1, 32) + "' --check-hazards --report " + report);
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("verified"), std::string::npos) << r.out;
    // TVM's outer factor counts tiles over every group: taken as it is, no note.
    EXPECT_NE(r.out.find(tile_co == 1 ? "tile_co=-1x1" : "tile_co=-1x8"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("note: tile_co"), std::string::npos) << r.out;
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(report));
    EXPECT_TRUE(j["verified"].get<bool>());
    insns[k] = j["insns"].get<uint64_t>();
    inp_bytes[k] = j["bytes"]["load_INP"].get<uint64_t>();
    out_bytes[k] = j["bytes"]["store_OUT"].get<uint64_t>();
  }
  // The same data either way, in about a third of the instructions: one tile's steps load,
  // multiply and requantize 8 groups at once (2,089 -> 661 instructions when written).
  EXPECT_EQ(inp_bytes[0], inp_bytes[1]);
  EXPECT_EQ(out_bytes[0], out_bytes[1]);
  EXPECT_LT(3 * insns[1], insns[0] + insns[0] / 2) << insns[0] << " " << insns[1];
  // 16 groups of two blocks: a tile of 3 blocks is not whole groups.
  const auto bad = run_tauvta("op --record '" + record(3, 2, 16) + "' --timing-only");
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_NE(bad.out.find("tile_co: inner factor 3 spans supergroups of 2 output-channel block(s)"), std::string::npos)
      << bad.out;
}

TEST(OpCli, BadWorkloadsAreOneLineErrors) {
  const std::pair<std::string, std::string> cases[] = {
      {"op conv2d --ci -3 --co 16", "workload: in_channels must be at least 1, got -3"},
      {"op conv2d --ci 16 --co 16 --groups 3", "workload: groups 3 must divide in_channels 16 and out_channels 16"},
      {"op conv2d_transpose --ci 16 --co 16 --height 4 --width 4 --kernel 4 --stride 2 --output-padding 3",
       "workload: output padding 3x3 must be smaller than the stride 2x2 or the dilation 1x1"},
      {"op conv2d --ci 16 --co 16 --height 4 --width 4 --output-padding 1",
       "workload: output padding 1x1 is only for conv2d_transpose"},
      {"op conv2d --ci 1048576 --co 16 --height 100000 --width 1000 --timing-only",
       "workload: the input, int64 [1,1048576,100000,1000] would take"},
      {"op conv2d --ci 16 --co 16 --kernel 3x", "--kernel '3x': expected N or HxW"},
      {"op --log /nonexistent/x.log", "/nonexistent/x.log: cannot open tuning log"},
      {"op", "op: give the operator"},
  };
  for (const auto& [cmd, want] : cases) {
    const auto r = run_tauvta(cmd);
    EXPECT_EQ(r.code, 1) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find(want), std::string::npos) << cmd << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << cmd << "\n" << r.out;
  }
}

TEST(OpCli, ConfigNamesSelectTheHardware) {
  auto r = run_tauvta("op conv2d --batch 4 --ci 32 --height 8 --width 8 --co 16 --kernel 3 --pad 1 --config 4x8_i8w8a32_15_16_16_18");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("on 4x8_i8w8a32_15_16_16_18"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verified"), std::string::npos) << r.out;
  r = run_tauvta("op dense --ci 64 --co 32 --config 1x16_i8w8a32_15_15_99_17");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("config name '1x16_i8w8a32_15_15_99_17'"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tauvta
