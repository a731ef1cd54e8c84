// The float operator table: one X-macro list names every ONNX operator the float reference
// executes; the enum, the kernel declarations and the lookup table all derive from it, so an
// operator cannot be half-added (a listed operator without a kernel fails to link, and the table
// size is checked against the enum at compile time).
#pragma once

#include <string_view>
#include <vector>

#include "cpu/float_ops_common.h"

namespace tauvta::cpu {

// X(OnnxName): a tensor kernel, std::vector<Tensor> op_OnnxName(const OpArgs&).
// V(OnnxName): a value kernel, std::vector<graph::Value> op_OnnxName(const OpArgs&): the operators
// that take or make sequences of tensors (graph/value.h), and Identity, which passes either.
// Keep alphabetical; docs/cpu.md lists the same operators.
#define TAUVTA_FLOAT_OPS(X, V) \
  X(Abs)                    \
  X(Add)                    \
  X(And)                    \
  X(AveragePool)            \
  X(BatchNormalization)     \
  X(Cast)                   \
  X(Ceil)                   \
  X(Clip)                   \
  X(Concat)                 \
  V(ConcatFromSequence)     \
  X(Constant)               \
  X(ConstantOfShape)        \
  X(Conv)                   \
  X(ConvTranspose)          \
  X(DequantizeLinear)       \
  X(Div)                    \
  X(Dropout)                \
  X(Elu)                    \
  X(Equal)                  \
  X(Erf)                    \
  X(Exp)                    \
  X(Expand)                 \
  X(FakeQuant)              \
  X(Flatten)                \
  X(Floor)                  \
  X(Gather)                 \
  X(Gelu)                   \
  X(Gemm)                   \
  X(GlobalAveragePool)      \
  X(GlobalMaxPool)          \
  X(Greater)                \
  X(GreaterOrEqual)         \
  X(HardSigmoid)            \
  X(HardSwish)              \
  V(Identity)               \
  X(InstanceNormalization)  \
  X(LayerNormalization)     \
  X(LeakyRelu)              \
  X(Less)                   \
  X(LessOrEqual)            \
  X(Log)                    \
  X(LogSoftmax)             \
  X(MatMul)                 \
  X(Max)                    \
  X(MaxPool)                \
  X(Mean)                   \
  X(Min)                    \
  X(Mod)                    \
  X(Mul)                    \
  X(Neg)                    \
  X(Not)                    \
  X(Or)                     \
  X(PRelu)                  \
  X(Pad)                    \
  X(Pow)                    \
  X(QuantizeLinear)         \
  X(Range)                  \
  X(Reciprocal)             \
  X(ReduceL1)               \
  X(ReduceL2)               \
  X(ReduceLogSum)           \
  X(ReduceLogSumExp)        \
  X(ReduceMax)              \
  X(ReduceMean)             \
  X(ReduceMin)              \
  X(ReduceProd)             \
  X(ReduceSum)              \
  X(ReduceSumSquare)        \
  X(Relu)                   \
  X(Reshape)                \
  X(Resize)                 \
  X(ScatterND)              \
  X(Selu)                   \
  V(SequenceAt)             \
  V(SequenceConstruct)      \
  V(SequenceEmpty)          \
  V(SequenceErase)          \
  V(SequenceInsert)         \
  V(SequenceLength)         \
  X(Shape)                  \
  X(Shrink)                 \
  X(Sigmoid)                \
  X(Sign)                   \
  X(Slice)                  \
  X(Softmax)                \
  X(Softplus)               \
  X(Split)                  \
  V(SplitToSequence)        \
  X(Sqrt)                   \
  X(Squeeze)                \
  X(Sub)                    \
  X(Sum)                    \
  X(Tanh)                   \
  X(Tile)                   \
  X(Transpose)              \
  X(Unsqueeze)              \
  X(Upsample)               \
  X(Where)                  \
  X(Xor)

enum class FloatOp : int {
#define TAUVTA_ENUM(name) k##name,
  TAUVTA_FLOAT_OPS(TAUVTA_ENUM, TAUVTA_ENUM)
#undef TAUVTA_ENUM
  kCount
};

// A kernel computes a node's outputs (in node output order; trailing optional outputs may be
// left out when the node does not ask for them) from its inputs. Tensor kernels take and make
// tensors only (the executor refuses them a sequence input); value kernels may take sequences
// (OpArgs::sequences) and make them.
using FloatKernel = std::vector<Tensor> (*)(const OpArgs& args);
using ValueKernel = std::vector<Value> (*)(const OpArgs& args);

// One declaration per listed operator: op_Conv, op_Relu, ...
#define TAUVTA_DECLARE_TENSOR(name) std::vector<Tensor> op_##name(const OpArgs& args);
#define TAUVTA_DECLARE_VALUE(name) std::vector<Value> op_##name(const OpArgs& args);
TAUVTA_FLOAT_OPS(TAUVTA_DECLARE_TENSOR, TAUVTA_DECLARE_VALUE)
#undef TAUVTA_DECLARE_TENSOR
#undef TAUVTA_DECLARE_VALUE

struct FloatOpEntry {
  FloatOp op;
  std::string_view name;
  FloatKernel kernel;        // a tensor kernel, or nullptr
  ValueKernel value_kernel;  // a value kernel, or nullptr (exactly one of the two is set)
};

// The entry for an ONNX op_type, or nullptr when the float reference has no kernel for it.
const FloatOpEntry* find_float_op(std::string_view op_type);
// Every entry, in FloatOp order.
const std::vector<FloatOpEntry>& float_op_table();

}  // namespace tauvta::cpu
