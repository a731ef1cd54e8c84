// UopKernel: a micro-op kernel as a GEMM or ALU instruction runs it: a list of micro-ops inside
// up to two affine loops (outer, inner) whose extents and dst/src/wgt factors become the
// instruction's iter_out/iter_in and factor fields. UopKernelBuilder records one the way VTA's
// VTAUopLoopBegin / VTAUopPush / VTAUopLoopEnd do.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hw/insn.h"
#include "hw/isa_layout.h"

namespace tauvta::runtime {

enum class UopKind : uint8_t { kGemm, kAlu };

struct UopLoop {
  uint32_t extent = 1;
  uint32_t dst_factor = 0, src_factor = 0, wgt_factor = 0;  // wgt_factor: GEMM only
  friend bool operator==(const UopLoop&, const UopLoop&) = default;
};

struct UopKernel {
  UopKind kind = UopKind::kGemm;
  std::vector<hw::Uop> uops;
  std::vector<UopLoop> loops;  // outer first; at most two

  UopLoop outer() const { return loops.size() >= 1 ? loops[0] : UopLoop{}; }
  UopLoop inner() const { return loops.size() >= 2 ? loops[1] : UopLoop{}; }
  // Micro-op executions per instruction: uops * outer extent * inner extent.
  uint64_t executions() const;
  // The 32-bit words the micro-op SRAM holds (GEMM or ALU encoding).
  std::vector<uint32_t> encode(const hw::IsaLayout& layout) const;
  // Every (outer, inner, uop) execution with the loop offsets applied, in execution order, as a
  // loop-free kernel. Throws tauvta::Error when an index plus its offsets does not fit its
  // micro-op field (that kernel relies on the hardware's index wrapping and cannot be split).
  UopKernel materialize(const hw::IsaLayout& layout) const;
  std::string to_string() const;  // one line per loop and micro-op, for dumps
  friend bool operator==(const UopKernel&, const UopKernel&) = default;
};

// A kernel with its micro-op words and their content hash computed once: lowerings issue the
// same kernel for every tile of a layer, and encoding and hashing it at each use would dominate
// the lowering (the tuner's inner loop).
struct EncodedKernel {
  UopKernel kernel;
  std::vector<uint32_t> words;
  uint64_t hash = 0;
};
EncodedKernel encode_kernel(const UopKernel& kernel, const hw::IsaLayout& layout);

// The content hash the micro-kernel cache looks kernels up by.
uint64_t hash_uop_words(std::span<const uint32_t> words);

// Records a kernel: loop_begin calls (at most two, before the first push), pushes, then one
// loop_end per loop_begin. Misuse throws tauvta::Error.
class UopKernelBuilder {
 public:
  explicit UopKernelBuilder(UopKind kind) { kernel_.kind = kind; }

  UopKernelBuilder& loop_begin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
                               uint32_t wgt_factor = 0);
  UopKernelBuilder& push(uint32_t dst, uint32_t src, uint32_t wgt = 0);
  UopKernelBuilder& loop_end();
  // Throws if loops are still open or no micro-op was pushed.
  UopKernel build() const;

 private:
  UopKernel kernel_;
  int open_ = 0;
  int closed_ = 0;
};

}  // namespace tauvta::runtime
