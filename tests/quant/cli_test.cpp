// `tauvta run` and `tauvta accuracy` end to end on the committed VGG-7: output files, overwrite
// refusal, the --compare-float tables, the JSON report, warnings and argument errors.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"
#include "io/tensor_files.h"
#include "model/samples.h"

namespace {

using tauvta::testing::run_tauvta;

const std::string kModel = std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist.onnx";
const std::string kInput = std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist_input.npy";
const std::string kData = "/usr/share/datasets/fashion-mnist/";

std::filesystem::path temp_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / ("tauvta_cli_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

TEST(QuantCli, RunWritesOutputsAndRefusesToOverwrite) {
  const auto dir = temp_dir("run");
  auto r = run_tauvta("run " + kModel + " --float --input input=" + kInput + " --output-dir " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("output output: float32[1,10]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pipeline: import "), std::string::npos) << r.out;
  const tauvta::graph::Tensor out = tauvta::io::read_npy(dir / "output.npy");
  EXPECT_EQ(out.shape(), (tauvta::graph::Shape{1, 10}));
  r = run_tauvta("run " + kModel + " --float --input " + kInput + " --output-dir " + dir.string());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("output.npy: file exists; pass --force to overwrite it"), std::string::npos) << r.out;
  r = run_tauvta("run " + kModel + " --int --input " + kInput + " --output-dir " + dir.string() + " --force");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("warning: no calibration data given"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("integer reference for 1x16_i8w8a32_15_15_18_17"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

TEST(QuantCli, CompareFloatPrintsOutputAndLayerTables) {
  const auto dir = temp_dir("compare");
  const auto report = dir / "run.json";
  // Test image 0, an ankle boot the model is sure about (so int8 picks the same class).
  const auto image = dir / "image0.npy";
  tauvta::io::write_npy(image, tauvta::model::idx_batch(tauvta::io::read_idx(kData + "t10k-images-idx3-ubyte.gz"), 0, 1),
                        false);
  const auto r = run_tauvta("run " + kModel + " --int --input " + image.string() + " --calibrate " + kData +
                            "train-images-idx3-ubyte.gz --calib-samples 128 --compare-float --per-channel --report " +
                            report.string());
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* s : {"top-1 agree", "1/1", "layer value", "QConv", "QGemm", "MaxPool", "clipped", "q8."}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  }
  std::ifstream in(report);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j.at("mode"), "int");
  EXPECT_EQ(j.at("quantization").at("per_channel_weights"), true);
  EXPECT_EQ(j.at("quantization").at("calibration_samples"), 128);
  EXPECT_EQ(j.at("quantization").at("layers").size(), 8u);
  EXPECT_EQ(j.at("compare_float").at("outputs").at(0).at("top1_agree"), 1);
  EXPECT_EQ(j.at("config").at("LOG_INP_WIDTH"), 3);
  std::filesystem::remove_all(dir);
}

TEST(QuantCli, AccuracyReportHasTheFractionConfigAndSettings) {
  const auto dir = temp_dir("accuracy");
  const auto report = dir / "acc.json";
  const std::string cfg = std::string(TAUVTA_SOURCE_DIR) + "/configs/pynq_w4a4.json";
  auto r = run_tauvta("accuracy " + kModel + " --images " + kData + "t10k-images-idx3-ubyte.gz --labels " + kData +
                      "t10k-labels-idx1-ubyte.gz --limit 200 --int --config " + cfg + " --calibrate " + kData +
                      "train-images-idx3-ubyte.gz --calib-samples 128 --calib-stat mse --report " + report.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("200/200 images"), std::string::npos) << r.out;  // the progress bar
  EXPECT_NE(r.out.find("top-1 accuracy 0."), std::string::npos) << r.out;
  std::ifstream in(report);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j.at("evaluated"), 200);
  const double acc = j.at("accuracy");
  EXPECT_GT(acc, 0.5);
  EXPECT_LE(acc, 1.0);
  EXPECT_EQ(double(j.at("correct").get<int>()) / 200.0, acc);
  EXPECT_EQ(j.at("config").at("LOG_INP_WIDTH"), 2);
  EXPECT_EQ(j.at("quantization").at("activation_bits"), 4);
  EXPECT_EQ(j.at("quantization").at("calibration_statistic"), "mse");
  r = run_tauvta("accuracy " + kModel + " --images " + kData + "t10k-images-idx3-ubyte.gz --labels " + kData +
                 "t10k-labels-idx1-ubyte.gz --limit 10 --float --report " + report.string());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("acc.json: file exists; pass --force to overwrite it"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// ONNX's conformance data ships inputs as TensorProto .pb files: run takes them as they are, and
// the output equals the suite's expected output.
TEST(RunCli, TakesOnnxTensorProtoInputs) {
  const std::string case_dir = "/usr/share/libonnx-testdata/data/node/test_relu/";
  const auto dir = temp_dir("pb_input");
  const auto r = run_tauvta("run " + case_dir + "model.onnx --float --input " + case_dir +
                            "test_data_set_0/input_0.pb --output-dir " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const tauvta::graph::Tensor got = tauvta::io::read_npy(dir / "y.npy");
  const tauvta::graph::Tensor want = tauvta::io::read_tensor_pb(case_dir + "test_data_set_0/output_0.pb");
  ASSERT_EQ(got.shape(), want.shape());
  EXPECT_EQ(got.to_float(), want.to_float());
  const auto bad = run_tauvta("run " + case_dir + "model.onnx --float --input x=" + case_dir + "model.onnx");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("unknown tensor file type '.onnx' (expected .npy or .pb)"), std::string::npos) << bad.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
