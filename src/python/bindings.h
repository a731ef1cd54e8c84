// The Python module's parts (src/python/module.cpp calls each bind_*), and the argument
// conventions they share.
#pragma once

#include <string>

#include <pybind11/pybind11.h>

#include "hw/hw_config.h"

namespace tauvta::python {

namespace py = pybind11;

void bind_config(py::module_& m);   // HwConfig
void bind_network(py::module_& m);  // compile, load, Network
void bind_tools(py::module_& m);    // op, op_log, tune, precision_*, dse, resources

// config=None (the Pynq default), a HwConfig, a dict, or a path / VTA config name.
hw::HwConfig config_arg(const py::handle& config);

}  // namespace tauvta::python
