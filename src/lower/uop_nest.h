// A micro-op nest: the set of (dst, src, wgt) index triples base + sum_d i_d * factor_d over a
// box of extents, which is what every GEMM or ALU instruction of a lowered layer computes. The
// hardware runs two affine loops around a list of micro-ops, so make_nest_kernel turns two
// dimensions into the loops (within the factor field widths and the 14-bit iteration counts) and
// enumerates the rest as micro-ops, keeping the caller's order (callers put destination-varying
// dimensions innermost). The loops are the pair that shrinks the micro-op list most among those
// whose micro-op stream never reads an accumulator within the GEMM or ALU pipeline's depth of its
// write: VTA's HLS design does not check that dependence (it would read the old value) and the
// generated RTL waits for it. Only a nest with too few distinct accumulators has no such pair.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "common/flat_hash_index.h"
#include "hw/hw_config.h"
#include "runtime/uop_kernel.h"

namespace tauvta::lower {

struct NestDim {
  uint32_t extent = 1;
  uint32_t dst = 0, src = 0, wgt = 0;  // index steps per iteration
};

// Lowering passes nests as spans of fixed arrays: it builds several per output tile, and heap
// vectors there cost more than the kernels they name (memoized).
runtime::UopKernel make_nest_kernel(const hw::HwConfig& config, runtime::UopKind kind,
                                    uint32_t dst0, uint32_t src0, uint32_t wgt0,
                                    std::span<const NestDim> dims);

// Micro-op executions of a nest (the product of its extents).
uint64_t nest_points(std::span<const NestDim> dims);

// The kernels one lowering asks for again and again (every interior tile of a layer runs the
// same nests at the same bases), each built once: lowering is the tuner's inner loop.
class NestKernelMemo {
 public:
  NestKernelMemo(const hw::HwConfig& config, const hw::IsaLayout& layout) : config_(config), layout_(layout) {}
  const runtime::EncodedKernel& get(runtime::UopKind kind, uint32_t dst0, uint32_t src0, uint32_t wgt0,
                                    std::span<const NestDim> dims);

 private:
  struct Entry {
    std::vector<uint32_t> key;  // kind, bases, then extent and factors of every dimension
    runtime::EncodedKernel kernel;
  };
  const hw::HwConfig& config_;
  const hw::IsaLayout& layout_;
  std::deque<Entry> entries_;  // deque: references handed out stay valid
  // By a hash of the request, computed without building its key; entries compare field by field.
  FlatHashIndex index_;
};

}  // namespace tauvta::lower
