// tauvta dse under an accuracy bound, end to end on the committed VGG-7 and Fashion-MNIST: every
// format's held-out accuracy is reported, formats below the bound make their designs infeasible
// with the reason, each precision's chosen design is the fastest feasible one, the chosen design's
// network gives on the accelerator exactly the accuracy reported, and the accuracy step resumes
// from its cache. Small splits keep it to seconds; the bench measures the real ones.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <vector>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;
using testing::run_tauvta;

const std::string kData = "/usr/share/datasets/fashion-mnist";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fmt_accuracy(double a) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4f", a);
  return b;
}

// designs.csv as rows of named fields (no field of these rows holds a comma in quotes we read).
std::vector<std::map<std::string, std::string>> read_designs(const fs::path& p) {
  std::istringstream in(slurp(p));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  for (std::stringstream h(line); std::getline(h, line, ',');) names.push_back(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    // A quoted reason may hold commas: split outside quotes.
    std::vector<std::string> f(1);
    bool quoted = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        f.emplace_back();
      } else {
        f.back() += c;
      }
    }
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < names.size() && i < f.size(); ++i) row[names[i]] = f[i];
    rows.push_back(row);
  }
  return rows;
}

TEST(DseAccuracy, FormatsBelowTheBoundAreInfeasibleAndTheChosenDesignKeepsTheReportedAccuracy) {
  if (!fs::exists(kData + "/t10k-images-idx3-ubyte.gz")) GTEST_SKIP() << "no Fashion-MNIST";
  const fs::path dir = fs::temp_directory_path() / ("tauvta_dse_accuracy_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string model = std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist.onnx";
  const std::string cmd = "dse " + model + " --calibrate " + kData +
                          "/train-images-idx3-ubyte.gz --calib-samples 256 --device pynq-z1 --precisions 8,2"
                          " --strategy tau --budget 0 --overlays 3 --sprint 3 --initial 8 --seed 5"
                          " --images " + kData + "/t10k-images-idx3-ubyte.gz --labels " + kData +
                          "/t10k-labels-idx1-ubyte.gz --max-accuracy-drop 1 --accuracy-tune-images 200"
                          " --accuracy-holdout 200 --accuracy-limit 3 --out " + (dir / "out").string();
  const auto r = run_tauvta(cmd);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("accuracy per format"), std::string::npos) << r.out;

  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  const auto& acc = summary.at("accuracy");
  const double bound = acc.at("bound").get<double>();
  EXPECT_NEAR(bound, acc.at("float_accuracy").get<double>() - 0.01, 1e-12);
  std::map<std::string, nlohmann::json> formats;
  for (const auto& f : acc.at("formats")) formats[f.at("key").get<std::string>()] = f;
  ASSERT_TRUE(formats.count("w8a8_acc32") && formats.count("w2a2_acc16") && formats.count("w2a2_acc32")) << acc.dump(1);
  EXPECT_FALSE(formats.count("w8a8_acc16"));  // the space prunes it (accumulator too narrow)
  for (const auto& [key, f] : formats) {
    const double a = f.at("tuned_accuracy").get<double>();
    EXPECT_EQ(f.at("meets_bound").get<bool>(), a >= bound - 1e-9) << key;
    EXPECT_GT(f.at("accumulated").get<int64_t>(), 0) << key;  // every layer's sums were counted
    if (!f.at("meets_bound").get<bool>()) {
      const std::string reason = f.at("reason").get<std::string>();
      EXPECT_NE(reason.find("held-out top-1"), std::string::npos) << reason;
      EXPECT_NE(reason.find("< bound"), std::string::npos) << reason;
    }
  }
  // A 2-bit VGG-7 after post-training quantization is at chance: infeasible.
  EXPECT_FALSE(formats["w2a2_acc32"].at("meets_bound").get<bool>());
  ASSERT_TRUE(formats["w8a8_acc32"].at("meets_bound").get<bool>()) << formats["w8a8_acc32"].dump(1);

  // designs.csv: no design of a format below the bound is feasible; accuracy is a column; each
  // precision's best is its fastest feasible design.
  std::map<std::string, double> fastest;
  std::map<std::string, std::string> fastest_key;
  for (const auto& row : read_designs(dir / "out" / "designs.csv")) {
    if (row.at("precision") == "2") {
      EXPECT_EQ(row.at("feasible"), "0") << row.at("key");
    }
    if (row.at("verdict") == "accuracy") {
      EXPECT_NE(row.at("reason").find("< bound"), std::string::npos);
    }
    if (row.at("feasible") != "1" || std::stoll(row.at("budget")) < 0) continue;
    EXPECT_FALSE(row.at("accuracy").empty()) << row.at("key");
    const double ms = std::stod(row.at("latency_ms"));
    if (!fastest.count(row.at("precision")) || ms < fastest[row.at("precision")]) {
      fastest[row.at("precision")] = ms;
      fastest_key[row.at("precision")] = row.at("key");
    }
  }
  ASSERT_EQ(summary["precisions"].size(), 2u);
  const auto& p8 = summary["precisions"][0];
  ASSERT_TRUE(p8.contains("best"));
  EXPECT_EQ(p8["best"]["key"].get<std::string>(), fastest_key["8"]);
  EXPECT_FALSE(summary["precisions"][1].contains("best"));
  EXPECT_TRUE(summary.contains("pareto_accuracy"));
  EXPECT_TRUE(fs::exists(dir / "out" / "pareto_accuracy.csv"));

  // The chosen design's network on the held-out split: the accelerator's accuracy is the reported one.
  const std::string net = (dir / "out/best/p8/network.tauvta").string();
  ASSERT_TRUE(fs::exists(net));
  const auto run = run_tauvta("run " + net + " --images " + kData + "/t10k-images-idx3-ubyte.gz --labels " + kData +
                              "/t10k-labels-idx1-ubyte.gz --begin 200 --limit 200 -q");
  ASSERT_EQ(run.code, 0) << run.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.out, m, std::regex(R"(accelerator \([^)]*\)\s+([0-9.]+))"))) << run.out;
  EXPECT_EQ(m[1].str(), fmt_accuracy(formats["w8a8_acc32"].at("tuned_accuracy").get<double>())) << run.out;
  EXPECT_NE(run.out.find("identical to the integer reference: yes"), std::string::npos) << run.out;

  // Again: the accuracies come from the cache.
  const auto again = run_tauvta(cmd);
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("cached"), std::string::npos) << again.out;
  fs::remove_all(dir);
}

TEST(DseAccuracy, AnImportedQuantizedModelEntersAtItsWidthAndIsInfeasibleNarrower) {
  // The W4A4 model fine-tuned in PyTorch and exported as QDQ (models/vgg7_fmnist_w4a4_qdq.json):
  // not recalibrated; at W4A4 its integer accuracy is its fake-quantized float accuracy exactly, at
  // W2A2 its 4-bit ranges do not fit and the format is infeasible with the reason.
  if (!fs::exists(kData + "/t10k-images-idx3-ubyte.gz")) GTEST_SKIP() << "no Fashion-MNIST";
  const fs::path dir = fs::temp_directory_path() / ("tauvta_dse_qdq_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string model = std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist_w4a4_qdq.onnx";
  const auto r = run_tauvta("dse " + model + " --device pynq-z1 --precisions 4,2 --strategy tau --budget 0 --overlays 2"
                            " --sprint 2 --initial 6 --images " + kData + "/t10k-images-idx3-ubyte.gz --labels " + kData +
                            "/t10k-labels-idx1-ubyte.gz --min-accuracy 0.8 --accuracy-tune-images 200"
                            " --accuracy-holdout 200 --accuracy-limit 2 --out " + (dir / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  std::map<std::string, nlohmann::json> formats;
  for (const auto& f : summary.at("accuracy").at("formats")) formats[f.at("key").get<std::string>()] = f;
  const auto& w4 = formats.at("w4a4_acc32");
  EXPECT_TRUE(w4.at("meets_bound").get<bool>()) << w4.dump(1);
  EXPECT_EQ(w4.at("calibrated_accuracy").get<double>(), w4.at("float_accuracy").get<double>()) << w4.dump(1);
  EXPECT_EQ(w4.at("unrepresentable").get<std::string>(), "");
  for (const char* k : {"w2a2_acc16", "w2a2_acc32"}) {
    const auto& f = formats.at(k);
    EXPECT_FALSE(f.at("meets_bound").get<bool>()) << k;
    EXPECT_NE(f.at("reason").get<std::string>().find("needs 4 signed bits"), std::string::npos) << f.dump(1);
  }
  EXPECT_TRUE(summary["precisions"][0].contains("best"));
  EXPECT_FALSE(summary["precisions"][1].contains("best"));
  fs::remove_all(dir);
}

TEST(DseAccuracy, BadOptionsAreOneLine) {
  const std::string model = std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist.onnx";
  const fs::path out = fs::temp_directory_path() / ("tauvta_dse_acc_bad_" + std::to_string(::getpid()));
  const std::string images = " --images " + kData + "/t10k-images-idx3-ubyte.gz --labels " + kData + "/t10k-labels-idx1-ubyte.gz";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {" --max-accuracy-drop 1", "need --images and --labels"},
      {images, "needs a bound"},
      {images + " --max-accuracy-drop 1 --min-accuracy 0.5", "not both"},
      {images + " --min-accuracy 3", "--min-accuracy 3"},
      {images + " --max-accuracy-drop 1 --accuracy-mode fast", "fast"},
      {" --images /nonexistent.gz --labels /nonexistent.gz --max-accuracy-drop 1", "/nonexistent.gz"},
  };
  for (const auto& [args, want] : cases) {
    const auto r = run_tauvta("dse " + model + " --precisions 8 --out " + out.string() + args);
    EXPECT_NE(r.code, 0) << args;
    EXPECT_NE(r.out.find(want), std::string::npos) << args << "\n" << r.out;
    EXPECT_LE(std::count(r.out.begin(), r.out.end(), '\n'), 2) << args << "\n" << r.out;
  }
  fs::remove_all(out);
}

}  // namespace
}  // namespace tauvta
