// The closest-command suggestion behind "unknown command 'runn' ...; did you mean 'run'?".
#include "cli/usage_errors.h"

#include <gtest/gtest.h>

namespace tauvta::cli {
namespace {

TEST(UsageErrors, EditDistance) {
  EXPECT_EQ(edit_distance("run", "run"), 0u);
  EXPECT_EQ(edit_distance("runn", "run"), 1u);
  EXPECT_EQ(edit_distance("tnue", "tune"), 2u);
  EXPECT_EQ(edit_distance("", "asm"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(UsageErrors, ClosestWordOnlyWhenPlausible) {
  const std::vector<std::string> commands = {"accuracy", "asm", "compile", "config", "disasm", "dse", "gemm",
                                             "hw", "inspect", "op", "precision", "rtl", "run", "sim", "tune"};
  EXPECT_EQ(closest_word("runn", commands), "run");
  EXPECT_EQ(closest_word("complie", commands), "compile");
  EXPECT_EQ(closest_word("prec", commands), "precision");  // a prefix
  EXPECT_EQ(closest_word("inspcet", commands), "inspect");
  EXPECT_EQ(closest_word("foo", commands), std::nullopt);  // "op" is two edits from a 3-letter word
  EXPECT_EQ(closest_word("benchmark", commands), std::nullopt);
}

TEST(UsageErrors, WalksNestedCommands) {
  CLI::App app{"t"};
  app.require_subcommand(1);
  CLI::App* precision = app.add_subcommand("precision");
  precision->require_subcommand(1);
  precision->add_subcommand("tune");
  precision->add_subcommand("show");
  app.add_subcommand("run")->add_option("model");
  auto error = [&](std::vector<const char*> argv) {
    argv.insert(argv.begin(), "tauvta");
    return unknown_command_error(app, int(argv.size()), argv.data());
  };
  EXPECT_EQ(error({"precision", "tun"}),
            "unknown command 'tun' for 'tauvta precision'; did you mean 'tune'? (tauvta precision --help lists them)");
  EXPECT_EQ(error({"run", "model.onnx"}), std::nullopt);  // a positional, not a command
  EXPECT_EQ(error({"precision", "tune", "x"}), std::nullopt);
  EXPECT_EQ(error({"--help"}), std::nullopt);
  EXPECT_EQ(error({"--nope"}), "unknown option '--nope' for 'tauvta'; it takes a command first (tauvta --help lists them)");
}

}  // namespace
}  // namespace tauvta::cli
