// The generated Verilog passes Verilator's lint with every warning on (`--lint-only -Wall`: width
// mismatches, unused signals and parameters, style; any warning fails) for every preset and for the implementation choices that change its shape: ALU lanes in
// passes (with a partial last pass), the ALU multiplier, two accumulator read ports, tree
// pipelining and LUT products.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "cli/cli_runner.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;

std::string lint(const fs::path& dir) {
  const std::string cmd = "cd '" + dir.string() + "' && verilator --lint-only -Wall --top-module tauvta_accelerator *.v 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "popen failed";
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  return pclose(p) == 0 ? "" : out;
}

TEST(RtlLint, EveryPresetAndShapeIsCleanUnderVerilatorsWallLint) {
  if (std::system("command -v verilator >/dev/null 2>&1") != 0) GTEST_SKIP() << "verilator is not installed";
  const fs::path dir = fs::temp_directory_path() / ("tauvta_rtl_lint_" + std::to_string(::getpid()));
  for (const auto& e : fs::directory_iterator(fs::path(TAUVTA_SOURCE_DIR) / "configs")) {
    for (const std::string opts : {"", " --alu-lanes 5 --alu-mul true --acc-ports 2 --tree-levels 1",
                                   " --binding lut --tree-levels 0 --alu-lanes 4"}) {
      fs::remove_all(dir);
      const auto r = testing::run_tauvta("rtl " + e.path().string() + " -o " + dir.string() + opts);
      ASSERT_EQ(r.code, 0) << r.out;
      EXPECT_EQ(lint(dir), "") << e.path().filename() << opts;
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tauvta
