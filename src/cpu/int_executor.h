// The integer reference: runs a quantized Graph (graph/quantize.h, docs/quantization.md) on the
// CPU with the accelerator's arithmetic, bit for bit: integer GEMMs into an accumulator that wraps
// at its width, requantization by ADD / SHR / MIN / MAX, truncation to the output width.
// Data-movement operators run on integer tensors exactly; float fallbacks between Dequantize and
// Quantize run on the float kernels.
#pragma once

#include <memory>

#include "cpu/accumulator_wraps.h"
#include "cpu/float_executor.h"
#include "graph/graph.h"

namespace tauvta::cpu {

struct IntNodePlan;  // cpu/int_ops.h

struct IntRunOptions {
  // Plain loops instead of the AVX-512 GEMM kernel (identical results).
  bool portable_kernels = false;
  // Direct int64 loops for every reduction (the slow, obviously right reference; also what
  // 64-bit accumulators always use). Identical results.
  bool reference_kernels = false;
  // Worker threads for convolutions over the batch; 0: one per hardware thread.
  int threads = 1;
  // Counts each requantizing node's accumulator wraps when set (cpu/accumulator_wraps.h). A node
  // whose sums could leave 32 bits (largest |input| times its largest row of |weights|, plus
  // |bias|) then runs on the int64 loops, so every count is of exact sums.
  AccumulatorWraps* wraps = nullptr;
};

// Prepares the graph once (packed weights, per-channel shifts) and runs it on any number of
// batches. Integer activations are int32 tensors; graph inputs and outputs are float. The graph
// is referenced, not copied: it must outlive the executor.
class IntExecutor {
 public:
  explicit IntExecutor(const graph::Graph& g, IntRunOptions options = {});
  ~IntExecutor();
  IntExecutor(const IntExecutor&) = delete;
  IntExecutor& operator=(const IntExecutor&) = delete;

  // Every graph input must be given (any batch size); returns the graph outputs by name. The
  // observer sees each node's outputs (integer tensors for integer operators).
  TensorMap run(const TensorMap& inputs, const NodeObserver& observer = {}) const;

  const graph::Graph& graph() const { return g_; }

 private:
  const graph::Graph& g_;
  IntRunOptions options_;
  std::vector<std::unique_ptr<IntNodePlan>> plans_;  // one per node (nullptr: nothing to prepare)
  std::vector<std::vector<std::string>> release_after_;  // values no later node reads, per node
};

// One-shot convenience: prepare and run.
TensorMap run_int(const graph::Graph& g, const TensorMap& inputs, const NodeObserver& observer = {},
                  const IntRunOptions& options = {});

// Whether the integer executor runs this operator on integer tensors (the quantized op set and
// the data-movement operators); anything else must be a float fallback.
bool int_op_supported(const std::string& op_type);

}  // namespace tauvta::cpu
