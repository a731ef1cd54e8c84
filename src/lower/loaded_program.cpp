#include "lower/loaded_program.h"

#include <fmt/format.h>

#include "common/error.h"
#include "runtime/uop_kernel_cache.h"

namespace tauvta::lower {

LoadedProgram::LoadedProgram(runtime::Device& device, const Program& program)
    : device_(device), program_(program) {
  if (!(device.config() == program.config)) {
    throw Error(fmt::format("the program was compiled for config {} but the device is {}",
                            program.config.name(), device.config().name()));
  }
  image_ = device.alloc(program.image_bytes);
  const uint64_t base = image_.phys_addr();
  if (program.alignment == 0 || base % program.alignment != 0) {
    throw Error(fmt::format("the device placed the program at byte {}, which is not a multiple of "
                            "its alignment {}",
                            base, program.alignment));
  }
  for (const DramChunk& c : program.constants) image_.copy_in(c.bytes, c.offset);
  uint32_t delta[hw::kNumMemIds];
  for (int m = 0; m < hw::kNumMemIds; ++m) {
    delta[m] = uint32_t(base / runtime::elem_bytes(device.config(), hw::MemId(m)));
  }
  const hw::IsaLayout& layout = device.layout();
  raw_.reserve(program.streams.size());
  for (const ProgramStream& s : program.streams) {
    std::vector<hw::RawInsn> raw;
    raw.reserve(s.insns.size());
    for (hw::Insn insn : s.insns) {
      if (insn.is_mem() && insn.memory_type < hw::kNumMemIds) {
        const uint64_t moved = uint64_t(insn.dram_base) + delta[insn.memory_type];
        if (moved > 0xffffffffull) {
          throw Error(fmt::format("relocating the program to byte {} puts a DRAM element address "
                                  "past 32 bits",
                                  base));
        }
        insn.dram_base = uint32_t(moved);
      }
      raw.push_back(layout.encode(insn));
    }
    raw_.push_back(std::move(raw));
  }
}

void LoadedProgram::write_region(const std::string& name, std::span<const uint8_t> bytes) {
  const DramRegion& r = program_.region(name);
  if (bytes.size() > r.bytes) {
    throw Error(fmt::format("{} bytes do not fit region '{}' of {} bytes", bytes.size(), name,
                            r.bytes));
  }
  image_.copy_in(bytes, r.offset);
}

uint64_t LoadedProgram::region_addr(const std::string& name) const {
  return image_.phys_addr() + program_.region(name).offset;
}

std::vector<uint8_t> LoadedProgram::read_region(const std::string& name) const {
  const DramRegion& r = program_.region(name);
  std::vector<uint8_t> out(r.bytes);
  image_.copy_out(out, r.offset);
  return out;
}

sim::RunReport LoadedProgram::run_stream(size_t i, const sim::RunOptions& options) {
  if (i >= raw_.size()) throw InternalError(fmt::format("stream {} past the end", i));
  // The program manages the micro-op SRAM itself: whatever the device's own cache believed
  // resident is stale afterwards.
  device_.uop_cache().invalidate();
  return device_.driver().run(raw_[i], options);
}

sim::RunReport LoadedProgram::run_layer(size_t l, const sim::RunOptions& options) {
  const ProgramLayer& layer = program_.layers.at(l);
  sim::RunReport total;
  for (size_t i = 0; i < layer.num_streams; ++i) {
    total.add(run_stream(layer.first_stream + i, options));
  }
  return total;
}

}  // namespace tauvta::lower
