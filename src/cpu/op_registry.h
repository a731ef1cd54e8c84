// The float operator table: one X-macro list names every ONNX operator the float reference
// executes; the enum, the kernel declarations and the lookup table all derive from it, so an
// operator cannot be half-added (a listed operator without a kernel fails to link, and the table
// size is checked against the enum at compile time).
#pragma once

#include <string_view>
#include <vector>

#include "cpu/float_ops_common.h"

namespace tauvta::cpu {

// X(OnnxName) — keep alphabetical; docs/cpu.md lists the same operators.
#define TAUVTA_FLOAT_OPS(X) \
  X(Add)                    \
  X(AveragePool)            \
  X(BatchNormalization)     \
  X(Cast)                   \
  X(Clip)                   \
  X(Concat)                 \
  X(Constant)               \
  X(Conv)                   \
  X(ConvTranspose)          \
  X(DequantizeLinear)       \
  X(Dropout)                \
  X(Flatten)                \
  X(Gather)                 \
  X(Gemm)                   \
  X(GlobalAveragePool)      \
  X(GlobalMaxPool)          \
  X(Identity)               \
  X(LeakyRelu)              \
  X(MatMul)                 \
  X(MaxPool)                \
  X(Mul)                    \
  X(PRelu)                  \
  X(Pad)                    \
  X(QuantizeLinear)         \
  X(Relu)                   \
  X(Reshape)                \
  X(Resize)                 \
  X(Shape)                  \
  X(Sigmoid)                \
  X(Slice)                  \
  X(Softmax)                \
  X(Squeeze)                \
  X(Sub)                    \
  X(Tanh)                   \
  X(Transpose)              \
  X(Unsqueeze)              \
  X(Upsample)

enum class FloatOp : int {
#define TAUVTA_ENUM(name) k##name,
  TAUVTA_FLOAT_OPS(TAUVTA_ENUM)
#undef TAUVTA_ENUM
  kCount
};

// A kernel computes a node's outputs (in node output order; trailing optional outputs may be
// left out when the node does not ask for them) from its inputs.
using FloatKernel = std::vector<Tensor> (*)(const OpArgs& args);

// One declaration per listed operator: op_Conv, op_Relu, ...
#define TAUVTA_DECLARE(name) std::vector<Tensor> op_##name(const OpArgs& args);
TAUVTA_FLOAT_OPS(TAUVTA_DECLARE)
#undef TAUVTA_DECLARE

struct FloatOpEntry {
  FloatOp op;
  std::string_view name;
  FloatKernel kernel;
};

// The entry for an ONNX op_type, or nullptr when the float reference has no kernel for it.
const FloatOpEntry* find_float_op(std::string_view op_type);
// Every entry, in FloatOp order.
const std::vector<FloatOpEntry>& float_op_table();

}  // namespace tauvta::cpu
