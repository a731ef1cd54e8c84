// tauvta.HwConfig: a hardware configuration (VTA's vta_config.json plus TIMING and IMPLEMENTATION), with keyword
// construction over the same keys the JSON files use.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include "common/file_io.h"
#include "hw/config_file.h"
#include "common/error.h"
#include "hw/hw_config.h"
#include "python/bindings.h"
#include "python/py_convert.h"

namespace tauvta::python {

namespace {

std::string upper(std::string key) {
  for (char& c : key) c = char(std::toupper(static_cast<unsigned char>(c)));
  return key;
}

// LOG_BLOCK_IN=5 or log_block_in=5; TIMING={...} or timing={...}, IMPLEMENTATION={...} or
// implementation={...} (merged over the defaults; their keys in any case too). The TIMING keys
// that follow from the implementation are derived unless given.
hw::HwConfig config_from_kwargs(const py::kwargs& kw) {
  nlohmann::json j = hw::HwConfig{}.to_json();
  for (const char* k : {"GEMM_II", "ALU_II", "GEMM_PIPELINE_DEPTH", "ALU_PIPELINE_DEPTH", "INSN_OVERHEAD_CYCLES"}) {
    j["TIMING"].erase(k);
  }
  for (const auto& [k, v] : kw) {
    const std::string key = upper(py::str(k).cast<std::string>());
    if (key == "LOG_BLOCK_IN" || key == "LOG_BLOCK_OUT") {
      if (j.contains("LOG_BLOCK")) {
        j["LOG_BLOCK_IN"] = j["LOG_BLOCK_OUT"] = j["LOG_BLOCK"];
        j.erase("LOG_BLOCK");
      }
    }
    if (key == "TIMING" || key == "IMPLEMENTATION") {
      const nlohmann::json part = from_python(v);
      if (!part.is_object()) throw Error(fmt::format("HwConfig(...): {} must be a dict", key));
      for (const auto& [tk, tv] : part.items()) j[key][upper(tk)] = tv;
      continue;
    }
    j[key] = from_python(v);
  }
  if (j.contains("LOG_BLOCK") && (j.contains("LOG_BLOCK_IN") || j.contains("LOG_BLOCK_OUT"))) j.erase("LOG_BLOCK");
  return hw::HwConfig::from_json(j, "HwConfig(...)");
}

py::dict derived(const hw::HwConfig& c) {
  py::dict d;
  d["inp_width"] = c.inp_width();
  d["wgt_width"] = c.wgt_width();
  d["acc_width"] = c.acc_width();
  d["out_width"] = c.out_width();
  d["batch"] = c.batch();
  d["block_in"] = c.block_in();
  d["block_out"] = c.block_out();
  d["macs_per_cycle"] = c.macs_per_cycle();
  d["peak_gops"] = c.peak_gops();
  d["dram_gbps"] = c.dram_gbps();
  d["dram_bytes_per_cycle"] = c.dram_bytes_per_cycle();
  const char* names[] = {"uop", "inp", "wgt", "acc", "out"};
  const int elem[] = {c.uop_elem_bytes(), c.inp_elem_bytes(), c.wgt_elem_bytes(), c.acc_elem_bytes(), c.out_elem_bytes()};
  const uint32_t depth[] = {c.uop_depth(), c.inp_depth(), c.wgt_depth(), c.acc_depth(), c.out_depth()};
  for (int i = 0; i < 5; ++i) {
    d[py::str(fmt::format("{}_elem_bytes", names[i]))] = elem[i];
    d[py::str(fmt::format("{}_depth", names[i]))] = depth[i];
  }
  return d;
}

}  // namespace

hw::HwConfig config_arg(const py::handle& config) {
  if (config.is_none()) return hw::HwConfig{};
  if (py::isinstance<hw::HwConfig>(config)) return config.cast<hw::HwConfig>();
  if (py::isinstance<py::dict>(config)) return hw::HwConfig::from_json(from_python(config), "config dict");
  return hw::load_config(py::str(config).cast<std::string>());  // a path or a VTA config name
}

void bind_config(py::module_& m) {
  py::class_<hw::HwConfig>(m, "HwConfig",
                           "A hardware configuration: VTA's vta_config.json keys (LOG_INP_WIDTH, LOG_BLOCK, ...) "
                           "and TIMING. HwConfig() is the Pynq default; keywords override keys.")
      .def(py::init([](const py::kwargs& kw) { return config_from_kwargs(kw); }))
      .def_static("load", [](const std::string& path) { return hw::HwConfig::load(path); }, py::arg("path"),
                  "Load a vta_config.json-style file")
      .def_static("from_name", &hw::HwConfig::from_name, py::arg("name"),
                  "A VTA config name such as 1x16_i8w8a32_15_15_18_17")
      .def_static("from_dict", [](const py::dict& d) { return hw::HwConfig::from_json(from_python(d), "dict"); })
      .def("save",
           [](const hw::HwConfig& c, const std::string& path, bool force) {
             write_text(path, c.to_json().dump(2) + "\n", force);
           },
           py::arg("path"), py::arg("force") = false, "Write the fully resolved config (refuses to replace a file unless force)")
      .def("validate", [](const hw::HwConfig& c) { c.validate(); }, "Raise tauvta.Error naming the first bad field")
      .def("to_dict", [](const hw::HwConfig& c) { return to_python(c.to_json()); }, "The fully resolved config")
      .def("with_timing", [](const hw::HwConfig& c, const py::dict& t) { return c.with_timing(from_python(t)); },
           py::arg("timing"), "A copy with these TIMING keys replaced")
      .def_property_readonly("name", &hw::HwConfig::name)
      .def_property_readonly("peak_gops", &hw::HwConfig::peak_gops)
      .def_property_readonly("dram_gbps", &hw::HwConfig::dram_gbps)
      .def_property_readonly("derived", &derived, "Widths, GEMM shape, buffer depths and element sizes, peak GOPS")
      .def("__eq__", [](const hw::HwConfig& a, const hw::HwConfig& b) { return a == b; })
      .def("__repr__", [](const hw::HwConfig& c) { return fmt::format("HwConfig('{}')", c.name()); });
}

}  // namespace tauvta::python
