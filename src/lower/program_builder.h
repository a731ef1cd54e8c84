// ProgramBuilder: lowering writes instructions through runtime::CommandBuilder exactly as a host
// program would, but on a recording device: its driver hands out addresses in a fresh DRAM image,
// keeps what is written there (packed weights, biases, micro-op kernels) and, instead of running
// a stream on synchronize(), appends it to the Program under the current layer. So the JIT
// micro-kernel cache, token bookkeeping and field validation are the runtime's own, and the
// result is a Program value that can run anywhere.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "lower/program.h"
#include "runtime/command_builder.h"
#include "runtime/device.h"

namespace tauvta::lower {

class RecordingDriver;

class ProgramBuilder {
 public:
  explicit ProgramBuilder(const hw::HwConfig& config);
  ~ProgramBuilder();
  ProgramBuilder(const ProgramBuilder&) = delete;
  ProgramBuilder& operator=(const ProgramBuilder&) = delete;

  const hw::HwConfig& config() const;
  runtime::Device& device() { return *device_; }
  runtime::CommandBuilder& cb() { return *cb_; }

  // A zero-filled region of the image (an activation tensor or scratch), named for the
  // program's region table when `name` is not empty.
  runtime::DramBuffer alloc(uint64_t bytes, const std::string& name = "");
  // A region holding `bytes` from the start (constants: weights, biases).
  runtime::DramBuffer alloc_constant(std::span<const uint8_t> bytes, const std::string& name = "");
  // Registers an existing buffer under a name (for outputs shared between layers).
  void name_region(const std::string& name, const runtime::DramBuffer& buf);
  uint64_t region_offset(const runtime::DramBuffer& buf) const;

  // Patch sites of the current layer (lower/patch_sites.h): the ALU instruction just emitted,
  // and a constant buffer's bytes.
  void record_imm(uint8_t requant, ImmRole role, int piece);
  void record_const(uint8_t requant, ConstRole role, const runtime::DramBuffer& buf, uint64_t bytes);

  // Streams recorded from now on belong to a new layer; returns its index.
  uint32_t begin_layer(const std::string& name);
  // Closes the current stream (a FINISH-terminated run) if it holds anything.
  void end_stream();

  // Ends recording and returns the program. The builder cannot be used afterwards.
  Program finish();

 private:
  std::unique_ptr<runtime::Device> device_;
  RecordingDriver* driver_ = nullptr;  // owned by device_
  std::unique_ptr<runtime::CommandBuilder> cb_;
  std::vector<runtime::DramBuffer> keep_;  // buffers the program refers to stay allocated
};

}  // namespace tauvta::lower
