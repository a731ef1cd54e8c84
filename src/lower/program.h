// Program: a lowered accelerator program as a value. Instruction streams (each ends with FINISH,
// as one VTA run), the DRAM image they address (from byte 0: constants such as packed weights,
// biases and micro-op kernels, plus named regions for activations), and which streams belong to
// which layer. A Program does not depend on any device: it can be timed without data
// (time_program), loaded onto a Device at any suitably aligned address (LoadedProgram relocates
// the DRAM fields once), dumped, disassembled and saved.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "hw/hw_config.h"
#include "hw/insn.h"
#include "lower/patch_sites.h"
#include "sim/report.h"

namespace tauvta::lower {

struct ProgramStream {
  std::vector<hw::Insn> insns;  // FINISH-terminated; dram_base relative to the image start
  uint32_t layer = 0;           // index into Program::layers
};

struct ProgramLayer {
  std::string name;
  size_t first_stream = 0, num_streams = 0;
  uint64_t num_insns = 0;
  LayerPatchSites sites;  // format-dependent immediates and constants (lower/patch_sites.h)
};

// A named byte range of the image (a tensor in the accelerator's layout).
struct DramRegion {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

// Initial bytes of part of the image.
struct DramChunk {
  uint64_t offset = 0;
  std::vector<uint8_t> bytes;
};

struct Program {
  hw::HwConfig config;
  uint64_t image_bytes = 0;  // bytes the streams address, from 0
  uint64_t alignment = 0;    // a load address must be a multiple of this
  std::vector<ProgramStream> streams;
  std::vector<ProgramLayer> layers;
  std::vector<DramChunk> constants;
  std::map<std::string, DramRegion> regions;

  uint64_t num_insns() const;
  uint64_t constant_bytes() const;
  const DramRegion& region(const std::string& name) const;  // throws naming the region
  // "# layer NAME (stream S)" headers and "NNNN: <disassembly>" lines.
  std::string disassemble() const;
};

// Cycles of every stream from the timing model alone (no data, no encoding). Reusable: keeps
// the model's scratch buffers between calls, so timing many programs in a row is cheap.
class ProgramTimer {
 public:
  explicit ProgramTimer(const hw::HwConfig& config);
  ~ProgramTimer();
  ProgramTimer(const ProgramTimer&) = delete;
  ProgramTimer& operator=(const ProgramTimer&) = delete;

  // One report per layer of `p` (its streams summed), in layer order.
  std::vector<sim::RunReport> time_layers(const Program& p);
  sim::RunReport time(const Program& p);  // the whole program
  // The whole program, stopping once it passes `cycle_limit` cycles (then the result's cycles
  // are a lower bound above the limit): the tuner's candidates slower than its best so far.
  sim::RunReport time(const Program& p, uint64_t cycle_limit);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace tauvta::lower
