// Must-fail tests, one table per command (tests/cli/must_fail/<command>.txt), in the manner of
// Halide's test/error and MLIR's invalid.mlir: each case is a command line and the exact one line
// it must print. A case passes when tauvta exits with 1 and its stderr ends with that line, the
// only one starting "tauvta:" (warnings and progress may come before it), matching exactly after
// substituting the placeholders below, and leaves nothing in {tmp} (a refused command writes
// nothing).
//
// Table syntax: '#' comments; "$ ARGS" starts a case (ARGS as typed after `tauvta`, split on
// spaces); the next non-comment line is the expected error. Placeholders in both:
//   {data}    tests/cli/must_fail/data (small bad files, committed)
//   {tmp}     a fresh empty directory for this case
//   {src}     the source tree (models/, configs/, tests/data/ ...)
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tauvta {
namespace {

namespace fs = std::filesystem;

const fs::path kTables = fs::path(TAUVTA_SOURCE_DIR) / "tests/cli/must_fail";

struct MustFailCase {
  std::string table;  // the command's table file, without .txt
  int line = 0;       // of the "$ ..." line
  std::string args;
  std::string expected;
};

std::vector<MustFailCase> load_cases() {
  std::vector<MustFailCase> cases;
  std::vector<fs::path> tables;
  for (const auto& e : fs::directory_iterator(kTables)) {
    if (e.path().extension() == ".txt") tables.push_back(e.path());
  }
  std::sort(tables.begin(), tables.end());
  for (const fs::path& t : tables) {
    std::ifstream in(t);
    std::string line;
    int n = 0;
    MustFailCase* open = nullptr;
    while (std::getline(in, line)) {
      ++n;
      if (line.empty() || line[0] == '#') continue;
      if (line.rfind("$ ", 0) == 0) {
        cases.push_back({t.stem().string(), n, line.substr(2), ""});
        open = &cases.back();
      } else if (open != nullptr && open->expected.empty()) {
        open->expected = line;
        open = nullptr;
      } else {
        cases.push_back({t.stem().string(), n, "", "stray line in the table: " + line});
      }
    }
  }
  return cases;
}

std::string substitute(std::string s, const fs::path& tmp) {
  const std::pair<std::string, std::string> subs[] = {
      {"{data}", (kTables / "data").string()}, {"{tmp}", tmp.string()}, {"{src}", TAUVTA_SOURCE_DIR}};
  for (const auto& [key, value] : subs) {
    for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + value.size())) {
      s.replace(at, key.size(), value);
    }
  }
  return s;
}

class MustFail : public ::testing::TestWithParam<MustFailCase> {};

TEST_P(MustFail, PrintsExactlyItsOneLineError) {
  const MustFailCase& c = GetParam();
  ASSERT_FALSE(c.args.empty()) << c.table << ".txt:" << c.line << ": " << c.expected;
  ASSERT_FALSE(c.expected.empty()) << c.table << ".txt:" << c.line << ": a case without its error line";
  const fs::path tmp = fs::temp_directory_path() / ("tauvta_mustfail_" + c.table + "_" + std::to_string(c.line));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const std::string args = substitute(c.args, tmp), expected = substitute(c.expected, tmp);
  // stderr only (stdout to /dev/null), run from the case's directory so relative outputs land there.
  const std::string cmd =
      "cd '" + tmp.string() + "' && '" + TAUVTA_CLI_PATH + "' " + args + " 2>&1 >/dev/null </dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string err;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) err.append(buf, n);
  const int status = pclose(p);
  // A refused command leaves nothing behind: no output, no half-made directory.
  std::vector<std::string> left;
  for (const auto& e : fs::recursive_directory_iterator(tmp)) left.push_back(e.path().lexically_relative(tmp).string());
  fs::remove_all(tmp);
  const std::string where = c.table + ".txt:" + std::to_string(c.line) + ": tauvta " + args;
  ASSERT_TRUE(WIFEXITED(status)) << where << "\n(did not exit normally)\n" << err;
  EXPECT_EQ(WEXITSTATUS(status), 1) << where << "\n" << err;
  std::vector<std::string> lines, errors;
  std::istringstream s(err);
  for (std::string l; std::getline(s, l);) {
    if (l.empty()) continue;
    lines.push_back(l);
    if (l.rfind("tauvta:", 0) == 0) errors.push_back(l);
  }
  ASSERT_FALSE(lines.empty()) << where << ": nothing on stderr";
  EXPECT_TRUE(left.empty()) << where << ": left " << left.size() << " files behind in {tmp}, e.g. " << left.front();
  EXPECT_EQ(errors.size(), 1u) << where << "\n" << err;
  EXPECT_EQ(lines.back(), expected) << where;  // warnings and progress may come before it
}

std::string case_name(const ::testing::TestParamInfo<MustFailCase>& info) {
  std::string n = info.param.table + "_line" + std::to_string(info.param.line);
  for (char& ch : n) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Tables, MustFail, ::testing::ValuesIn(load_cases()), case_name);

}  // namespace
}  // namespace tauvta
