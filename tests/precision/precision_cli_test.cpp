// `precision tune` from the command line: a rerun of a finished tuning resumes from its checkpoint
// and writes its outputs again (it does not refuse its own files), and the .tauvta it writes is
// what `accuracy` (and `run`) take, as its closing line says.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "cli/cli_runner.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;
using testing::run_tauvta;

TEST(PrecisionCli, ARerunResumesAndAccuracyTakesTheTunedNetwork) {
  const std::string d = "/usr/share/datasets/fashion-mnist";
  const fs::path out = fs::temp_directory_path() / ("tauvta_precision_cli_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const std::string data = " --images " + d + "/t10k-images-idx3-ubyte.gz --labels " + d + "/t10k-labels-idx1-ubyte.gz";
  const std::string cmd = "precision tune " + std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist.onnx --config " +
                          std::string(TAUVTA_SOURCE_DIR) + "/configs/pynq_w4a4.json --calibrate " + d +
                          "/train-images-idx3-ubyte.gz" + data +
                          " --tune-images 100 --holdout 100 --limit 3 --batch 50 --quiet --out " + out.string();
  const auto first = run_tauvta(cmd);
  ASSERT_EQ(first.code, 0) << first.out;
  ASSERT_TRUE(fs::exists(out / "tuned.tauvta")) << first.out;
  const auto again = run_tauvta(cmd);
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("read back from the checkpoint"), std::string::npos) << again.out;
  EXPECT_EQ(again.out.find("already exists"), std::string::npos) << again.out;

  const auto acc = run_tauvta("accuracy " + (out / "tuned.tauvta").string() + data + " --int --limit 100 --quiet");
  ASSERT_EQ(acc.code, 0) << acc.out;
  EXPECT_NE(acc.out.find("top-1 accuracy"), std::string::npos) << acc.out;
  EXPECT_NE(acc.out.find("integer reference of"), std::string::npos) << acc.out;
  const auto flt = run_tauvta("accuracy " + (out / "tuned.tauvta").string() + data + " --float --limit 100 --quiet");
  EXPECT_EQ(flt.code, 0) << flt.out;
  fs::remove_all(out);
}

}  // namespace
}  // namespace tauvta
