// The ISA subcommands end to end through the tauvta binary: config show, disasm, asm, and the
// file errors (odd sizes, refusing to overwrite).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;

using tauvta::testing::CliResult;

CliResult tauvta(const std::string& args) { return tauvta::testing::run_tauvta(args); }

class IsaCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tauvta_isa_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
  }
  std::string read(const std::string& name) const {
    std::ifstream in(path(name), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  fs::path dir_;
};

std::string config_path(const std::string& name) {
  return std::string(TAUVTA_SOURCE_DIR) + "/configs/" + name + ".json";
}

TEST_F(IsaCli, ConfigShow) {
  const CliResult r = tauvta("config show");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("1x16_i8w8a32_15_15_18_17"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("51.2 GOPS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[127:112]  imm"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("acc_idx [10:0]"), std::string::npos) << r.out;
  const CliResult j = tauvta("config show --json " + config_path("zcu104"));
  ASSERT_EQ(j.code, 0) << j.out;
  EXPECT_NE(j.out.find("\"TARGET\": \"zcu104\""), std::string::npos) << j.out;
}

TEST_F(IsaCli, AsmDisasmRoundTripWithUops) {
  const std::string golden = std::string(TAUVTA_SOURCE_DIR) + "/tests/hw/golden/default_program.txt";
  CliResult r = tauvta("asm " + golden + " -o " + path("p.bin") + " --uops-out " + path("u.bin"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(read("p.bin").size(), 160u);
  EXPECT_EQ(read("u.bin").size(), 12u);
  r = tauvta("disasm " + path("p.bin") + " --uops " + path("u.bin"));
  ASSERT_EQ(r.code, 0) << r.out;
  write("p.txt", r.out);
  r = tauvta("asm " + path("p.txt") + " -o " + path("p2.bin") + " --uops-out " + path("u2.bin"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(read("p.bin"), read("p2.bin"));
  EXPECT_EQ(read("u.bin"), read("u2.bin"));
}

TEST_F(IsaCli, AsmNeverOverwritesWithoutForce) {
  write("p.txt", "FINISH\n");
  write("p.bin", "keep");
  CliResult r = tauvta("asm " + path("p.txt") + " -o " + path("p.bin"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "tauvta: error: " + path("p.bin") +
                       ": file exists; pass --force to overwrite it\n");
  EXPECT_EQ(read("p.bin"), "keep");
  r = tauvta("asm " + path("p.txt") + " -o " + path("p.bin") + " --force");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(read("p.bin"), std::string("\x03", 1) + std::string(15, '\0'));
}

TEST_F(IsaCli, DisasmWithConfig) {
  // Under pynq_b4_blk8 (A = 10) an ALU micro-op's dst_idx is bits [9:0].
  write("p.txt", "ALU_UOP dst=1023 src=1\n");
  CliResult r = tauvta("asm " + path("p.txt") + " -o " + path("p.bin") + " --uops-out " +
                 path("u.bin") + " --config " + config_path("pynq_b4_blk8"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(read("u.bin"), std::string("\xff\x07\x00\x00", 4));
  r = tauvta("disasm " + path("p.bin") + " --uops " + path("u.bin") + " --uop-kind alu --config " +
             config_path("pynq_b4_blk8"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("0000: ALU_UOP dst=1023 src=1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("config 4x8_i8w8a32_15_15_18_17"), std::string::npos) << r.out;
}

}  // namespace
