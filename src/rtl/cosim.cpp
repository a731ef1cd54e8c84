#include "rtl/cosim.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::rtl {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  if (!f.good()) throw Error(fmt::format("{}: cannot write", p.string()));
}

// Runs a shell command with its output in `log`; returns the exit status.
int run_logged(const std::string& cmd, const fs::path& log) {
  const int rc = std::system(fmt::format("{} > '{}' 2>&1", cmd, log.string()).c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

std::string tail(const std::string& s, size_t n) {
  return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

}  // namespace

CosimToolchain default_cosim_toolchain() {
  CosimToolchain t;
#ifdef TAUVTA_VERILATOR
  t.verilator = TAUVTA_VERILATOR;
  t.include = TAUVTA_VERILATOR_INCLUDE;
  t.runtime = TAUVTA_VERILATED_RUNTIME;
  t.harness = TAUVTA_COSIM_HARNESS;
  t.accelerator_harness = TAUVTA_ACCEL_HARNESS;
  t.cxx = TAUVTA_COSIM_CXX;
  t.cache = TAUVTA_COSIM_CACHE;
#endif
  return t;
}

fs::path build_cosim(const RtlDesign& design, const CosimToolchain& tools) {
  if (!tools.available()) throw Error("co-simulation: Verilator was not found when tauvta was configured");
  // The whole accelerator runs networks: its model is optimized; the datapath's runs are short.
  const bool whole = design.top == "tauvta_accelerator";
  const fs::path harness = whole ? tools.accelerator_harness : tools.harness;
  const char* opt = whole ? "-O1" : "-O0";
  std::string all = design.top + "\n" + opt + "\n";
  for (const RtlFile& f : design.files) all += f.name + "\n" + f.text;
  all += read_text(harness);
  const std::string key = fmt::format("{:016x}", std::hash<std::string>{}(all));
  const fs::path dir = tools.cache / key;
  const fs::path sim = dir / "sim";
  if (fs::exists(sim)) return sim;

  // Build in a private directory and rename it into place: concurrent tests may build the same
  // design, and a killed build must never look finished.
  fs::create_directories(tools.cache);
  const fs::path work = tools.cache / fmt::format("{}.tmp{}", key, ::getpid());
  fs::remove_all(work);
  fs::create_directories(work);
  std::string sources;
  for (const RtlFile& f : design.files) {
    write_text(work / f.name, f.text);
    sources += " '" + (work / f.name).string() + "'";
  }
  const fs::path log = work / "build.log";
  const std::string verilate = fmt::format(
      "'{}' --cc --top-module {} -Wno-fatal -Wno-WIDTH --Mdir '{}' {}", tools.verilator,
      design.top, (work / "obj").string(), sources);
  if (run_logged(verilate, log) != 0) {
    throw Error(fmt::format("co-simulation: verilator failed on {}: {}", work.string(),
                            tail(read_text(log), 2000)));
  }
  // One translation unit (the model's files and the harness) at -O0: these runs are short, and
  // parsing Verilator's headers once per file was most of the build time.
  std::string unity;
  for (const auto& entry : fs::directory_iterator(work / "obj")) {
    if (entry.path().extension() == ".cpp") unity += "#include \"" + entry.path().string() + "\"\n";
  }
  unity += "#include \"" + harness.string() + "\"\n";
  write_text(work / "unity.cpp", unity);
  const std::string inc = tools.include.string();
  const std::string flags = fmt::format(
      "{1} -g0 -std=c++17 -pthread -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=0 -DVM_TRACE_FST=0 "
      "-DVM_TRACE_VCD=0 -I'{0}' -I'{0}/vltstd'",
      inc, opt);
  // Verilator's headers precompiled once per cache (a third of each model's compile time).
  const fs::path pch = tools.cache / fmt::format("pch{}", opt);  // one per optimization level
  if (!fs::exists(pch / "verilated.h.gch")) {
    const fs::path tmp = tools.cache / fmt::format("pch.tmp{}", ::getpid());
    fs::remove_all(tmp);
    fs::create_directories(tmp);
    write_text(tmp / "verilated.h", "#include \"" + (tools.include / "verilated.h").string() + "\"\n");
    if (run_logged(fmt::format("'{}' {} -x c++-header '{}' -o '{}'", tools.cxx, flags,
                               (tmp / "verilated.h").string(), (tmp / "verilated.h.gch").string()),
                   tmp / "pch.log") == 0) {
      std::error_code ec;
      fs::rename(tmp, pch, ec);
    }
    fs::remove_all(tmp);  // failed, or another process was first: compile without it
  }
  const std::string use_pch =
      fs::exists(pch / "verilated.h.gch") ? fmt::format("-I'{}' -include verilated.h", pch.string()) : "";
  const std::string compile = fmt::format(
      "cd '{0}' && '{1}' {2} {3} -Iobj unity.cpp '{4}' -o sim", work.string(), tools.cxx, use_pch,
      flags, tools.runtime.string());
  if (run_logged(compile, log) != 0) {
    throw Error(fmt::format("co-simulation: compiling the Verilated model failed in {}: {}",
                            work.string(), tail(read_text(log), 2000)));
  }
  fs::remove_all(work / "obj");
  std::error_code ec;
  fs::rename(work, dir, ec);
  if (ec) fs::remove_all(work);  // another process finished the same design first
  return sim;
}

std::string run_cosim(const fs::path& sim, const std::string& script, const fs::path& scratch) {
  fs::create_directories(scratch);
  const fs::path in = scratch / "script.txt", out = scratch / "out.txt";
  write_text(in, script);
  const int rc = std::system(
      fmt::format("'{}' < '{}' > '{}' 2>&1", sim.string(), in.string(), out.string()).c_str());
  const int status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
  std::string text = read_text(out);
  if (status != 0) {
    throw Error(fmt::format("co-simulation: {} exited with status {}{}: {}", sim.string(), status,
                            status == 3 ? " (the compute module never finished)" : "",
                            tail(text, 500)));
  }
  return text;
}

}  // namespace tauvta::rtl
