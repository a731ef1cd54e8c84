// Per-operator checks and rewrites at import. Each rewrite turns an older operator version into
// the newest form (opset 13..17 semantics), so executors and passes implement one form per
// operator; docs/graph.md lists them.
#include "graph/onnx_normalize.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "common/error.h"
#include "graph/onnx_import.h"
#include "graph/shape_inference.h"

namespace tauvta::graph {

std::string ImportContext::fresh(const std::string& base) {
  std::string s = base;
  for (int k = 1; names.count(s); ++k) s = fmt::format("{}_{}", base, k);
  names.insert(s);
  return s;
}

std::string ImportContext::add_constant(const std::string& base, Tensor t) {
  const std::string name = fresh(base);
  graph->initializers.emplace(name, std::move(t));
  return name;
}

void ImportContext::fail(const Node& n, const std::string& msg) const {
  throw Error(fmt::format("{}: {}: {}", source, n.describe(), msg));
}

namespace {

const Tensor* constant_input(const ImportContext& ctx, const std::string& name) {
  if (name.empty()) return nullptr;
  auto it = ctx.graph->initializers.find(name);
  return it == ctx.graph->initializers.end() ? nullptr : &it->second;
}

void trim_inputs(Node& n) {
  while (!n.inputs.empty() && n.inputs.back().empty()) n.inputs.pop_back();
}

void set_input(Node& n, size_t i, const std::string& name) {
  if (n.inputs.size() <= i) n.inputs.resize(i + 1);
  n.inputs[i] = name;
}

void expect_one_of(const ImportContext& ctx, const Node& n, const std::string& attr, const std::string& value,
                   const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    ctx.fail(n, fmt::format("{} '{}' is not supported (supported: {})", attr, value, fmt::join(allowed, ", ")));
  }
}

void expect_no_output(const ImportContext& ctx, const Node& n, size_t i, const std::string& what) {
  if (n.outputs.size() > i && !n.outputs[i].empty()) {
    ctx.fail(n, fmt::format("output {} ('{}', {}) is not supported", i, n.outputs[i], what));
  }
}

void check_ints(const ImportContext& ctx, const Node& n, const std::string& attr, int64_t min_value) {
  for (int64_t v : n.attr_ints_or(attr, {})) {
    if (v < min_value) {
      ctx.fail(n, fmt::format("attribute '{}' = [{}] has a value below {}", attr,
                              fmt::join(n.attr_ints(attr), ","), min_value));
    }
  }
}

void check_flag(const ImportContext& ctx, const Node& n, const std::string& attr) {
  const int64_t v = n.attr_int_or(attr, 0);
  if (v != 0 && v != 1) ctx.fail(n, fmt::format("attribute '{}' = {} must be 0 or 1", attr, v));
}

Tensor int64_vector(const std::vector<int64_t>& v) {
  return Tensor::from_int64(DType::kInt64, {int64_t(v.size())}, v);
}

// Conv, ConvTranspose, MaxPool, AveragePool: attribute values the geometry understands.
void check_window(const ImportContext& ctx, Node& n) {
  expect_one_of(ctx, n, "auto_pad", n.attr_string_or("auto_pad", "NOTSET"),
                {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"});
  check_ints(ctx, n, "kernel_shape", 1);
  check_ints(ctx, n, "strides", 1);
  check_ints(ctx, n, "dilations", 1);
  check_ints(ctx, n, "pads", 0);
  check_ints(ctx, n, "output_padding", 0);
  check_ints(ctx, n, "output_shape", 1);
  if (n.attr_int_or("group", 1) < 1) ctx.fail(n, fmt::format("group = {} must be at least 1", n.attr_int("group")));
}

void normalize_constant(Node& n, ImportContext& ctx) {
  if (n.attrs.size() != 1) ctx.fail(n, "needs exactly one value attribute");
  const auto& [key, value] = *n.attrs.begin();
  Tensor t;
  if (key == "value") {
    t = n.attr_tensor("value");
  } else if (key == "value_float") {
    t = Tensor::scalar_float(n.attr_float("value_float"));
  } else if (key == "value_floats") {
    const std::vector<float> v = n.attr_floats_or("value_floats", {});
    t = Tensor::from_floats({int64_t(v.size())}, v);
  } else if (key == "value_int") {
    t = Tensor::from_int64(DType::kInt64, {}, {n.attr_int("value_int")});
  } else if (key == "value_ints") {
    t = int64_vector(n.attr_ints("value_ints"));
  } else {
    ctx.fail(n, fmt::format("attribute '{}' is not supported (string and sparse constants)", key));
  }
  (void)value;
  ctx.graph->initializers.emplace(n.outputs.at(0), std::move(t));
}

void normalize_clip(Node& n, int version, ImportContext& ctx) {
  if (version >= 11) return;
  // Clip-6: min/max attributes (absent = unbounded) become the optional inputs of Clip-11+.
  Node out = n;
  out.attrs.clear();
  out.inputs.resize(1);
  if (n.has_attr("min")) set_input(out, 1, ctx.add_constant(n.name + "_min", Tensor::scalar_float(n.attr_float("min"))));
  if (n.has_attr("max")) set_input(out, 2, ctx.add_constant(n.name + "_max", Tensor::scalar_float(n.attr_float("max"))));
  n = std::move(out);
}

// Dropout: inference (training_mode absent or a constant false, or ratio a constant 0) is an
// Identity, or Dropout(x) -> (y, mask) with an all-true mask. A training_mode (or, with a constant
// true training_mode, a ratio) only known at run time keeps Dropout(x, ratio, training_mode): the
// float kernel passes x through when training_mode is false or ratio is 0 and refuses the random
// case. A constant true training_mode with a non-zero ratio is random: an error here.
void normalize_dropout(Node& n, int version, ImportContext& ctx) {
  bool runtime = false;
  if (version >= 12 && !n.input(2).empty()) {
    if (const Tensor* t = constant_input(ctx, n.input(2)); t == nullptr) {
      runtime = true;
    } else if (t->size() != 1) {
      ctx.fail(n, fmt::format("training_mode '{}' must hold one value, got shape {}", n.input(2),
                              shape_string(t->shape())));
    } else if (t->to_int64()[0] != 0) {
      // Training mode: deterministic only with ratio 0 (ratio defaults to 0.5).
      const Tensor* r = constant_input(ctx, n.input(1));
      if (!n.input(1).empty() && r == nullptr) {
        runtime = true;
      } else {
        if (r != nullptr && r->size() != 1) {
          ctx.fail(n, fmt::format("ratio '{}' must hold one value, got shape {}", n.input(1), shape_string(r->shape())));
        }
        const float ratio = r == nullptr ? 0.5f : r->cast(DType::kFloat32).floats()[0];
        if (ratio != 0.0f) {
          ctx.fail(n, fmt::format("training_mode '{}' is a constant true and ratio is {}: training-mode Dropout is "
                                  "random (supported: inference, or training with ratio 0)",
                                  n.input(2), ratio));
        }
      }
    }
  }
  if (version < 10) expect_no_output(ctx, n, 1, "mask of a Dropout before opset 10");
  n.attrs.clear();
  if (runtime) {
    n.inputs.resize(3);  // (x, ratio or "", training_mode)
    return;
  }
  n.inputs.resize(1);
  // Inference dropout passes its input through; the optional mask is all true.
  if (n.outputs.size() < 2) n.op_type = "Identity";
}

// BatchNormalization-14/15 with training_mode = 1 normalizes with the batch statistics and may
// write the updated running mean and variance (outputs 1 and 2); it keeps training_mode and
// momentum. Before version 14 the statistics outputs imply training with a different output set
// (saved mean and variance too), which is not supported.
void normalize_batch_norm(Node& n, int version, ImportContext& ctx) {
  check_flag(ctx, n, "training_mode");
  const bool training = version >= 14 && n.attr_int_or("training_mode", 0) != 0;
  for (size_t i = 1; i < n.outputs.size(); ++i) {
    if (version < 14) {
      expect_no_output(ctx, n, i, "a training-mode statistic of BatchNormalization before version 14");
    } else if (!training) {
      expect_no_output(ctx, n, i, "a training-mode statistic, but training_mode is 0");
    }
  }
  const float eps = n.attr_float_or("epsilon", 1e-5f);
  const float momentum = n.attr_float_or("momentum", 0.9f);
  n.attrs.clear();
  n.attrs["epsilon"] = eps;
  if (training) {
    n.attrs["training_mode"] = int64_t(1);
    n.attrs["momentum"] = momentum;
  }
}

void normalize_pad(Node& n, int version, ImportContext& ctx) {
  const std::string mode = n.attr_string_or("mode", "constant");
  expect_one_of(ctx, n, "mode", mode, {"constant", "reflect", "edge"});
  if (version < 11) {
    // Pad-2: pads and value attributes become the inputs of Pad-11+.
    if (!n.has_attr("pads")) ctx.fail(n, "missing attribute 'pads'");
    check_ints(ctx, n, "pads", 0);
    const float value = n.attr_float_or("value", 0.0f);
    Node out = n;
    out.attrs.clear();
    out.inputs.resize(1);
    set_input(out, 1, ctx.add_constant(n.name + "_pads", int64_vector(n.attr_ints("pads"))));
    if (value != 0.0f) set_input(out, 2, ctx.add_constant(n.name + "_value", Tensor::scalar_float(value)));
    n = std::move(out);
  } else if (n.input(1).empty()) {
    ctx.fail(n, "missing input 1 (pads)");
  }
  n.attrs["mode"] = mode;
}

void normalize_slice(Node& n, int version, ImportContext& ctx) {
  if (version >= 10) {
    if (n.input(1).empty() || n.input(2).empty()) ctx.fail(n, "needs inputs starts and ends");
    return;
  }
  // Slice-1: starts/ends/axes attributes become the inputs of Slice-10+.
  if (!n.has_attr("starts") || !n.has_attr("ends")) ctx.fail(n, "needs attributes 'starts' and 'ends'");
  Node out = n;
  out.attrs.clear();
  out.inputs.resize(1);
  set_input(out, 1, ctx.add_constant(n.name + "_starts", int64_vector(n.attr_ints("starts"))));
  set_input(out, 2, ctx.add_constant(n.name + "_ends", int64_vector(n.attr_ints("ends"))));
  if (n.has_attr("axes")) set_input(out, 3, ctx.add_constant(n.name + "_axes", int64_vector(n.attr_ints("axes"))));
  n = std::move(out);
}

// Unsqueeze and Squeeze: the axes attribute (before opset 13) becomes input 1.
void normalize_axes_input(Node& n, int version, ImportContext& ctx, bool required) {
  if (version >= 13) {
    if (required && n.input(1).empty()) ctx.fail(n, "missing input 1 (axes)");
    return;
  }
  if (required && !n.has_attr("axes")) ctx.fail(n, "missing attribute 'axes'");
  Node out = n;
  out.attrs.clear();
  out.inputs.resize(1);
  if (n.has_attr("axes")) set_input(out, 1, ctx.add_constant(n.name + "_axes", int64_vector(n.attr_ints("axes"))));
  n = std::move(out);
}

void set_nearest_attrs(Node& n, const std::string& coordinate_mode, const std::string& nearest_mode) {
  n.attrs.clear();
  n.attrs["mode"] = std::string("nearest");
  n.attrs["coordinate_transformation_mode"] = coordinate_mode;
  n.attrs["nearest_mode"] = nearest_mode;
}

// Resize-11/13: nearest, linear and cubic interpolation with every coordinate transformation.
// Only the attributes the mode reads are kept, always set explicitly: nearest_mode (nearest),
// cubic_coeff_a and exclude_outside (cubic), extrapolation_value (tf_crop_and_resize). roi is
// kept for tf_crop_and_resize only (no other mode reads it).
void normalize_resize(Node& n, int version, ImportContext& ctx) {
  const std::string mode = n.attr_string_or("mode", "nearest");
  if (version < 11) {
    // Resize-10 is Upsample-9 under a new name: out = in[floor(o / scale)].
    expect_one_of(ctx, n, "mode", mode, {"nearest"});
    set_nearest_attrs(n, "asymmetric", "floor");
    n.inputs = {n.input(0), "", n.input(1)};
    return;
  }
  expect_one_of(ctx, n, "mode", mode, {"nearest", "linear", "cubic"});
  const std::string coord = n.attr_string_or("coordinate_transformation_mode", "half_pixel");
  expect_one_of(ctx, n, "coordinate_transformation_mode", coord,
                {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
                 "tf_crop_and_resize"});
  if (mode == "cubic" && coord == "tf_half_pixel_for_nn") {
    ctx.fail(n, "coordinate_transformation_mode 'tf_half_pixel_for_nn' is not supported with mode 'cubic' "
                "(supported with nearest and linear)");
  }
  const std::string nearest = n.attr_string_or("nearest_mode", "round_prefer_floor");
  if (mode == "nearest") {
    expect_one_of(ctx, n, "nearest_mode", nearest, {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
  }
  check_flag(ctx, n, "exclude_outside");
  const float cubic_a = n.attr_float_or("cubic_coeff_a", -0.75f);
  const int64_t exclude_outside = n.attr_int_or("exclude_outside", 0);
  const float extrapolation = n.attr_float_or("extrapolation_value", 0.0f);
  std::string roi = n.input(1), scales = n.input(2), sizes = n.input(3);
  // Opset 11 requires roi and scales inputs even when unused: empty tensors then.
  if (const Tensor* t = constant_input(ctx, roi); t != nullptr && t->size() == 0) roi.clear();
  if (const Tensor* t = constant_input(ctx, scales); t != nullptr && t->size() == 0) scales.clear();
  if (const Tensor* t = constant_input(ctx, sizes); t != nullptr && t->size() == 0) sizes.clear();
  if (scales.empty() == sizes.empty()) ctx.fail(n, "needs exactly one of the inputs scales and sizes");
  if (coord == "tf_crop_and_resize") {
    if (roi.empty()) ctx.fail(n, "coordinate_transformation_mode 'tf_crop_and_resize' needs input 1 (roi)");
  } else {
    roi.clear();  // only tf_crop_and_resize reads it
  }
  n.attrs.clear();
  n.attrs["mode"] = mode;
  n.attrs["coordinate_transformation_mode"] = coord;
  if (mode == "nearest") n.attrs["nearest_mode"] = nearest;
  if (mode == "cubic") {
    n.attrs["cubic_coeff_a"] = cubic_a;
    n.attrs["exclude_outside"] = exclude_outside;
  }
  if (coord == "tf_crop_and_resize") n.attrs["extrapolation_value"] = extrapolation;
  n.inputs = {n.input(0), roi, scales, sizes};
  trim_inputs(n);
}

void normalize_upsample(Node& n, int version, ImportContext& ctx) {
  if (ctx.opset >= 10) ctx.fail(n, fmt::format("operator Upsample is deprecated at opset {} (use Resize)", ctx.opset));
  const std::string mode = n.attr_string_or("mode", "nearest");
  expect_one_of(ctx, n, "mode", mode, {"nearest"});
  // Upsample-7 (scales attribute) only occurs in opset 7 and 8 models, which the opset rule
  // rejects because Upsample changed at 9.
  (void)version;
  const std::string scales = n.input(1);
  if (scales.empty()) ctx.fail(n, "missing input 1 (scales)");
  n.op_type = "Resize";
  set_nearest_attrs(n, "asymmetric", "floor");
  n.inputs = {n.input(0), "", scales};
}

void normalize_cast(Node& n, ImportContext& ctx) {
  const AttrValue& to = n.attrs.count("to") ? n.attrs.at("to") : AttrValue(int64_t(-1));
  if (!std::holds_alternative<int64_t>(to)) ctx.fail(n, "attribute 'to' must be an element type code");
  const int64_t code = std::get<int64_t>(to);
  if (code < 0) ctx.fail(n, "missing attribute 'to'");
  (void)dtype_from_onnx_elem_type(int(code), fmt::format("{}: {}: attribute 'to'", ctx.source, n.describe()));
}

}  // namespace

void normalize_node(Node n, const OnnxOpSpec& spec, int version, ImportContext& ctx) {
  if (version == 0) ctx.fail(n, fmt::format("operator {} does not exist at opset {}", n.op_type, ctx.opset));
  for (const auto& [key, value] : n.attrs) {
    if (!onnx_attr_allowed(spec, version, key)) {
      std::vector<std::string_view> allowed;
      for (const OnnxAttrSpec& a : spec.attrs) {
        if (version >= a.first_version && version <= a.last_version) allowed.push_back(a.name);
      }
      ctx.fail(n, fmt::format("attribute '{}' is not supported for {} version {} (accepted: {})", key, n.op_type,
                              version, allowed.empty() ? std::string("none") : fmt::format("{}", fmt::join(allowed, ", "))));
    }
  }
  const int n_in = int(n.inputs.size()), n_out = int(n.outputs.size());
  if (n_in < spec.min_inputs || n_in > spec.max_inputs) {
    ctx.fail(n, fmt::format("has {} inputs, expected {} to {}", n_in, spec.min_inputs, spec.max_inputs));
  }
  for (int i = 0; i < spec.min_inputs; ++i) {
    if (n.inputs[size_t(i)].empty()) ctx.fail(n, fmt::format("input {} is required", i));
  }
  if (n_out < spec.min_outputs || n_out > spec.max_outputs) {
    ctx.fail(n, fmt::format("has {} outputs, expected {} to {}", n_out, spec.min_outputs, spec.max_outputs));
  }
  if (n.outputs[0].empty()) ctx.fail(n, "output 0 has no name");

  const std::string& op = n.op_type;
  if (op == "Constant") {
    normalize_constant(n, ctx);
    return;
  }
  if (op == "Conv" || op == "ConvTranspose") {
    check_window(ctx, n);
  } else if (op == "MaxPool" || op == "AveragePool") {
    if (!n.has_attr("kernel_shape")) ctx.fail(n, "missing attribute 'kernel_shape'");
    check_window(ctx, n);
    check_flag(ctx, n, "ceil_mode");
    check_flag(ctx, n, "count_include_pad");
    if (op == "MaxPool" && n.outputs.size() > 1) {
      // The Indices output (int64, flat offsets into the input): storage_order decides its order.
      check_flag(ctx, n, "storage_order");
      n.attrs["storage_order"] = n.attr_int_or("storage_order", 0);
    } else {
      n.attrs.erase("storage_order");  // only affects Indices
    }
  } else if (op == "Clip") {
    normalize_clip(n, version, ctx);
  } else if (op == "Dropout") {
    normalize_dropout(n, version, ctx);
  } else if (op == "BatchNormalization") {
    normalize_batch_norm(n, version, ctx);
  } else if (op == "Pad") {
    normalize_pad(n, version, ctx);
  } else if (op == "Slice") {
    normalize_slice(n, version, ctx);
  } else if (op == "Unsqueeze") {
    normalize_axes_input(n, version, ctx, /*required=*/true);
  } else if (op == "Squeeze") {
    normalize_axes_input(n, version, ctx, /*required=*/false);
  } else if (op == "Resize") {
    normalize_resize(n, version, ctx);
  } else if (op == "Upsample") {
    normalize_upsample(n, version, ctx);
  } else if (op == "Cast") {
    normalize_cast(n, ctx);
  } else if (op == "Concat") {
    if (!n.has_attr("axis")) ctx.fail(n, "missing attribute 'axis'");
  } else if (op == "ConcatFromSequence") {
    if (!n.has_attr("axis")) ctx.fail(n, "missing attribute 'axis'");
    check_flag(ctx, n, "new_axis");
  } else if (op == "SplitToSequence") {
    check_flag(ctx, n, "keepdims");
  } else if (op == "SequenceEmpty" && n.has_attr("dtype")) {
    (void)dtype_from_onnx_elem_type(int(n.attr_int("dtype")),
                                    fmt::format("{}: {}: attribute 'dtype'", ctx.source, n.describe()));
  } else if (op == "Softmax" && version < 13) {
    n.attrs["axis"] = n.attr_int_or("axis", 1);
    ctx.legacy_softmax.push_back(n.name);
  }
  ctx.graph->nodes.push_back(std::move(n));
}

void rewrite_legacy_softmax(ImportContext& ctx) {
  if (ctx.legacy_softmax.empty()) return;
  Graph& g = *ctx.graph;
  // Ranks decide whether the old "flatten to 2-D at axis" softmax is just a last-axis softmax.
  Graph inferred;
  bool have_ranks = true;
  try {
    inferred = infer_shapes(g);
  } catch (const Error&) {
    have_ranks = false;
  }
  std::vector<Node> nodes;
  for (Node& n : g.nodes) {
    if (std::find(ctx.legacy_softmax.begin(), ctx.legacy_softmax.end(), n.name) == ctx.legacy_softmax.end()) {
      nodes.push_back(std::move(n));
      continue;
    }
    const int64_t axis = n.attr_int("axis");
    const ValueInfo* x = have_ranks ? inferred.info(n.input(0)) : nullptr;
    const int64_t rank = x != nullptr && x->known_shape ? int64_t(x->shape.size()) : -1;
    if (axis == -1 || (rank > 0 && (axis == rank - 1 || axis == -1))) {
      n.attrs["axis"] = int64_t(-1);
      nodes.push_back(std::move(n));
      continue;
    }
    const std::string x_name = n.input(0), y_name = n.outputs[0];
    const std::string flat = ctx.fresh(n.name + "_flat"), soft = ctx.fresh(n.name + "_2d"),
                      shape = ctx.fresh(n.name + "_shape");
    Node f{ctx.fresh(n.name + "_flatten"), "Flatten", {x_name}, {flat}, {{"axis", axis}}};
    Node s{n.name, "Softmax", {flat}, {soft}, {{"axis", int64_t(-1)}}};
    Node sh{ctx.fresh(n.name + "_shape"), "Shape", {x_name}, {shape}, {}};
    Node r{ctx.fresh(n.name + "_reshape"), "Reshape", {soft, shape}, {y_name}, {}};
    nodes.push_back(std::move(f));
    nodes.push_back(std::move(s));
    nodes.push_back(std::move(sh));
    nodes.push_back(std::move(r));
  }
  g.nodes = std::move(nodes);
}

}  // namespace tauvta::graph
