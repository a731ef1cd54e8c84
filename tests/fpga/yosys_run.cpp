#include "fpga/yosys_run.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace tauvta::test {

namespace {

// LUTs a cell occupies (Vivado's "CLB LUTs" counts LUTs used as memory and shift registers).
int lut_weight(const std::string& cell) {
  static const std::map<std::string, int> w = {
      {"LUT1", 1},     {"LUT2", 1},      {"LUT3", 1},        {"LUT4", 1},        {"LUT5", 1},
      {"LUT6", 1},     {"LUT6_2", 1},    {"INV", 1},         {"SRL16E", 1},      {"SRLC32E", 1},
      {"SRLC16E", 1},  {"RAM32M", 4},    {"RAM64M", 4},      {"RAM32M16", 8},    {"RAM64M8", 8},
      {"RAM32X16DR8", 8}, {"RAM32X1D", 2}, {"RAM64X1D", 2},  {"RAM128X1D", 4},   {"RAM256X1D", 8},
      {"RAM32X1S", 1}, {"RAM64X1S", 1},  {"RAM128X1S", 2},   {"RAM256X1S", 4},   {"RAM512X1S", 8}};
  const auto it = w.find(cell);
  return it == w.end() ? 0 : it->second;
}

}  // namespace

SynthesisResult synthesize(const std::filesystem::path& dir, const std::string& files,
                           const std::string& top, rtl::Family family, const std::string& pre,
                           bool nodsp) {
  SynthesisResult r;
  const std::filesystem::path stat = dir / (top + "_" + rtl::family_name(family) + "_stat.txt");
  r.log = (dir / (top + "_" + rtl::family_name(family) + "_yosys.log")).string();
  std::filesystem::remove(stat);
  const std::string cmd = fmt::format(
      "cd '{}' && yosys -q -p 'read_verilog {}; {} synth_xilinx -family {} -top {} -noiopad "
      "-flatten{}; tee -q -o {} stat' > '{}' 2>&1",
      dir.string(), files, pre, rtl::family_name(family), top, nodsp ? " -nodsp" : "",
      stat.string(), r.log);
  r.ok = std::system(cmd.c_str()) == 0;
  std::ifstream f(stat);
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    std::string name;
    int count = 0;
    if (in >> name >> count && name.size() > 2 && std::isupper(static_cast<unsigned char>(name[0]))) {
      r.cells[name] = count;  // the flattened top is the only module: its cells
    }
  }
  for (const auto& [cell, n] : r.cells) {
    r.resources.lut += double(lut_weight(cell)) * n;
    if (cell.rfind("FD", 0) == 0) r.resources.ff += n;
    if (cell.rfind("DSP48", 0) == 0) r.resources.dsp += n;
    if (cell.rfind("RAMB36", 0) == 0) r.resources.bram36 += n;
    if (cell.rfind("RAMB18", 0) == 0) r.resources.bram36 += 0.5 * n;
    if (cell.rfind("URAM", 0) == 0) r.resources.uram += n;
  }
  r.ok = r.ok && !r.cells.empty();
  return r;
}

}  // namespace tauvta::test
