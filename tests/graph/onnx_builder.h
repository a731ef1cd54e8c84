// Builds small ONNX models in the tests with the protobuf API (no Python at test time): inputs
// with fixed or symbolic dimensions, initializers written as raw_data or in the typed fields,
// nodes with attributes of every kind.
#pragma once

#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "graph/onnx_import.h"
#include "graph/tensor.h"

namespace tauvta::graph::testing {

enum class Storage { kRaw, kTyped };

inline onnx::TensorProto tensor_proto(const std::string& name, const Tensor& t, Storage storage = Storage::kRaw) {
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(onnx_elem_type(t.dtype()));
  for (int64_t d : t.shape()) p.add_dims(d);
  if (storage == Storage::kRaw) {
    p.set_raw_data(std::string(reinterpret_cast<const char*>(t.raw()), t.byte_size()));
    return p;
  }
  switch (t.dtype()) {
    case DType::kFloat32: for (float v : t.floats()) p.add_float_data(v); break;
    case DType::kFloat64: for (int64_t i = 0; i < t.size(); ++i) p.add_double_data(t.data<double>()[i]); break;
    case DType::kInt64: for (int64_t v : t.to_int64()) p.add_int64_data(v); break;
    default: for (int64_t v : t.to_int64()) p.add_int32_data(int32_t(v)); break;
  }
  return p;
}

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 13, const std::string& domain = "") {
    m_.set_ir_version(8);
    m_.set_producer_name("tauvta-tests");
    auto* o = m_.add_opset_import();
    o->set_domain(domain);
    o->set_version(opset);
    m_.mutable_graph()->set_name("test");
  }

  // dims: -1 is a symbolic dimension "N".
  ModelBuilder& input(const std::string& name, const std::vector<int64_t>& dims, DType t = DType::kFloat32) {
    value_info(m_.mutable_graph()->add_input(), name, dims, t);
    return *this;
  }
  ModelBuilder& output(const std::string& name, const std::vector<int64_t>& dims, DType t = DType::kFloat32) {
    value_info(m_.mutable_graph()->add_output(), name, dims, t);
    return *this;
  }
  // A sequence of tensors of dtype t whose elements have `dims` (empty: no element shape).
  ModelBuilder& sequence_input(const std::string& name, const std::vector<int64_t>& dims, DType t = DType::kFloat32) {
    sequence_info(m_.mutable_graph()->add_input(), name, dims, t);
    return *this;
  }
  ModelBuilder& sequence_output(const std::string& name, const std::vector<int64_t>& dims, DType t = DType::kFloat32) {
    sequence_info(m_.mutable_graph()->add_output(), name, dims, t);
    return *this;
  }
  ModelBuilder& output(const std::string& name) {
    m_.mutable_graph()->add_output()->set_name(name);
    return *this;
  }
  ModelBuilder& init(const std::string& name, const Tensor& t, Storage storage = Storage::kRaw) {
    *m_.mutable_graph()->add_initializer() = tensor_proto(name, t, storage);
    return *this;
  }

  onnx::NodeProto& node(const std::string& op, std::initializer_list<std::string> inputs,
                        std::initializer_list<std::string> outputs, const std::string& name = "") {
    onnx::NodeProto* n = m_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const std::string& i : inputs) n->add_input(i);
    for (const std::string& o : outputs) n->add_output(o);
    return *n;
  }

  onnx::ModelProto& proto() { return m_; }
  std::string bytes() const { return m_.SerializeAsString(); }
  Graph import() const { return import_onnx_bytes(bytes(), "test.onnx"); }

 private:
  static void value_info(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims, DType t) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx_elem_type(t));
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) {
      auto* dim = shape->add_dim();
      if (d < 0) dim->set_dim_param("N");
      else dim->set_dim_value(d);
    }
  }
  static void sequence_info(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims,
                            DType t) {
    onnx::ValueInfoProto element;
    value_info(&element, name, dims, t);
    if (dims.empty()) element.mutable_type()->mutable_tensor_type()->clear_shape();
    v->set_name(name);
    *v->mutable_type()->mutable_sequence_type()->mutable_elem_type() = element.type();
  }
  onnx::ModelProto m_;
};

inline onnx::AttributeProto& attr(onnx::NodeProto& n, const std::string& name) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  return *a;
}
inline void attr_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto& a = attr(n, name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
}
inline void attr_float(onnx::NodeProto& n, const std::string& name, float v) {
  auto& a = attr(n, name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(v);
}
inline void attr_string(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto& a = attr(n, name);
  a.set_type(onnx::AttributeProto::STRING);
  a.set_s(v);
}
inline void attr_ints(onnx::NodeProto& n, const std::string& name, std::initializer_list<int64_t> v) {
  auto& a = attr(n, name);
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a.add_ints(x);
}
inline void attr_floats(onnx::NodeProto& n, const std::string& name, std::initializer_list<float> v) {
  auto& a = attr(n, name);
  a.set_type(onnx::AttributeProto::FLOATS);
  for (float x : v) a.add_floats(x);
}
inline void attr_tensor(onnx::NodeProto& n, const std::string& name, const Tensor& t, Storage storage = Storage::kRaw) {
  auto& a = attr(n, name);
  a.set_type(onnx::AttributeProto::TENSOR);
  *a.mutable_t() = tensor_proto("", t, storage);
}

inline Tensor ints(std::initializer_list<int64_t> v) {
  return Tensor::from_int64(DType::kInt64, {int64_t(v.size())}, std::vector<int64_t>(v));
}

}  // namespace tauvta::graph::testing
