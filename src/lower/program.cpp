#include "lower/program.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/disasm.h"
#include "sim/timing_model.h"

namespace tauvta::lower {

uint64_t Program::num_insns() const {
  uint64_t n = 0;
  for (const ProgramStream& s : streams) n += s.insns.size();
  return n;
}

uint64_t Program::constant_bytes() const {
  uint64_t n = 0;
  for (const DramChunk& c : constants) n += c.bytes.size();
  return n;
}

const DramRegion& Program::region(const std::string& name) const {
  auto it = regions.find(name);
  if (it == regions.end()) throw Error(fmt::format("program has no DRAM region '{}'", name));
  return it->second;
}

std::string Program::disassemble() const {
  std::string s;
  for (size_t i = 0; i < streams.size(); ++i) {
    const ProgramStream& st = streams[i];
    const std::string& layer = st.layer < layers.size() ? layers[st.layer].name : "?";
    s += fmt::format("# layer {} (stream {})\n", layer, i);
    for (size_t k = 0; k < st.insns.size(); ++k) {
      s += fmt::format("{:04}: {}\n", k, hw::disassemble(st.insns[k]));
    }
  }
  return s;
}

struct ProgramTimer::Impl {
  explicit Impl(const hw::HwConfig& c) : model(c) {}
  sim::TimingModel model;
};

ProgramTimer::ProgramTimer(const hw::HwConfig& config) : impl_(new Impl(config)) {}
ProgramTimer::~ProgramTimer() { delete impl_; }

std::vector<sim::RunReport> ProgramTimer::time_layers(const Program& p) {
  std::vector<sim::RunReport> out(p.layers.size());
  for (const ProgramStream& s : p.streams) {
    if (s.layer >= out.size()) throw InternalError("program stream names a layer past the end");
    const auto t0 = std::chrono::steady_clock::now();
    sim::RunReport r;
    r.timing_only = true;
    impl_->model.schedule(s.insns, {}, r);
    r.sim_wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out[s.layer].add(r);
    out[s.layer].timing_only = true;
  }
  return out;
}

sim::RunReport ProgramTimer::time(const Program& p, uint64_t cycle_limit) {
  sim::RunReport total;
  total.timing_only = true;
  for (const ProgramStream& s : p.streams) {
    sim::RunReport r;
    r.timing_only = true;
    const uint64_t left = cycle_limit - std::min(cycle_limit, total.cycles);
    impl_->model.schedule(s.insns, {}, r, left);
    total.add(r);
    if (total.cycles > cycle_limit) break;
  }
  return total;
}

sim::RunReport ProgramTimer::time(const Program& p) {
  sim::RunReport total;
  for (const sim::RunReport& r : time_layers(p)) total.add(r);
  total.timing_only = true;
  return total;
}

}  // namespace tauvta::lower
