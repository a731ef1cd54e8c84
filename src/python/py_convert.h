// Crossing between C++ and Python: JSON reports as plain dicts and lists, tensors as NumPy arrays
// (outputs without a copy: the array owns the tensor's buffer), and tauvta::Error as tauvta.Error
// with the message the command line prints.
#pragma once

#include <string>

#include <nlohmann/json.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "cpu/float_executor.h"
#include "graph/graph.h"

namespace tauvta::python {

namespace py = pybind11;

py::object to_python(const nlohmann::json& j);
nlohmann::json from_python(const py::handle& o);  // dicts, lists, str, int, float, bool, None

// The array takes the tensor's bytes over (no copy).
py::array to_numpy(graph::Tensor t);
cpu::TensorMap inputs_from_python(const py::handle& inputs, const graph::Graph& g);
py::dict to_numpy_dict(cpu::TensorMap m);

// An array (any C-contiguous or strided layout; one copy into the tensor) as a Tensor.
graph::Tensor from_numpy(const py::handle& a, const std::string& what);

// Runs `f` without the GIL (the simulator, compiler and tuner never touch Python objects).
template <class F>
auto without_gil(F&& f) {
  py::gil_scoped_release release;
  return f();
}

}  // namespace tauvta::python
