#include "model/model_inputs.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.h"
#include "io/tensor_files.h"

namespace tauvta::model {

graph::Tensor fit_input(const graph::Graph& g, const std::string& name, graph::Tensor t) {
  if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end()) {
    throw Error(fmt::format("the model has no input '{}' (inputs: {})", name, fmt::join(g.inputs, ", ")));
  }
  const graph::ValueInfo* vi = g.info(name);
  if (vi != nullptr) {
    if (t.dtype() != vi->dtype) t = t.cast(vi->dtype);
    if (vi->known_shape && t.rank() + 1 == int64_t(vi->shape.size())) {  // one sample: add the batch
      graph::Shape s = t.shape();
      s.insert(s.begin(), 1);
      t = t.reshaped(s);
    }
  }
  return t;
}

void check_inputs_given(const graph::Graph& g, const cpu::TensorMap& in) {
  for (const std::string& i : g.inputs) {
    if (!in.count(i)) throw Error(fmt::format("input '{}' is not given; pass --input {}=FILE.npy", i, i));
  }
}

cpu::TensorMap read_input_files(const std::vector<std::string>& specs, const graph::Graph& g) {
  cpu::TensorMap in;
  for (const std::string& spec : specs) {
    const size_t eq = spec.find('=');
    std::string name, file;
    if (eq == std::string::npos) {
      if (g.inputs.size() != 1) {
        throw Error(fmt::format("--input '{}': the model has {} inputs; write NAME=FILE", spec, g.inputs.size()));
      }
      name = g.inputs[0];
      file = spec;
    } else {
      name = spec.substr(0, eq);
      file = spec.substr(eq + 1);
    }
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end()) {
      throw Error(fmt::format("--input '{}': the model has no input '{}' (inputs: {})", spec, name,
                              fmt::join(g.inputs, ", ")));
    }
    in[name] = fit_input(g, name, io::read_tensor_file(file));
  }
  check_inputs_given(g, in);
  return in;
}

}  // namespace tauvta::model
