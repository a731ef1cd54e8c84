// Every input a fuzz target ever crashed on (tests/data/fuzz_regressions/<target>/) and every
// seed (fuzz/corpus/<target>/) replayed through the target's own entry point (fuzz/*_fuzz.cpp):
// each must load or fail with a tauvta::Error, never crash, throw anything else or break a
// round trip (docs/fuzzing.md).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "fuzz_target.h"

namespace tauvta::fuzz {
namespace {

namespace fs = std::filesystem;
const fs::path kRegressions = fs::path(TAUVTA_SOURCE_DIR) / "tests/data/fuzz_regressions";
const fs::path kCorpus = fs::path(TAUVTA_SOURCE_DIR) / "fuzz/corpus";

std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename().string()[0] != '.') out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Replays every file of `root`/<target>/ and returns how many it ran.
size_t replay(const fs::path& root, const std::string& target) {
  const Entry entry = registry().at(target);
  size_t n = 0;
  for (const fs::path& f : files_under(root / target)) {
    const std::vector<uint8_t> bytes = read_file(f);
    SCOPED_TRACE(f.string());
    const auto t0 = std::chrono::steady_clock::now();
    try {
      run_entry(entry, bytes.data(), bytes.size());
    } catch (const std::exception& e) {
      ADD_FAILURE() << f.string() << ": " << e.what();
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 10.0) << f.string() << " took " << s << " s (the fuzzers' -timeout)";
    ++n;
  }
  return n;
}

TEST(FuzzRegressions, EveryDirectoryNamesATarget) {
  for (const fs::path& root : {kRegressions, kCorpus}) {
    if (!fs::is_directory(root)) continue;
    for (const auto& e : fs::directory_iterator(root)) {
      if (e.is_directory()) {
        EXPECT_TRUE(registry().count(e.path().filename().string()))
            << e.path() << " does not name a fuzz target";
      }
    }
  }
}

TEST(FuzzRegressions, EveryTargetHasSeeds) {
  for (const auto& [name, entry] : registry()) {
    EXPECT_FALSE(files_under(kCorpus / name).empty()) << "fuzz/corpus/" << name << " has no seeds";
  }
}

class FuzzTarget : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzTarget, RegressionInputsFailCleanly) { replay(kRegressions, GetParam()); }

TEST_P(FuzzTarget, SeedsLoadOrFailCleanly) { replay(kCorpus, GetParam()); }

std::vector<std::string> target_names() {
  std::vector<std::string> names;
  for (const auto& [name, entry] : registry()) names.push_back(name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzTarget, ::testing::ValuesIn(target_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace tauvta::fuzz
