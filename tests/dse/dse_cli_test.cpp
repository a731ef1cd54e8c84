// tauvta dse end to end: on VGG-7 with tau-VTA's Algorithm 1 the best design per precision is a
// vta_config.json that `tauvta run` loads with its tuning log and runs byte-identical to the integer
// reference; the same command resumes without timing anything again; bad input is one line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;
using testing::run_tauvta;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(DseCli, BestDesignRunsBitExactAndTheCommandResumes) {
  const fs::path dir = fs::temp_directory_path() / ("tauvta_dse_cli_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string model = std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist.onnx";
  const std::string cmd = "dse " + model +
                          " --device pynq-z1 --precisions 8,4 --strategy tau --budget 6 --overlays 3 --sprint 3"
                          " --initial 6 --seed 3 --out " + (dir / "out").string();
  const auto r = run_tauvta(cmd);
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* want : {"W8A8", "W4A4", "best design", "feature importance"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  for (const char* f : {"designs.csv", "summary.json", "importance.csv", "pareto.csv", "convergence.csv",
                        "evaluations.jsonl", "best/p8/vta_config.json", "best/p8/tuning_log.jsonl",
                        "best/p4/vta_config.json"}) {
    EXPECT_TRUE(fs::exists(dir / "out" / f)) << f;
  }
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  ASSERT_EQ(summary["precisions"].size(), 2u);
  for (const auto& p : summary["precisions"]) {
    EXPECT_GT(p["raw_size"].get<double>(), double(p["pruned_size"].get<size_t>()));
    EXPECT_GT(p["best"]["gops"].get<double>(), 0);
    EXPECT_EQ(p["importance"]["targets"].size(), 5u);
  }

  // The best W8A8 design with its schedules: the accelerator's outputs equal the integer
  // reference's byte for byte.
  const std::string input = " --input " + std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist_input.npy";
  const std::string cfg = (dir / "out/best/p8/vta_config.json").string();
  const std::string log = (dir / "out/best/p8/tuning_log.jsonl").string();
  const auto acc = run_tauvta("run " + model + " --config " + cfg + " --tuning-log " + log + input + " --output-dir " +
                              (dir / "acc").string());
  ASSERT_EQ(acc.code, 0) << acc.out;
  const auto ref =
      run_tauvta("run " + model + " --int --config " + cfg + input + " --output-dir " + (dir / "int").string());
  ASSERT_EQ(ref.code, 0) << ref.out;
  size_t compared = 0;
  for (const auto& e : fs::directory_iterator(dir / "int")) {
    EXPECT_EQ(slurp(e.path()), slurp(dir / "acc" / e.path().filename())) << e.path().filename();
    ++compared;
  }
  EXPECT_GT(compared, 0u);

  // Again: everything comes from the cache, and the same designs win.
  const auto again = run_tauvta(cmd);
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("resuming:"), std::string::npos) << again.out;
  const auto summary2 = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(summary2["precisions"][i]["best"]["key"], summary["precisions"][i]["best"]["key"]);
    EXPECT_EQ(summary2["precisions"][i]["best"]["cycles"], summary["precisions"][i]["best"]["cycles"]);
  }
  fs::remove_all(dir);
}

TEST(DseCli, BadInputIsOneLine) {
  const auto none = run_tauvta("dse --device pynq-z1 --out /tmp/tauvta_dse_none");
  EXPECT_EQ(none.code, 1);
  EXPECT_NE(none.out.find("give a model or --workload"), std::string::npos) << none.out;
  const auto prec = run_tauvta("dse --workload conv2d,ci=16,h=8,w=8,co=16,k=3 --precisions 8,3 --out /tmp/x_dse");
  EXPECT_EQ(prec.code, 1);
  EXPECT_NE(prec.out.find("'3' is not one of 1, 2, 4, 8"), std::string::npos) << prec.out;
  const auto dev = run_tauvta("dse --workload conv2d,ci=16,h=8,w=8,co=16,k=3 --device vc707 --out /tmp/x_dse");
  EXPECT_EQ(dev.code, 1);
  EXPECT_NE(dev.out.find("vc707"), std::string::npos) << dev.out;
  const auto strat = run_tauvta("dse --workload conv2d,ci=16,h=8,w=8,co=16,k=3 --strategy annealing --out /tmp/x_dse");
  EXPECT_EQ(strat.code, 1);
  EXPECT_NE(strat.out.find("unknown strategy 'annealing'"), std::string::npos) << strat.out;
  fs::remove_all("/tmp/x_dse");
  fs::remove_all("/tmp/tauvta_dse_none");
}

}  // namespace
}  // namespace tauvta
