#include "lower/program_builder.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/isa_layout.h"
#include "runtime/uop_kernel_cache.h"

namespace tauvta::lower {

// The driver behind the recording device: a bump allocator over the image, a byte image of what
// the host wrote, and run() appending streams to the program.
class RecordingDriver final : public runtime::Driver {
 public:
  explicit RecordingDriver(const hw::HwConfig& c) : config_(c), layout_(c) {
    // Every buffer starts on a page, as the board's contiguous allocator (and SimDriver) places
    // them: a layer's bursts then split at 4 KiB boundaries the same way wherever the network put
    // its tensors, so a layer timed alone (the tuner, the exploration) takes the cycles it takes
    // inside its network.
    uint64_t a = runtime::kMinDramAlignment;
    for (int m = 0; m < hw::kNumMemIds; ++m) {
      a = std::max<uint64_t>(a, std::bit_ceil(uint64_t(runtime::elem_bytes(c, hw::MemId(m)))));
    }
    align_ = a;
    next_ = a;  // address 0 stays unused, as on the simulated board
    program_.config = c;
    program_.alignment = a;
  }

  const hw::HwConfig& config() const override { return config_; }
  uint64_t allocate(uint64_t bytes) override {
    const uint64_t size = std::max<uint64_t>(align_, (bytes + align_ - 1) & ~(align_ - 1));
    const uint64_t addr = next_;
    next_ += size;
    if (next_ > (uint64_t(1) << 36)) {
      throw Error(fmt::format("the program's DRAM image would exceed 64 GiB ({} bytes)", next_));
    }
    return addr;
  }
  void free(uint64_t) override {}  // the image keeps every range: instructions refer to them
  uint64_t alignment() const override { return align_; }
  void write(uint64_t addr, std::span<const uint8_t> bytes) override {
    if (bytes.empty()) return;
    // Writes come in allocation order; merge with the previous chunk when contiguous.
    if (!program_.constants.empty()) {
      DramChunk& last = program_.constants.back();
      if (last.offset + last.bytes.size() == addr) {
        last.bytes.insert(last.bytes.end(), bytes.begin(), bytes.end());
        return;
      }
    }
    program_.constants.push_back(DramChunk{addr, std::vector<uint8_t>(bytes.begin(), bytes.end())});
  }
  void read(uint64_t addr, std::span<uint8_t> bytes) const override {
    std::fill(bytes.begin(), bytes.end(), uint8_t(0));
    for (const DramChunk& c : program_.constants) {
      const uint64_t lo = std::max(addr, c.offset);
      const uint64_t hi = std::min(addr + bytes.size(), c.offset + c.bytes.size());
      for (uint64_t a = lo; a < hi; ++a) bytes[a - addr] = c.bytes[a - c.offset];
    }
  }
  sim::RunReport run_decoded(std::span<const hw::Insn> insns, const hw::IsaLayout&,
                             const sim::RunOptions&) override {
    ProgramStream s;
    s.layer = layer_;
    s.insns.assign(insns.begin(), insns.end());
    program_.streams.push_back(std::move(s));
    return sim::RunReport{};
  }
  sim::RunReport run(std::span<const hw::RawInsn> raw, const sim::RunOptions&) override {
    ProgramStream s;
    s.layer = layer_;
    s.insns.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) s.insns.push_back(layout_.decode(raw[i], i));
    program_.streams.push_back(std::move(s));
    return sim::RunReport{};
  }

  Program& program() { return program_; }
  uint64_t end() const { return next_; }
  void set_layer(uint32_t l) { layer_ = l; }

 private:
  hw::HwConfig config_;
  hw::IsaLayout layout_;
  uint64_t align_ = 64;
  uint64_t next_ = 0;
  uint32_t layer_ = 0;
  Program program_;
};

ProgramBuilder::ProgramBuilder(const hw::HwConfig& config) {
  auto driver = std::make_unique<RecordingDriver>(config);
  driver_ = driver.get();
  device_ = std::make_unique<runtime::Device>(std::move(driver));
  runtime::CommandBuilderOptions o;
  o.max_insns = size_t(1) << 16;
  cb_ = std::make_unique<runtime::CommandBuilder>(*device_, o);
}

ProgramBuilder::~ProgramBuilder() {
  cb_.reset();
  keep_.clear();
}

const hw::HwConfig& ProgramBuilder::config() const { return device_->config(); }

runtime::DramBuffer ProgramBuilder::alloc(uint64_t bytes, const std::string& name) {
  runtime::DramBuffer b = device_->alloc(std::max<uint64_t>(bytes, 1));
  if (!name.empty()) name_region(name, b);
  return b;
}

runtime::DramBuffer ProgramBuilder::alloc_constant(std::span<const uint8_t> bytes,
                                                   const std::string& name) {
  runtime::DramBuffer b = alloc(bytes.size(), name);
  b.copy_in(bytes);
  return b;
}

void ProgramBuilder::name_region(const std::string& name, const runtime::DramBuffer& buf) {
  driver_->program().regions[name] = DramRegion{buf.phys_addr(), buf.size()};
}

uint64_t ProgramBuilder::region_offset(const runtime::DramBuffer& buf) const {
  return buf.phys_addr();
}

uint32_t ProgramBuilder::begin_layer(const std::string& name) {
  end_stream();
  // Each layer loads its own micro-op kernels, staged as a fresh cache stages them, so any layer
  // can run (or be timed) on its own and takes the cycles it takes alone.
  device_->uop_cache().restart();
  Program& p = driver_->program();
  p.layers.push_back(ProgramLayer{name, p.streams.size(), 0, 0, {}});
  driver_->set_layer(uint32_t(p.layers.size() - 1));
  return uint32_t(p.layers.size() - 1);
}

void ProgramBuilder::end_stream() { cb_->synchronize(); }

void ProgramBuilder::record_imm(uint8_t requant, ImmRole role, int piece) {
  Program& p = driver_->program();
  if (p.layers.empty()) throw InternalError("record_imm outside a layer");
  ImmSite s;
  s.requant = requant;
  s.role = role;
  s.piece = uint8_t(piece);
  const std::span<const hw::Insn> pending = cb_->pending();
  if (!pending.empty()) {
    s.stream = uint32_t(p.streams.size());
    s.insn = uint32_t(pending.size() - 1);
  } else {
    // The builder flushed right after the instruction: it is the last stream's, before FINISH.
    if (p.streams.empty() || p.streams.back().insns.size() < 2) throw InternalError("record_imm: no instruction");
    s.stream = uint32_t(p.streams.size() - 1);
    s.insn = uint32_t(p.streams.back().insns.size() - 2);
  }
  p.layers.back().sites.imms.push_back(s);
}

void ProgramBuilder::record_const(uint8_t requant, ConstRole role, const runtime::DramBuffer& buf, uint64_t bytes) {
  Program& p = driver_->program();
  if (p.layers.empty()) throw InternalError("record_const outside a layer");
  p.layers.back().sites.consts.push_back(ConstSite{region_offset(buf), bytes, requant, role});
}

Program ProgramBuilder::finish() {
  end_stream();
  cb_.reset();
  Program p = std::move(driver_->program());
  p.image_bytes = (driver_->end() + p.alignment - 1) / p.alignment * p.alignment;
  for (ProgramLayer& l : p.layers) l.num_streams = 0;
  for (size_t i = 0; i < p.streams.size(); ++i) {
    ProgramLayer& l = p.layers.at(p.streams[i].layer);
    if (l.num_streams == 0) l.first_stream = i;
    ++l.num_streams;
    l.num_insns += p.streams[i].insns.size();
  }
  return p;
}

}  // namespace tauvta::lower
