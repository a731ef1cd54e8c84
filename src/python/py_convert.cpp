#include "python/py_convert.h"

#include <cstring>

#include <fmt/format.h>

#include "model/model_inputs.h"
#include "common/error.h"

namespace tauvta::python {

py::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::json::value_t::string: {
      const std::string& s = j.get_ref<const std::string&>();
      // A model's names are the user's bytes: invalid UTF-8 is replaced rather than raised.
      PyObject* u = PyUnicode_DecodeUTF8(s.data(), Py_ssize_t(s.size()), "replace");
      if (!u) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(u);
    }
    case nlohmann::json::value_t::array: {
      py::list l;
      for (const nlohmann::json& v : j) l.append(to_python(v));
      return l;
    }
    case nlohmann::json::value_t::object: {
      py::dict d;
      for (const auto& [k, v] : j.items()) d[py::str(k)] = to_python(v);
      return d;
    }
    default: return py::none();
  }
}

nlohmann::json from_python(const py::handle& o) {
  if (o.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(o)) return o.cast<bool>();
  if (py::isinstance<py::int_>(o)) return o.cast<int64_t>();
  if (py::isinstance<py::float_>(o)) return o.cast<double>();
  if (py::isinstance<py::str>(o)) return o.cast<std::string>();
  if (py::isinstance<py::dict>(o)) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : o.cast<py::dict>()) j[py::str(k).cast<std::string>()] = from_python(v);
    return j;
  }
  if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o)) {
    nlohmann::json j = nlohmann::json::array();
    for (const py::handle& v : o) j.push_back(from_python(v));
    return j;
  }
  throw Error(fmt::format("cannot use a Python {} as JSON", py::str(o.get_type().attr("__name__")).cast<std::string>()));
}

namespace {

py::dtype numpy_dtype(graph::DType t) {
  switch (t) {
    case graph::DType::kFloat32: return py::dtype::of<float>();
    case graph::DType::kFloat64: return py::dtype::of<double>();
    case graph::DType::kInt8: return py::dtype::of<int8_t>();
    case graph::DType::kUInt8: return py::dtype::of<uint8_t>();
    case graph::DType::kInt16: return py::dtype::of<int16_t>();
    case graph::DType::kInt32: return py::dtype::of<int32_t>();
    case graph::DType::kInt64: return py::dtype::of<int64_t>();
    case graph::DType::kBool: return py::dtype::of<bool>();
  }
  return py::dtype::of<float>();
}

graph::DType tensor_dtype(const py::dtype& d, const std::string& what) {
  const graph::DType all[] = {graph::DType::kFloat32, graph::DType::kFloat64, graph::DType::kInt8,
                              graph::DType::kUInt8,   graph::DType::kInt16,   graph::DType::kInt32,
                              graph::DType::kInt64,   graph::DType::kBool};
  for (graph::DType t : all) {
    if (d.equal(numpy_dtype(t))) return t;
  }
  throw Error(fmt::format("{}: arrays of {} are not supported (float32, float64, int8/16/32/64, uint8, bool)", what,
                          d.attr("name").cast<std::string>()));
}

}  // namespace

py::array to_numpy(graph::Tensor t) {
  auto* owned = new graph::Tensor(std::move(t));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<graph::Tensor*>(p); });
  std::vector<py::ssize_t> shape(owned->shape().begin(), owned->shape().end());
  return py::array(numpy_dtype(owned->dtype()), shape, owned->raw(), free_when_done);
}

py::dict to_numpy_dict(cpu::TensorMap m) {
  py::dict d;
  for (auto& [name, t] : m) d[py::str(name)] = to_numpy(std::move(t));
  return d;
}

graph::Tensor from_numpy(const py::handle& obj, const std::string& what) {
  py::array a = py::array::ensure(obj, py::array::c_style);  // strided arrays are made contiguous
  if (!a) throw Error(fmt::format("{}: expected a NumPy array", what));
  const graph::DType dt = tensor_dtype(a.dtype(), what);
  graph::Shape shape(a.shape(), a.shape() + a.ndim());
  graph::Tensor t(dt, shape);
  if (t.byte_size() != size_t(a.nbytes())) throw Error(fmt::format("{}: unexpected array size", what));
  if (t.byte_size()) std::memcpy(t.raw(), a.data(), t.byte_size());
  return t;
}

cpu::TensorMap inputs_from_python(const py::handle& inputs, const graph::Graph& g) {
  cpu::TensorMap in;
  if (py::isinstance<py::dict>(inputs)) {
    for (const auto& [k, v] : inputs.cast<py::dict>()) {
      const std::string name = py::str(k).cast<std::string>();
      in[name] = model::fit_input(g, name, from_numpy(v, fmt::format("input '{}'", name)));
    }
  } else {
    if (g.inputs.size() != 1) {
      throw Error(fmt::format("the model has {} inputs; pass a dict {{name: array}}", g.inputs.size()));
    }
    in[g.inputs[0]] = model::fit_input(g, g.inputs[0], from_numpy(inputs, fmt::format("input '{}'", g.inputs[0])));
  }
  model::check_inputs_given(g, in);
  return in;
}

}  // namespace tauvta::python
