// A whole network on the RTL backend: the committed VGG-7 (Fashion-MNIST) end to end, every
// accelerator program run on the generated accelerator in Verilator and compared with the
// simulator bit for bit as it runs (backend::RtlDriver), the outputs equal to the simulator's and
// the integer reference's, and the RTL's cycles per layer within the bounds docs/rtl.md states
// of the timing model's.
#include <gtest/gtest.h>

#include <filesystem>

#include "backend/build_network.h"
#include "backend/network_runner.h"
#include "backend/rtl_report.h"
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
