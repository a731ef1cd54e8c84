// Python progress callbacks called from C++ (with the GIL taken for the call only).
#pragma once

#include <functional>
#include <string>

#include <pybind11/pybind11.h>

namespace tauvta::python {

namespace py = pybind11;

// cb(line) for each progress line; None: no progress at all (nothing printed).
std::function<void(const std::string&)> line_progress(const py::object& cb);

}  // namespace tauvta::python
