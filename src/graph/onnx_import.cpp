// ModelProto -> Graph: opset check, initializers, graph inputs (initializers excluded), node
// names, attributes, topological order, then per-node normalization (onnx_normalize.cpp).
#include "graph/onnx_import.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>  // with ONNX_ML=1 (set by the onnx_proto target): the onnx-ml messages
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include "common/error.h"
#include "graph/onnx_normalize.h"
#include "graph/onnx_ops.h"

namespace tauvta::graph {

bool is_qonnx_quant(const std::string& domain, const std::string& op_type) {
  const bool qonnx_domain = domain == "qonnx.custom_op.general" || domain == "finn.custom_op.general" ||
                            domain == "onnx.brevitas";
  return qonnx_domain && (op_type == "Quant" || op_type == "BipolarQuant");
}

namespace {

std::string attr_type_name(int t) {
  if (onnx::AttributeProto_AttributeType_IsValid(t)) {
    return onnx::AttributeProto_AttributeType_Name(static_cast<onnx::AttributeProto_AttributeType>(t));
  }
  return fmt::format("type {}", t);
}

AttrValue attr_from_proto(const onnx::AttributeProto& a, const std::string& where) {
  if (!a.ref_attr_name().empty()) {
    throw Error(fmt::format("{}: attribute '{}' refers to a function attribute, which is not supported",
                            where, a.name()));
  }
  int type = a.type();
  if (type == onnx::AttributeProto::UNDEFINED) {  // very old writers leave the type out
    if (a.has_f()) type = onnx::AttributeProto::FLOAT;
    else if (a.has_i()) type = onnx::AttributeProto::INT;
    else if (a.has_s()) type = onnx::AttributeProto::STRING;
    else if (a.has_t()) type = onnx::AttributeProto::TENSOR;
    else if (a.floats_size() > 0) type = onnx::AttributeProto::FLOATS;
    else if (a.ints_size() > 0) type = onnx::AttributeProto::INTS;
    else if (a.strings_size() > 0) type = onnx::AttributeProto::STRINGS;
  }
  switch (type) {
    case onnx::AttributeProto::FLOAT: return a.f();
    case onnx::AttributeProto::INT: return int64_t(a.i());
    case onnx::AttributeProto::STRING: return a.s();
    case onnx::AttributeProto::TENSOR:
      return tensor_from_onnx(a.t(), fmt::format("{}: attribute '{}'", where, a.name()));
    case onnx::AttributeProto::FLOATS: return std::vector<float>(a.floats().begin(), a.floats().end());
    case onnx::AttributeProto::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case onnx::AttributeProto::STRINGS:
      return std::vector<std::string>(a.strings().begin(), a.strings().end());
    default: break;
  }
  throw Error(fmt::format("{}: attribute '{}' has type {}, which is not supported", where, a.name(),
                          attr_type_name(type)));
}

// The element type of a sequence type ("a sequence of maps", ...) for errors.
std::string sequence_element_kind(const onnx::TypeProto& elem) {
  switch (elem.value_case()) {
    case onnx::TypeProto::kSequenceType: return "sequences";
    case onnx::TypeProto::kMapType: return "maps";
    case onnx::TypeProto::kOptionalType: return "optionals";
    case onnx::TypeProto::kSparseTensorType: return "sparse tensors";
    default: return "values of no declared type";
  }
}

// The declared type of a graph input or output as a ValueInfo (dims without a value: -1). A
// sequence of tensors is described by its element type (ValueInfo::sequence).
ValueInfo value_info_from_proto(const onnx::ValueInfoProto& v, const std::string& what, const std::string& source) {
  const std::string where = fmt::format("{}: {} '{}'", source, what, v.name());
  if (!v.has_type()) throw Error(fmt::format("{} has no type", where));
  const onnx::TypeProto* t = &v.type();
  bool sequence = false;
  switch (t->value_case()) {
    case onnx::TypeProto::kTensorType: break;
    case onnx::TypeProto::kSequenceType:
      if (!t->sequence_type().elem_type().has_tensor_type()) {
        throw Error(fmt::format("{} is a sequence of {}; only tensors and sequences of tensors are supported", where,
                                sequence_element_kind(t->sequence_type().elem_type())));
      }
      sequence = true;
      t = &t->sequence_type().elem_type();
      break;
    case onnx::TypeProto::kMapType:
      throw Error(fmt::format("{} is a map; only tensors and sequences of tensors are supported", where));
    case onnx::TypeProto::kOptionalType:
      throw Error(fmt::format("{} is optional; only tensors and sequences of tensors are supported", where));
    case onnx::TypeProto::kSparseTensorType:
      throw Error(fmt::format("{} is a sparse tensor; only dense tensors are supported", where));
    default: throw Error(fmt::format("{} has no tensor type", where));
  }
  ValueInfo info;
  info.name = v.name();
  info.sequence = sequence;
  info.dtype = dtype_from_onnx_elem_type(t->tensor_type().elem_type(), sequence ? where + " (its elements)" : where);
  if (t->tensor_type().has_shape()) {
    info.known_shape = true;
    for (const auto& d : t->tensor_type().shape().dim()) {
      info.shape.push_back(d.has_dim_value() && d.dim_value() >= 0 ? int64_t(d.dim_value()) : int64_t(-1));
    }
  }
  return info;
}

// Whether a graph output declares an element type (writers that leave it undefined declare
// nothing, and shape inference decides alone).
bool declares_element_type(const onnx::ValueInfoProto& v) {
  if (!v.has_type()) return false;
  const onnx::TypeProto& t = v.type();
  if (t.has_tensor_type()) return t.tensor_type().elem_type() != 0;
  if (t.has_sequence_type() && t.sequence_type().elem_type().has_tensor_type()) {
    return t.sequence_type().elem_type().tensor_type().elem_type() != 0;
  }
  return true;  // other kinds: value_info_from_proto says why they are refused
}

int64_t default_domain_opset(const onnx::ModelProto& m, const std::string& source) {
  int64_t opset = -1;
  for (const auto& o : m.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  }
  if (opset < 0) {
    if (m.opset_import_size() == 0 && m.ir_version() < 3) return 1;  // IR v1/v2 predate opset_import
    std::vector<std::string> domains;
    for (const auto& o : m.opset_import()) domains.push_back(fmt::format("'{}' {}", o.domain(), o.version()));
    throw Error(fmt::format("{}: the model imports no opset of the default ONNX domain (imports: {})", source,
                            domains.empty() ? "none" : fmt::format("{}", fmt::join(domains, ", "))));
  }
  return opset;
}

// Opsets 9..17 are supported. An older model is read as it is when none of its operators changed
// between its opset and 9 (it means exactly what it would at opset 9); otherwise the first
// operator that did change is returned, and the model is upgraded first.
std::string changed_since_opset(const onnx::GraphProto& gp, int64_t opset) {
  for (const auto& np : gp.node()) {
    const OnnxOpSpec* spec = find_onnx_op(np.op_type());
    if (spec == nullptr) continue;  // reported with the node
    if (onnx_op_version(*spec, opset) != onnx_op_version(*spec, kMinOnnxOpset)) return np.op_type();
  }
  return "";
}

// Rank of a value from the graph's inputs and value_info (after ONNX shape inference); -1 unknown.
int value_rank(const onnx::GraphProto& g, const std::string& name) {
  for (const auto* list : {&g.input(), &g.value_info()}) {
    for (const auto& v : *list) {
      if (v.name() == name && v.type().has_tensor_type() && v.type().tensor_type().has_shape()) {
        return v.type().tensor_type().shape().dim_size();
      }
    }
  }
  return -1;
}

// Before opset 7 a PRelu slope of shape [C] meant one slope per channel (axis 1); opset 7 made it
// numpy-broadcast from the right, and ONNX's adapter keeps the shape, which would then mean
// something else. Reshape such slopes to [C, 1, ...] so the upgraded model computes the same.
void fix_legacy_prelu_slopes(onnx::ModelProto& m, int64_t opset) {
  if (opset >= 7) return;
  onnx::GraphProto& g = *m.mutable_graph();
  for (const auto& n : g.node()) {
    if (n.op_type() != "PRelu" || n.input_size() < 2) continue;
    const int rank = value_rank(g, n.input(0));
    if (rank <= 2) continue;
    for (auto& init : *g.mutable_initializer()) {
      if (init.name() != n.input(1) || init.dims_size() != 1 || init.dims(0) <= 1) continue;
      for (int i = 2; i < rank; ++i) init.add_dims(1);
    }
  }
}

// ONNX's shape inference and version converter (libonnx 1.12) assume a well-formed graph: a graph
// output or node input that nothing defines crashes the converter (a null producer dereferenced in
// graphProtoToGraph), a Conv or ConvTranspose whose weight has more dimensions than its input
// crashes shape inference (convPoolShapeInference1 reads input dimensions that do not exist), and
// both recurse into subgraphs. So those are refused first, with the importer's messages for the
// same faults. Ranks are the declared ones (graph inputs, initializers, value_info).
void check_converter_input(const onnx::GraphProto& g, const std::string& source) {
  std::set<std::string> defined;
  std::map<std::string, int> rank;
  const auto declare = [&](const onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().has_shape()) {
      rank[v.name()] = v.type().tensor_type().shape().dim_size();
    }
  };
  for (const auto& i : g.input()) {
    defined.insert(i.name());
    declare(i);
  }
  for (const auto& v : g.value_info()) declare(v);
  for (const auto& t : g.initializer()) {
    defined.insert(t.name());
    rank[t.name()] = t.dims_size();
  }
  for (const auto& n : g.node()) {
    for (const std::string& o : n.output()) defined.insert(o);
  }
  for (const auto& n : g.node()) {
    const std::string node = fmt::format("node '{}' ({})", n.name(), n.op_type());
    for (const std::string& i : n.input()) {
      if (!i.empty() && !defined.count(i)) {
        throw Error(fmt::format("{}: {}: input '{}' is not a graph input, an initializer or the output of any node",
                                source, node, i));
      }
    }
    if ((n.op_type() == "Conv" || n.op_type() == "ConvTranspose") && n.input_size() >= 2 &&
        rank.count(n.input(0)) && rank.count(n.input(1)) && rank.at(n.input(1)) > rank.at(n.input(0))) {
      throw Error(fmt::format("{}: {}: weight '{}' has {} dimensions, more than the {} of input '{}'", source, node,
                              n.input(1), rank.at(n.input(1)), rank.at(n.input(0)), n.input(0)));
    }
    for (const auto& a : n.attribute()) {
      if (a.has_g() || a.graphs_size() > 0) {
        throw Error(fmt::format("{}: {}: attribute '{}' holds a subgraph; control flow is not supported", source,
                                node, a.name()));
      }
    }
  }
  for (const auto& o : g.output()) {
    if (!defined.count(o.name())) {
      throw Error(fmt::format("{}: graph output '{}' is not a graph input, an initializer or the output of any node",
                              source, o.name()));
    }
  }
}

// ONNX's own version converter (the adapters libonnx ships) takes the model to opset 9.
onnx::ModelProto upgraded(const onnx::ModelProto& model, int64_t opset, const std::string& changed,
                          const std::string& source) {
  check_converter_input(model.graph(), source);
  try {
    // The converter's adapters read input shapes; exporters of old opsets rarely recorded them.
    onnx::ModelProto with_shapes = model;
    try {
      onnx::shape_inference::InferShapes(with_shapes);
    } catch (const std::exception&) {
      with_shapes = model;  // the converter then says what it missed
    }
    fix_legacy_prelu_slopes(with_shapes, opset);
    return onnx::version_conversion::ConvertVersion(with_shapes, int(kMinOnnxOpset));
  } catch (const std::exception& e) {
    std::string why = e.what();
    if (const size_t nl = why.find('\n'); nl != std::string::npos) why.resize(nl);
    throw Error(fmt::format("{}: opset {} (operator {} changed after it) could not be upgraded to opset {} by "
                            "ONNX's version converter: {}; re-export the model with opset {} or newer",
                            source, opset, changed, kMinOnnxOpset, why, kMinOnnxOpset));
  }
}

std::string supported_list() { return fmt::format("{}", fmt::join(supported_onnx_operators(), ", ")); }

// Kahn's algorithm, keeping file order among ready nodes. Throws naming the first node whose
// input nothing provides, or the nodes of a cycle.
std::vector<Node> topological_order(std::vector<Node> nodes, std::set<std::string> available,
                                    const std::string& source) {
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& o : nodes[i].outputs) {
      if (o.empty()) continue;
      if (available.count(o) || !producer.emplace(o, i).second) {
        throw Error(fmt::format("{}: {}: output '{}' is already produced elsewhere", source, nodes[i].describe(), o));
      }
    }
  }
  for (const Node& n : nodes) {
    for (const std::string& i : n.inputs) {
      if (!i.empty() && !available.count(i) && !producer.count(i)) {
        throw Error(fmt::format("{}: {}: input '{}' is not a graph input, an initializer or the output of any node",
                                source, n.describe(), i));
      }
    }
  }
  std::vector<Node> order;
  std::vector<bool> done(nodes.size(), false);
  bool progress = true;
  while (order.size() < nodes.size() && progress) {
    progress = false;
    for (size_t k = 0; k < nodes.size(); ++k) {
      if (done[k]) continue;
      const bool ready = std::all_of(nodes[k].inputs.begin(), nodes[k].inputs.end(),
                                     [&](const std::string& i) { return i.empty() || available.count(i); });
      if (!ready) continue;
      for (const std::string& o : nodes[k].outputs) available.insert(o);
      order.push_back(std::move(nodes[k]));
      done[k] = true;
      progress = true;
    }
  }
  if (order.size() < nodes.size()) {
    std::vector<std::string> stuck;
    for (size_t k = 0; k < nodes.size(); ++k) {
      if (!done[k]) stuck.push_back(fmt::format("'{}'", nodes[k].name));
    }
    throw Error(fmt::format("{}: the graph has a cycle through nodes {}", source, fmt::join(stuck, ", ")));
  }
  return order;
}

}  // namespace

std::vector<std::string> supported_onnx_operators() {
  std::vector<std::string> ops;
  for (const OnnxOpSpec& s : onnx_op_specs()) ops.emplace_back(s.name);
  std::sort(ops.begin(), ops.end());
  return ops;
}

Graph import_onnx(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the file", path.string()));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw Error(fmt::format("{}: cannot read the file", path.string()));
  Graph g = import_onnx_bytes(buf.str(), path.string());
  if (g.name.empty()) g.name = path.stem().string();
  return g;
}

Graph import_onnx_bytes(std::string_view bytes, const std::string& source) {
  onnx::ModelProto model;
  if (bytes.empty()) throw Error(fmt::format("{}: the file is empty, not an ONNX model", source));
  if (bytes.size() > size_t(INT32_MAX) || !model.ParseFromArray(bytes.data(), int(bytes.size()))) {
    throw Error(fmt::format("{}: not a valid ONNX model (the protobuf message does not parse)", source));
  }
  if (!model.has_graph()) throw Error(fmt::format("{}: not an ONNX model (it has no graph)", source));
  return import_onnx_model(model, source);
}

Graph import_onnx_model(const onnx::ModelProto& model, const std::string& source) {
  const int64_t opset = default_domain_opset(model, source);
  if (opset > kMaxOnnxOpset) {
    throw Error(fmt::format("{}: opset {} is not supported (supported: {} to {})", source, opset, kMinOnnxOpset,
                            kMaxOnnxOpset));
  }
  if (opset < kMinOnnxOpset) {
    if (const std::string changed = changed_since_opset(model.graph(), opset); !changed.empty()) {
      const onnx::ModelProto up = upgraded(model, opset, changed, source);
      try {
        return import_onnx_model(up, source);
      } catch (const Error& e) {
        throw Error(fmt::format("{} (after ONNX's version converter upgraded the model from opset {} to {}; "
                                "re-export it with opset {} or newer)",
                                e.what(), opset, kMinOnnxOpset, kMinOnnxOpset));
      }
    }
  }
  const onnx::GraphProto& gp = model.graph();
  ImportContext ctx;
  ctx.source = source;
  ctx.opset = opset;

  Graph g;
  ctx.graph = &g;
  g.name = gp.name();
  g.opset = ctx.opset;

  for (const auto& tp : gp.initializer()) {
    if (tp.name().empty()) throw Error(fmt::format("{}: an initializer has no name", source));
    const std::string where = fmt::format("{}: initializer '{}'", source, tp.name());
    if (g.initializers.count(tp.name())) throw Error(fmt::format("{} is defined twice", where));
    g.initializers.emplace(tp.name(), tensor_from_onnx(tp, where));
    ctx.names.insert(tp.name());
  }
  if (gp.sparse_initializer_size() > 0) {
    throw Error(fmt::format("{}: sparse initializers are not supported", source));
  }
  // Old exporters also list initializers as graph inputs; those are constants, not inputs.
  for (const auto& vp : gp.input()) {
    if (g.initializers.count(vp.name())) continue;
    if (vp.name().empty()) throw Error(fmt::format("{}: a graph input has no name", source));
    if (!ctx.names.insert(vp.name()).second) {
      throw Error(fmt::format("{}: graph input '{}' is listed twice", source, vp.name()));
    }
    g.values[vp.name()] = value_info_from_proto(vp, "graph input", source);
    g.inputs.push_back(vp.name());
  }

  // Names: keep the file's, make duplicates unique, name the unnamed "<Op>_<index>".
  std::vector<Node> nodes;
  for (const auto& np : gp.node()) {
    for (const std::string& o : np.output()) ctx.names.insert(o);
    if (!np.name().empty()) ctx.names.insert(np.name());
  }
  std::set<std::string> assigned;
  std::vector<Node> qonnx;
  for (int k = 0; k < gp.node_size(); ++k) {
    const auto& np = gp.node(k);
    Node n;
    n.op_type = np.op_type();
    n.inputs.assign(np.input().begin(), np.input().end());
    n.outputs.assign(np.output().begin(), np.output().end());
    while (!n.outputs.empty() && n.outputs.back().empty()) n.outputs.pop_back();
    if (!np.name().empty() && !assigned.count(np.name())) {
      n.name = np.name();
    } else {
      n.name = ctx.fresh(np.name().empty() ? fmt::format("{}_{}", np.op_type(), k) : np.name());
    }
    assigned.insert(n.name);
    if (is_qonnx_quant(np.domain(), n.op_type)) {
      // QONNX's Quant / BipolarQuant (Brevitas, FINN): kept as they are for fold_fake_quant
      // (graph/fake_quant.h), which the model pipeline runs first.
      for (const auto& ap : np.attribute()) {
        n.attrs[ap.name()] = attr_from_proto(ap, fmt::format("{}: {}", source, n.describe()));
      }
      qonnx.push_back(std::move(n));
      continue;
    }
    if (!np.domain().empty() && np.domain() != "ai.onnx") {
      throw Error(fmt::format("{}: {}: operator domain '{}' is not supported (only the default ONNX domain)",
                              source, n.describe(), np.domain()));
    }
    const OnnxOpSpec* spec = find_onnx_op(n.op_type);
    if (spec == nullptr) {
      // Control flow and SequenceMap run a subgraph per call; tauvta executes flat graphs only.
      for (const auto& ap : np.attribute()) {
        if (ap.has_g() || ap.graphs_size() > 0) {
          throw Error(fmt::format("{}: {}: operator {} runs a subgraph (attribute '{}'); operators with subgraphs "
                                  "(If, Loop, Scan, SequenceMap) are not supported",
                                  source, n.describe(), n.op_type, ap.name()));
        }
      }
      throw Error(fmt::format("{}: {}: operator {} is not supported (supported: {})", source, n.describe(),
                              n.op_type, supported_list()));
    }
    for (const auto& ap : np.attribute()) {
      n.attrs[ap.name()] = attr_from_proto(ap, fmt::format("{}: {}", source, n.describe()));
    }
    nodes.push_back(std::move(n));
  }

  std::set<std::string> available(g.inputs.begin(), g.inputs.end());
  for (const auto& [k, v] : g.initializers) available.insert(k);
  std::set<std::string> qonnx_names;
  for (Node& n : qonnx) qonnx_names.insert(n.name);
  nodes.insert(nodes.end(), std::make_move_iterator(qonnx.begin()), std::make_move_iterator(qonnx.end()));
  for (Node& n : topological_order(std::move(nodes), available, source)) {
    if (qonnx_names.count(n.name)) {
      g.nodes.push_back(std::move(n));
      continue;
    }
    const OnnxOpSpec& spec = *find_onnx_op(n.op_type);
    normalize_node(std::move(n), spec, onnx_op_version(spec, ctx.opset), ctx);
  }

  for (const auto& vp : gp.output()) {
    if (vp.name().empty()) throw Error(fmt::format("{}: a graph output has no name", source));
    g.outputs.push_back(vp.name());
    // A declared output type is a check for shape inference.
    if (declares_element_type(vp) && !g.initializers.count(vp.name()) && !g.values.count(vp.name())) {
      g.values[vp.name()] = value_info_from_proto(vp, "graph output", source);
    }
  }
  rewrite_legacy_softmax(ctx);
  try {
    verify(g);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", source, e.what()));
  }
  return g;
}

}  // namespace tauvta::graph
