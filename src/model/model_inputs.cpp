#include "model/model_inputs.h"

#include <algorithm>
#include <filesystem>

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

namespace {

// Throws naming the first declared input `in` lacks and the file kind it takes (a sequence: .pb).
template <class Map>
void check_declared_inputs_given(const graph::Graph& g, const Map& in) {
  for (const std::string& i : g.inputs) {
    if (in.count(i)) continue;
    const graph::ValueInfo* vi = g.info(i);
    throw Error(fmt::format("input '{}' is not given; pass --input {}=FILE.{}", i, i, vi && vi->sequence ? "pb" : "npy"));
  }
}

// NAME=FILE (or FILE alone for a one-input model) -> {name, file}, the name checked.
std::pair<std::string, std::string> input_spec(const std::string& spec, const graph::Graph& g) {
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
  return {name, file};
}

}  // namespace

void check_inputs_given(const graph::Graph& g, const cpu::TensorMap& in) { check_declared_inputs_given(g, in); }

cpu::TensorMap read_input_files(const std::vector<std::string>& specs, const graph::Graph& g) {
  cpu::TensorMap in;
  for (const std::string& spec : specs) {
    const auto [name, file] = input_spec(spec, g);
    if (const graph::ValueInfo* vi = g.info(name); vi != nullptr && vi->sequence) {
      throw Error(fmt::format("--input '{}': input '{}' is a sequence of tensors, which only the float reference "
                              "takes (--float)",
                              spec, name));
    }
    in[name] = fit_input(g, name, io::read_tensor_file(file));
  }
  check_inputs_given(g, in);
  return in;
}

cpu::ValueMap read_input_values(const std::vector<std::string>& specs, const graph::Graph& g) {
  cpu::ValueMap in;
  for (const std::string& spec : specs) {
    const auto [name, file] = input_spec(spec, g);
    const graph::ValueInfo* vi = g.info(name);
    if (vi != nullptr && vi->sequence) {
      if (std::filesystem::path(file).extension() != ".pb") {
        throw Error(fmt::format("--input '{}': input '{}' is a sequence of tensors; give it as an ONNX SequenceProto "
                                ".pb file",
                                spec, name));
      }
      in[name] = io::read_sequence_pb(file, vi->dtype);
    } else {
      in[name] = fit_input(g, name, io::read_tensor_file(file));
    }
  }
  check_declared_inputs_given(g, in);
  return in;
}

}  // namespace tauvta::model
