// The module boundaries of docs/architecture.md, checked on the sources: every `#include
// "module/..."` in src/<module>/ names the module itself or one it may depend on (directly or
// through the modules it depends on). In particular nothing but the command line includes cli/:
// the library builds every report and runs every round, and the CLI and the Python module only
// parse arguments and present results over the same calls.
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

// Each module's direct dependencies, as docs/architecture.md's table lists them.
const std::map<std::string, std::set<std::string>>& direct_dependencies() {
  static const std::map<std::string, std::set<std::string>> deps = {
      {"common", {}},
      {"hw", {"common"}},
      {"sim", {"hw"}},
      {"runtime", {"sim"}},
      {"graph", {"common"}},
      {"io", {"graph"}},
      {"cpu", {"graph"}},
      {"model", {"graph", "io", "cpu", "hw"}},
      {"lower", {"runtime", "graph", "hw"}},
      {"ml", {"common"}},
      {"rtl", {"hw"}},
      {"fpga", {"rtl", "ml"}},
      {"report", {"common"}},
      {"cluster", {"common"}},
      {"backend", {"lower", "cpu", "model", "fpga", "rtl", "report"}},
      {"tune", {"backend", "ml", "fpga", "cluster", "report"}},
      {"precision", {"backend", "model", "report"}},
      {"dse", {"fpga", "tune", "precision", "cluster"}},
      {"python", {"dse", "precision", "tune", "backend", "fpga", "rtl", "report"}},
      {"cli", {"dse", "precision", "tune", "backend", "fpga", "rtl", "report", "cluster"}},
  };
  return deps;
}

std::set<std::string> reachable(const std::string& module) {
  std::set<std::string> seen;
  std::vector<std::string> todo = {module};
  while (!todo.empty()) {
    const std::string m = todo.back();
    todo.pop_back();
    if (!seen.insert(m).second) continue;
    const auto it = direct_dependencies().find(m);
    if (it != direct_dependencies().end()) todo.insert(todo.end(), it->second.begin(), it->second.end());
  }
  return seen;
}

TEST(ModuleLayering, EveryIncludeFollowsTheArchitecture) {
  const fs::path src = fs::path(TAUVTA_SOURCE_DIR) / "src";
  ASSERT_TRUE(fs::is_directory(src));
  const std::regex include_re(R"re(^\s*#\s*include\s+"([a-z_]+)/)re");
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(src)) {
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".inc")) continue;
    const std::string module = fs::relative(e.path(), src).begin()->string();
    ASSERT_TRUE(direct_dependencies().count(module)) << "src/" << module << " is not in the architecture's table";
    const std::set<std::string> allowed = reachable(module);
    std::ifstream in(e.path());
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      std::smatch m;
      if (!std::regex_search(line, m, include_re)) continue;
      const std::string used = m[1];
      if (!direct_dependencies().count(used)) continue;  // a generated or third-party path
      EXPECT_TRUE(allowed.count(used)) << fs::relative(e.path(), src).string() << ":" << number << " includes " << used
                                       << "/, which " << module << " may not depend on";
    }
    ++files;
  }
  EXPECT_GT(files, 300u);
}

TEST(ModuleLayering, TheCheckCanFail) {
  // The library's modules cannot reach the command line, and the Python module reaches it only
  // through the library.
  for (const auto& [module, deps] : direct_dependencies()) {
    if (module != "cli") {
      EXPECT_FALSE(reachable(module).count("cli")) << module;
    }
  }
  EXPECT_FALSE(reachable("backend").count("tune"));
  EXPECT_TRUE(reachable("dse").count("common"));
}

}  // namespace
