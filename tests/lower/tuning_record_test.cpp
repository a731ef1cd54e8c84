// Tuning records: the committed sample log in TopHub's VTA layout (every task, both TopHub
// configs, comment and foreign-target lines), the writer round trip, config names, the AutoTVM
// outer-factor rule, and must-fail messages naming the line and the field.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "hw/bitstreams.h"
#include "lower/conv_plan.h"
#include "lower/tuning_record.h"
#include "common/error_of.h"

namespace tauvta::lower {
namespace {

const std::string kSample = std::string(TAUVTA_SOURCE_DIR) + "/tests/data/tuning/sample_vta.log";

using tauvta::testing::error_of;

TEST(TuningRecord, ReadsTheSampleLogLikeTopHubs) {
  const TuningLog log = read_tuning_log(kSample);
  ASSERT_EQ(log.records.size(), 10u);
  EXPECT_EQ(log.other_records, 1);  // the arm_cpu record
  EXPECT_EQ(log.comment_lines, 6);

  const TuningRecord& first = log.records[0];
  EXPECT_EQ(first.line, 3);
  EXPECT_EQ(first.model, "pynq_1x16_i8w8a32_15_15_18_17");
  EXPECT_EQ(record_config_name(first), "1x16_i8w8a32_15_15_18_17");
  EXPECT_EQ(record_config_name(first), hw::HwConfig{}.name());
  EXPECT_EQ(first.workload.to_string(), "conv2d 1x64x14x14 -> 64 k3x3 s1x1 p1,1,1,1 d1x1 g1");
  EXPECT_EQ(first.schedule.to_string(OpKind::kConv2d),
            "tile_b=1x1,tile_h=2x7,tile_w=1x14,tile_ci=4x1,tile_co=2x2,oc_nthread=2,h_nthread=1");
  EXPECT_EQ(first.config_index, 7);
  EXPECT_DOUBLE_EQ(record_seconds(first), 0.00031);

  const TuningRecord& failed = log.records[2];
  EXPECT_EQ(failed.error_no, 4);
  EXPECT_TRUE(std::isinf(record_seconds(failed)));

  const TuningRecord& dense = log.records[4];
  EXPECT_EQ(dense.workload.kind, OpKind::kDense);
  EXPECT_EQ(dense.workload.to_string(), "dense 1x256 -> 64");
  EXPECT_EQ(dense.schedule.tile_ci, (Split{2, 8}));

  const TuningRecord& group = log.records[5];
  EXPECT_EQ(group.workload.kind, OpKind::kGroupConv2d);
  EXPECT_EQ(group.workload.groups, 4);
  EXPECT_EQ(group.workload.in_channels, 64);
  EXPECT_EQ(group.schedule.tile_h, (Split{-1, 7}));

  const TuningRecord& transposed = log.records[6];
  EXPECT_EQ(transposed.workload.kind, OpKind::kConv2dTranspose);
  EXPECT_EQ(transposed.workload.in_channels, 64);
  EXPECT_EQ(transposed.workload.out_channels, 32);
  EXPECT_EQ(transposed.workload.out_height(), 8);

  // BATCH=4: the data's fifth dimension is the batch block.
  const TuningRecord& b4 = log.records[7];
  EXPECT_EQ(record_config_name(b4), "4x8_i8w8a32_15_16_16_18");
  EXPECT_EQ(b4.workload.batch, 4);
  EXPECT_EQ(b4.workload.in_channels, 32);
  EXPECT_EQ(b4.schedule.h_nthread, 2);
  const hw::HwConfig c4 = hw::HwConfig::from_name(b4.model);
  EXPECT_EQ(c4.batch(), 4);
  EXPECT_EQ(c4.block_in(), 8);
  EXPECT_EQ(c4.log_acc_buff_size, 18);
  EXPECT_TRUE(record_blocking_matches(b4, c4));

  // Tensors blocked 1x16 under a 4x8 target: the knobs count 1x16 blocks.
  const TuningRecord& odd = log.records[9];
  EXPECT_EQ(odd.workload.to_string(), "dense 4x128 -> 64");
  EXPECT_EQ(odd.block_batch, 1);
  EXPECT_EQ(odd.block_in, 16);
  EXPECT_FALSE(record_blocking_matches(odd, c4));
  std::vector<std::string> notes;
  const Schedule s = record_schedule(odd, c4, &notes);
  EXPECT_EQ(s.to_string(OpKind::kDense), "tile_b=-1x1,tile_ci=-1x16,tile_co=-1x2,oc_nthread=1");
  ASSERT_EQ(notes.size(), 1u);
}

TEST(TuningRecord, WriterRoundTripsEveryTaskOnTwoConfigs) {
  for (const std::string name : {"1x16_i8w8a32_15_15_18_17", "4x8_i8w8a32_15_16_16_18", "1x16_i4w4a32_15_14_17_17"}) {
    const hw::HwConfig c = hw::HwConfig::from_name(name);
    const int64_t b = c.batch();
    std::vector<ConvWorkload> ws;
    ConvWorkload conv{OpKind::kConv2d, b, 64, 14, 12, 32, 3, 3, 2, 1, 1, 0, 2, 1, 1, 1, 1, 0, 0};
    ConvWorkload dense{OpKind::kDense, b, 256, 1, 1, 64};
    ConvWorkload group = conv;
    group.kind = OpKind::kGroupConv2d;
    group.groups = 2;
    ConvWorkload transposed{OpKind::kConv2dTranspose, b, 32, 4, 4, 16, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    for (const ConvWorkload& w : {conv, dense, group, transposed}) {
      Schedule s;
      s.tile_co = {2, 1};
      s.oc_nthread = 2;
      const nlohmann::json j = tuning_record_json(c, w, s, {0.25, 0.75}, 0, 1.5e9, 12);
      const std::optional<TuningRecord> r = parse_tuning_record(nlohmann::json::parse(j.dump()), "rt", 1);
      ASSERT_TRUE(r.has_value()) << j.dump();
      EXPECT_EQ(r->workload, w) << name << " " << j.dump();
      EXPECT_EQ(r->schedule.tile_co, s.tile_co);
      EXPECT_EQ(r->schedule.oc_nthread, 2);
      EXPECT_EQ(record_config_name(*r), c.name());
      EXPECT_DOUBLE_EQ(record_seconds(*r), 0.5);
      EXPECT_EQ(r->config_index, 12);
    }
  }
}

TEST(TuningRecord, OuterFactorsAreDerivedAsAutoTvmDoes) {
  const TuningLog log = read_tuning_log(kSample);
  const TuningRecord& r = log.records[3];  // tile_h [1, 7] over 14 output rows
  const hw::HwConfig c;
  EXPECT_NE(error_of([&] { resolve_schedule(c, r.workload, r.schedule); }).find("tile_h: [1, 7] does not split the 14 output rows (outer must be 2)"),
            std::string::npos);
  std::vector<std::string> notes;
  const Schedule s = with_derived_outers(c, r.workload, r.schedule, &notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "tile_h: [1, 7] runs as 2 tile(s) of 7 over the 14 output rows (the outer factor is ignored, as AutoTVM does)");
  EXPECT_EQ(s.tile_h, (Split{-1, 7}));
  const ConvTiling t = resolve_schedule(c, r.workload, s);
  EXPECT_EQ(t.nht, 2);
}

TEST(TuningRecord, MalformedRecordsNameTheLineAndField) {
  const std::string dir = ::testing::TempDir();
  const auto read_one = [&](const std::string& line) {
    const std::string path = dir + "/bad.log";
    std::ofstream(path) << "# header\n" << line << "\n";
    return error_of([&] { read_tuning_log(path); });
  };
  const std::string target = "\"ext_dev -device=vta -keys=cpu -model=pynq_1x16_i8w8a32_15_15_18_17\"";
  const std::string entity = R"("config": {"index": 1, "entity": [["tile_b", "sp", [1, 1]]]}, "result": [[0.1], 0, 1, 1])";
  const auto conv = [&](const std::string& kernel) {
    return "{\"input\": [" + target + R"(, "conv2d_packed.vta", [["TENSOR", [1, 4, 14, 14, 1, 16], "int8"], )" + kernel +
           R"(, [1, 1], [1, 1, 1, 1], [1, 1], "NCHW1n16c", "int32"], {}], )" + entity + "}";
  };
  EXPECT_NE(read_one("{not json").find("bad.log:2: not a JSON record"), std::string::npos);
  EXPECT_NE(read_one(conv(R"(["TENSOR", [4, 2, 3, 3, 16, 16], "int8"])")).find("bad.log:2: kernel input channels 32 do not match the data's 64 in 1 group(s)"),
            std::string::npos);
  EXPECT_NE(read_one(conv(R"(["TENSOR", [4, 4, 3, 16, 16], "int8"])")).find("bad.log:2: kernel: expected [\"TENSOR\", [6 sizes], dtype]"),
            std::string::npos);
  EXPECT_NE(read_one(conv(R"(["TENSOR", [4, 4, 0, 3, 16, 16], "int8"])")).find("bad.log:2: kernel dimension 2: expected a positive integer, got 0"),
            std::string::npos);
  std::string no_model = conv(R"(["TENSOR", [4, 4, 3, 3, 16, 16], "int8"])");
  no_model.replace(no_model.find(" -model=pynq_1x16_i8w8a32_15_15_18_17"), 37, "");
  EXPECT_NE(read_one(no_model).find("has no -model= naming the VTA config"), std::string::npos);
  std::string bad_knob = conv(R"(["TENSOR", [4, 4, 3, 3, 16, 16], "int8"])");
  bad_knob.replace(bad_knob.find("tile_b"), 6, "tile_q");
  EXPECT_NE(read_one(bad_knob).find("bad.log:2: schedule entity: unknown knob 'tile_q'"), std::string::npos);
  EXPECT_NE(error_of([] { read_tuning_log("/nonexistent/x.log"); }).find("/nonexistent/x.log: cannot open tuning log"),
            std::string::npos);
}

TEST(TuningRecord, IllegalKnobsForTheConfigNameTheKnob) {
  const TuningLog log = read_tuning_log(kSample);
  const hw::HwConfig c;
  Schedule s = log.records[0].schedule;  // 4 input-channel blocks
  s.tile_ci = {1, 8};
  EXPECT_NE(error_of([&] { resolve_schedule(c, log.records[0].workload, s); })
                .find("is illegal for conv2d 1x64x14x14 -> 64 k3x3 s1x1 p1,1,1,1 d1x1 g1 on 1x16_i8w8a32_15_15_18_17: "
                      "tile_ci: inner factor 8 exceeds the 4 input-channel blocks of this workload"),
            std::string::npos);
  s = log.records[0].schedule;
  s.oc_nthread = 3;
  EXPECT_NE(error_of([&] { resolve_schedule(c, log.records[0].workload, s); }).find("oc_nthread"), std::string::npos);
}

// TVM's conv2d_transpose_packed runs a stride-1 convolution over the stride-dilated, padded input:
// the operator's output, stride_h * stride_w times its multiply-accumulates (DCGAN's k4 s2 p1
// layers: four times). Other tasks, and stride 1, are computed as they are.
TEST(TuningRecord, TvmTransposedTemplateIsAConvolutionOverTheDilatedInput) {
  lower::ConvWorkload t;
  t.kind = lower::OpKind::kConv2dTranspose;
  t.in_channels = 256;
  t.out_channels = 128;
  t.height = t.width = 16;
  t.kernel_h = t.kernel_w = 4;
  t.stride_h = t.stride_w = 2;
  t.pad_top = t.pad_left = t.pad_bottom = t.pad_right = 1;
  const std::optional<lower::ConvWorkload> c = lower::tvm_template_workload(t);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->kind, lower::OpKind::kConv2d);
  EXPECT_EQ(c->height, 31);  // 16 pixels with a zero between each two
  EXPECT_EQ(c->pad_top, 2);  // kernel - 1 - pad
  EXPECT_EQ(c->stride_h, 1);
  EXPECT_EQ(c->out_height(), t.out_height());
  EXPECT_EQ(c->out_width(), t.out_width());
  EXPECT_EQ(c->macs(), 4 * t.macs());
  // Output padding goes to the bottom and right.
  t.output_pad_h = t.output_pad_w = 1;
  const auto padded = lower::tvm_template_workload(t);
  ASSERT_TRUE(padded.has_value());
  EXPECT_EQ(padded->pad_bottom, 3);
  EXPECT_EQ(padded->out_height(), t.out_height());
  t.output_pad_h = t.output_pad_w = 0;
  t.stride_h = t.stride_w = 1;
  EXPECT_FALSE(lower::tvm_template_workload(t).has_value());
  lower::ConvWorkload conv;
  conv.in_channels = conv.out_channels = 16;
  EXPECT_FALSE(lower::tvm_template_workload(conv).has_value());
}

// TVM's templates compute every batch block in its own pass: the convolution templates never
// apply tile_b, dense_packed repeats its loads per batch block. A record with batch blocks in a
// tile is timed with one per tile, and says why; one block per tile is left alone.
TEST(TuningRecord, AsRunTakesOneBatchBlockPerTileAsTvmTemplatesDo) {
  TuningRecord r;
  r.model = "pynq_1x16_i8w8a32_15_15_18_17";
  r.workload = ConvWorkload{OpKind::kDense, 4, 128, 1, 1, 64};
  r.schedule.tile_b = {1, 4};
  std::vector<std::string> notes;
  TuningRecord run = record_as_run(r, &notes);
  EXPECT_EQ(run.schedule.tile_b.outer, -1);
  EXPECT_EQ(run.schedule.tile_b.inner, 1);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("tile_b [1, 4] timed as one batch block per tile: TVM's dense template"), std::string::npos)
      << notes[0];
  r.workload = ConvWorkload{OpKind::kConv2d, 2, 32, 14, 14, 32, 3, 3, 1, 1, 1, 1, 1, 1};
  r.schedule.tile_b = {1, 2};
  notes.clear();
  run = record_as_run(r, &notes);
  EXPECT_EQ(run.schedule.tile_b.inner, 1);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("convolution templates do not apply tile_b"), std::string::npos) << notes[0];
  r.schedule.tile_b = {2, 1};
  notes.clear();
  run = record_as_run(r, &notes);
  EXPECT_EQ(run.schedule.tile_b.outer, 2);
  EXPECT_TRUE(notes.empty());
}

// The board a record ran has the GEMM shape its tensors are blocked for: TopHub's 4x8 logs hold
// dense tasks blocked 1x16, which only a 1x16 core computes.
TEST(Bitstreams, BoardConfigOfAGemmShapeKeepsTargetAndWidths) {
  const hw::BoardConfig* b = hw::board_config_with_shape("pynq_4x8_i8w8a32_15_16_16_18", 1, 16, 16);
  ASSERT_NE(b, nullptr);
  EXPECT_STREQ(b->model, "pynq_1x16_i8w8a32_15_15_18_17");
  EXPECT_NE(std::string(b->evidence).find("vta_config.json"), std::string::npos);
  ASSERT_NE(hw::board_config_with_shape("pynq_1x16_i8w8a32_15_15_18_17", 4, 8, 8), nullptr);
  EXPECT_STREQ(hw::board_config_with_shape("pynq_1x16_i8w8a32_15_15_18_17", 4, 8, 8)->model,
               "pynq_4x8_i8w8a32_15_16_16_18");
  EXPECT_EQ(hw::board_config_with_shape("pynq_4x8_i8w8a32_15_16_16_18", 2, 16, 16), nullptr);  // no such board
  EXPECT_EQ(hw::board_config_with_shape("pynq_4x8_i4w4a32_15_15_15_17", 1, 16, 16), nullptr);  // other widths
  EXPECT_EQ(hw::board_config_with_shape("de10nano_4x8_i8w8a32_15_16_16_18", 1, 16, 16), nullptr);  // other target
}

TEST(HwConfigName, ParsesEveryVtaConfigNameBackToItself) {
  EXPECT_EQ(hw::HwConfig::from_name("1x16_i8w8a32_15_15_18_17"), hw::HwConfig{});
  EXPECT_EQ(hw::HwConfig::from_name("pynq_1x16_i8w8a32_15_15_18_17"), hw::HwConfig{});
  for (const std::string name : {"4x8_i8w8a32_15_16_16_18", "1x16x32_i8w8a32_15_15_19_18", "1x16_i2w2a32_15_13_16_17",
                                 "2x32_i4w4a32_15_16_19_18"}) {
    EXPECT_EQ(hw::HwConfig::from_name(name).name(), name);
  }
  EXPECT_EQ(hw::HwConfig::from_name("de10nano_1x16_i8w8a32_15_15_18_17").target, "de10nano");
}

TEST(HwConfigName, BadNamesSayWhichPart) {
  EXPECT_NE(error_of([] { hw::HwConfig::from_name("1x16_i8w8a32"); }).find("expected BATCHxBLOCK_iIwWaA_UOP_INP_WGT_ACC"),
            std::string::npos);
  EXPECT_NE(error_of([] { hw::HwConfig::from_name("1x12_i8w8a32_15_15_18_17"); }).find("block 12 is not a power of two"),
            std::string::npos);
  EXPECT_NE(error_of([] { hw::HwConfig::from_name("1x16_i8v8a32_15_15_18_17"); }).find("widths 'i8v8a32' are not iIwWaA"),
            std::string::npos);
  EXPECT_NE(error_of([] { hw::HwConfig::from_name("1x16_i8w8a32_15_x_18_17"); }).find("LOG_INP_BUFF_SIZE 'x' is not a number"),
            std::string::npos);
}

}  // namespace
}  // namespace tauvta::lower
