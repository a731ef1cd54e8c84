#include "graph/onnx_ops.h"

#include <algorithm>

namespace tauvta::graph {

namespace {

constexpr int kMany = 1 << 30;

// Versions and attributes from the ONNX operator changelog (ai.onnx, up to opset 17). Attributes
// of versions that only exist before opset 9 are listed when an older model may still use them
// at a version that is unchanged at opset 9 (see import's opset rule).
std::vector<OnnxOpSpec> make_specs() {
  const std::vector<OnnxAttrSpec> conv_attrs = {
      {"auto_pad"}, {"dilations"}, {"group"}, {"kernel_shape"}, {"pads"}, {"strides"}};
  std::vector<OnnxAttrSpec> conv_t_attrs = conv_attrs;
  conv_t_attrs.push_back({"output_padding"});
  conv_t_attrs.push_back({"output_shape"});
  const std::vector<OnnxAttrSpec> reduce_attrs = {{"axes"}, {"keepdims"}};
  std::vector<OnnxOpSpec> specs = {
      {"Add", {1, 6, 7, 13, 14}, {}, 2, 2, 1, 1},
      {"AveragePool", {1, 7, 10, 11},
       {{"auto_pad"}, {"ceil_mode", 10}, {"count_include_pad", 7}, {"kernel_shape"}, {"pads"}, {"strides"}},
       1, 1, 1, 1},
      {"BatchNormalization", {1, 6, 7, 9, 14, 15},
       {{"epsilon"}, {"momentum"}, {"training_mode", 14}}, 5, 5, 1, 5},
      {"Cast", {1, 6, 9, 13}, {{"to"}}, 1, 1, 1, 1},
      {"Clip", {1, 6, 11, 12, 13}, {{"min", 1, 6}, {"max", 1, 6}}, 1, 3, 1, 1},
      {"Concat", {1, 4, 11, 13}, {{"axis"}}, 1, kMany, 1, 1},
      {"Constant", {1, 9, 11, 12, 13},
       {{"value"}, {"sparse_value", 11}, {"value_float", 12}, {"value_floats", 12}, {"value_int", 12},
        {"value_ints", 12}, {"value_string", 12}, {"value_strings", 12}},
       0, 0, 1, 1},
      {"Conv", {1, 11}, conv_attrs, 2, 3, 1, 1},
      {"ConvTranspose", {1, 11}, conv_t_attrs, 2, 3, 1, 1},
      {"DequantizeLinear", {10, 13}, {{"axis", 13}}, 2, 3, 1, 1},
      {"Dropout", {1, 6, 7, 10, 12, 13}, {{"ratio", 1, 10}, {"seed", 12}}, 1, 3, 1, 2},
      {"Flatten", {1, 9, 11, 13}, {{"axis"}}, 1, 1, 1, 1},
      {"Gather", {1, 11, 13}, {{"axis"}}, 2, 2, 1, 1},
      {"Gemm", {1, 6, 7, 9, 11, 13}, {{"alpha"}, {"beta"}, {"transA"}, {"transB"}}, 2, 3, 1, 1},
      {"GlobalAveragePool", {1}, {}, 1, 1, 1, 1},
      {"GlobalMaxPool", {1}, {}, 1, 1, 1, 1},
      {"Identity", {1, 13, 14, 16}, {}, 1, 1, 1, 1},
      {"LeakyRelu", {1, 6, 16}, {{"alpha"}}, 1, 1, 1, 1},
      {"MatMul", {1, 9, 13}, {}, 2, 2, 1, 1},
      {"MaxPool", {1, 8, 10, 11, 12},
       {{"auto_pad"}, {"ceil_mode", 10}, {"dilations", 10}, {"kernel_shape"}, {"pads"},
        {"storage_order", 8}, {"strides"}},
       1, 1, 1, 2},
      {"Mul", {1, 6, 7, 13, 14}, {}, 2, 2, 1, 1},
      {"Pad", {1, 2, 11, 13}, {{"mode"}, {"pads", 1, 2}, {"value", 1, 2}}, 1, 3, 1, 1},
      {"PRelu", {1, 6, 7, 9, 16}, {}, 2, 2, 1, 1},
      {"QuantizeLinear", {10, 13}, {{"axis", 13}}, 2, 3, 1, 1},
      {"Relu", {1, 6, 13, 14}, {}, 1, 1, 1, 1},
      {"Reshape", {1, 5, 13, 14}, {{"allowzero", 14}}, 2, 2, 1, 1},
      {"Resize", {10, 11, 13},
       {{"mode"}, {"coordinate_transformation_mode", 11}, {"cubic_coeff_a", 11}, {"exclude_outside", 11},
        {"extrapolation_value", 11}, {"nearest_mode", 11}},
       1, 4, 1, 1},
      {"Shape", {1, 13, 15}, {{"start", 15}, {"end", 15}}, 1, 1, 1, 1},
      {"Sigmoid", {1, 6, 13}, {}, 1, 1, 1, 1},
      {"Slice", {1, 10, 11, 13}, {{"starts", 1, 1}, {"ends", 1, 1}, {"axes", 1, 1}}, 1, 5, 1, 1},
      {"Softmax", {1, 11, 13}, {{"axis"}}, 1, 1, 1, 1},
      {"Squeeze", {1, 11, 13}, {{"axes", 1, 11}}, 1, 2, 1, 1},
      {"Sub", {1, 6, 7, 13, 14}, {}, 2, 2, 1, 1},
      {"Sum", {1, 6, 8, 13}, {}, 1, kMany, 1, 1},
      {"Tanh", {1, 6, 13}, {}, 1, 1, 1, 1},
      {"Transpose", {1, 13}, {{"perm"}}, 1, 1, 1, 1},
      {"Unsqueeze", {1, 11, 13}, {{"axes", 1, 11}}, 1, 2, 1, 1},
      {"Upsample", {7, 9}, {{"mode"}}, 2, 2, 1, 1},
      {"Abs", {1, 6, 13}, {}, 1, 1, 1, 1},
      {"And", {1, 7}, {}, 2, 2, 1, 1},
      {"Ceil", {1, 6, 13}, {}, 1, 1, 1, 1},
      {"ConstantOfShape", {9}, {{"value"}}, 1, 1, 1, 1},
      {"Div", {1, 6, 7, 13, 14}, {}, 2, 2, 1, 1},
      {"Equal", {1, 7, 11, 13}, {}, 2, 2, 1, 1},
      {"Erf", {9, 13}, {}, 1, 1, 1, 1},
      {"Exp", {1, 6, 13}, {}, 1, 1, 1, 1},
      {"Expand", {8, 13}, {}, 2, 2, 1, 1},
      {"Floor", {1, 6, 13}, {}, 1, 1, 1, 1},
      {"Greater", {1, 7, 9, 13}, {}, 2, 2, 1, 1},
      {"GreaterOrEqual", {12, 16}, {}, 2, 2, 1, 1},
      {"HardSigmoid", {1, 6}, {{"alpha"}, {"beta"}}, 1, 1, 1, 1},
      {"HardSwish", {14}, {}, 1, 1, 1, 1},
      {"Elu", {1, 6}, {{"alpha"}}, 1, 1, 1, 1},
      {"Selu", {1, 6}, {{"alpha"}, {"gamma"}}, 1, 1, 1, 1},
      {"Softplus", {1}, {}, 1, 1, 1, 1},
      {"Sign", {9, 13}, {}, 1, 1, 1, 1},
      {"Shrink", {9}, {{"bias"}, {"lambd"}}, 1, 1, 1, 1},
      {"LogSoftmax", {1, 11, 13}, {{"axis"}}, 1, 1, 1, 1},
      {"InstanceNormalization", {1, 6}, {{"epsilon"}}, 3, 3, 1, 1},
      {"LayerNormalization", {17}, {{"axis"}, {"epsilon"}, {"stash_type"}}, 2, 3, 1, 3},
      {"Less", {1, 7, 9, 13}, {}, 2, 2, 1, 1},
      {"LessOrEqual", {12, 16}, {}, 2, 2, 1, 1},
      {"Log", {1, 6, 13}, {}, 1, 1, 1, 1},
      {"Max", {1, 6, 8, 12, 13}, {}, 1, kMany, 1, 1},
      {"Mean", {1, 6, 8, 13}, {}, 1, kMany, 1, 1},
      {"Min", {1, 6, 8, 12, 13}, {}, 1, kMany, 1, 1},
      {"Mod", {10, 13}, {{"fmod"}}, 2, 2, 1, 1},
      {"Neg", {1, 6, 13}, {}, 1, 1, 1, 1},
      {"Not", {1}, {}, 1, 1, 1, 1},
      {"Or", {1, 7}, {}, 2, 2, 1, 1},
      {"Pow", {1, 7, 12, 13, 15}, {}, 2, 2, 1, 1},
      {"Range", {11}, {}, 3, 3, 1, 1},
      {"Reciprocal", {1, 6, 13}, {}, 1, 1, 1, 1},
      {"ReduceL1", {1, 11, 13}, reduce_attrs, 1, 1, 1, 1},
      {"ReduceL2", {1, 11, 13}, reduce_attrs, 1, 1, 1, 1},
      {"ReduceLogSum", {1, 11, 13}, reduce_attrs, 1, 1, 1, 1},
      {"ReduceLogSumExp", {1, 11, 13}, reduce_attrs, 1, 1, 1, 1},
      {"ReduceMax", {1, 11, 12, 13}, reduce_attrs, 1, 1, 1, 1},
      {"ReduceMean", {1, 11, 13}, reduce_attrs, 1, 1, 1, 1},
      {"ReduceMin", {1, 11, 12, 13}, reduce_attrs, 1, 1, 1, 1},
      {"ReduceProd", {1, 11, 13}, reduce_attrs, 1, 1, 1, 1},
      {"ReduceSum", {1, 11, 13}, {{"axes", 1, 11}, {"keepdims"}, {"noop_with_empty_axes", 13}}, 1, 2, 1, 1},
      {"ReduceSumSquare", {1, 11, 13}, reduce_attrs, 1, 1, 1, 1},
      {"ScatterND", {11, 13, 16}, {{"reduction", 16}}, 3, 3, 1, 1},
      {"Split", {1, 2, 11, 13}, {{"axis"}, {"split", 1, 11}}, 1, 2, 1, kMany},
      {"Sqrt", {1, 6, 13}, {}, 1, 1, 1, 1},
      {"Tile", {1, 6, 13}, {}, 2, 2, 1, 1},
      {"Where", {9, 16}, {}, 3, 3, 1, 1},
      {"Xor", {1, 7}, {}, 2, 2, 1, 1},
      // ONNX's sequence type (opset 11; unchanged up to 17). Identity passes sequences from 14.
      {"ConcatFromSequence", {11}, {{"axis"}, {"new_axis"}}, 1, 1, 1, 1},
      {"SequenceAt", {11}, {}, 2, 2, 1, 1},
      {"SequenceConstruct", {11}, {}, 1, kMany, 1, 1},
      {"SequenceEmpty", {11}, {{"dtype"}}, 0, 0, 1, 1},
      {"SequenceErase", {11}, {}, 1, 2, 1, 1},
      {"SequenceInsert", {11}, {}, 2, 3, 1, 1},
      {"SequenceLength", {11}, {}, 1, 1, 1, 1},
      {"SplitToSequence", {11}, {{"axis"}, {"keepdims"}}, 1, 2, 1, 1},
  };
  std::sort(specs.begin(), specs.end(), [](const OnnxOpSpec& x, const OnnxOpSpec& y) { return x.name < y.name; });
  return specs;
}

}  // namespace

const std::vector<OnnxOpSpec>& onnx_op_specs() {
  static const std::vector<OnnxOpSpec> specs = make_specs();
  return specs;
}

const OnnxOpSpec* find_onnx_op(std::string_view op_type) {
  for (const OnnxOpSpec& s : onnx_op_specs()) {
    if (s.name == op_type) return &s;
  }
  return nullptr;
}

int onnx_op_version(const OnnxOpSpec& spec, int64_t opset) {
  int v = 0;
  for (int since : spec.versions) {
    if (since <= opset) v = since;
  }
  return v;
}

bool is_sequence_operator(std::string_view op_type) {
  static constexpr std::string_view kOps[] = {"ConcatFromSequence", "SequenceAt",     "SequenceConstruct",
                                              "SequenceEmpty",      "SequenceErase",  "SequenceInsert",
                                              "SequenceLength",     "SplitToSequence"};
  return std::find(std::begin(kOps), std::end(kOps), op_type) != std::end(kOps);
}

bool onnx_attr_allowed(const OnnxOpSpec& spec, int version, std::string_view name) {
  return std::any_of(spec.attrs.begin(), spec.attrs.end(), [&](const OnnxAttrSpec& a) {
    return a.name == name && version >= a.first_version && version <= a.last_version;
  });
}

}  // namespace tauvta::graph
