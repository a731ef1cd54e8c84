// A whole network on the RTL backend: the committed VGG-7 (Fashion-MNIST) end to end, every
// accelerator program run on the generated accelerator in Verilator and compared with the
// simulator bit for bit as it runs (backend::RtlDriver), the outputs equal to the simulator's and
// the integer reference's, and the RTL's cycles per layer within the bounds docs/rtl.md states
// of the timing model's.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "backend/build_network.h"
#include "backend/network_runner.h"
#include "backend/rtl_report.h"
#include "cli/cli_runner.h"
#include "cpu/int_executor.h"
#include "io/tensor_files.h"
#include "rtl/cosim.h"

namespace tauvta {
namespace {

TEST(RtlNetwork, Vgg7EndToEndIsBitExactAndTimedWithinBounds) {
  ASSERT_TRUE(rtl::default_cosim_toolchain().available());
  const std::filesystem::path dir = std::filesystem::path(TAUVTA_SOURCE_DIR) / "models";
  model::ModelSource source;
  source.model = (dir / "vgg7_fmnist.onnx").string();
  source.calibrate = (dir / "vgg7_fmnist_input.npy").string();
  source.warn = [](const std::string&) {};
  source.progress = [](const std::string&) {};
  const backend::BuiltNetwork b = backend::build_network(source, {});
  const backend::CompiledNetwork& net = b.net;
  cpu::TensorMap in;
  in[net.graph.inputs.at(0)] = io::read_npy(dir / "vgg7_fmnist_input.npy");

  backend::NetworkRunner on_sim(net);
  const backend::NetworkRun sim = on_sim.run(in);
  backend::NetworkRunner on_rtl(net, 1, true);
  const backend::NetworkRun rtl = on_rtl.run(in);
  ASSERT_TRUE(rtl.on_rtl);
  EXPECT_EQ(rtl.outputs, sim.outputs);
  EXPECT_EQ(rtl.outputs, cpu::run_int(net.graph, in));
  const backend::RtlComparison c = backend::rtl_comparison(net, rtl);
  EXPECT_GE(c.layers, 8u);
  EXPECT_LE(c.median_abs_error, 0.02) << backend::rtl_comparison_table(net, rtl);
  EXPECT_LE(c.max_abs_error, 0.10) << backend::rtl_comparison_table(net, rtl);
}

}  // namespace
}  // namespace tauvta

namespace tauvta {
namespace {

// `dse --rtl-check 1`: the exploration's best design runs VGG-7 on the RTL, bit-exact, and its
// conv/dense cycles are within a few percent of what the exploration ranked it by.
TEST(RtlNetwork, DseRtlCheckRunsTheBestDesign) {
  ASSERT_TRUE(rtl::default_cosim_toolchain().available());
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("tauvta_dse_rtl_check_" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  const auto r = testing::run_tauvta("dse " + std::string(TAUVTA_SOURCE_DIR) +
                                     "/models/vgg7_fmnist.onnx --precisions 8 --strategy vta --budget 0 "
                                     "--rtl-check 1 --quiet --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("RTL check"), std::string::npos) << r.out;
  const nlohmann::json s = nlohmann::json::parse(std::ifstream(out / "summary.json"));
  ASSERT_EQ(s["rtl_check"].size(), 1u) << s.dump();
  const nlohmann::json& c = s["rtl_check"][0];
  EXPECT_TRUE(c["bit_exact"].get<bool>()) << c.dump();
  const double explored = c["explored_cycles"].get<double>(), rtl = c["rtl_cycles"].get<double>();
  EXPECT_GT(rtl, 0);
  EXPECT_LT(std::abs(rtl - explored) / explored, 0.05) << c.dump();
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace tauvta
