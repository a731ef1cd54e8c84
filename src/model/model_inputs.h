// A model's inputs from the user: `--input NAME=FILE` specs (the CLI) or arrays (the Python
// module), fitted to the graph's declared inputs the same way so both run the same bytes.
#pragma once

#include <string>
#include <vector>

#include "cpu/float_executor.h"
#include "graph/graph.h"

namespace tauvta::model {

// `t` given for input `name`: cast to the declared dtype, and given a batch dimension of 1 when
// it is one sample of a batched input. Throws naming the input the graph does not have.
graph::Tensor fit_input(const graph::Graph& g, const std::string& name, graph::Tensor t);

// Throws naming the first declared input `in` lacks.
void check_inputs_given(const graph::Graph& g, const cpu::TensorMap& in);

// NAME=FILE (or FILE alone for a one-input model) specs: .npy or TensorProto .pb files.
cpu::TensorMap read_input_files(const std::vector<std::string>& specs, const graph::Graph& g);

// read_input_files for the float reference, whose inputs may be sequences of tensors: an input the
// graph declares a sequence is read from an ONNX SequenceProto .pb file (elements of the declared
// dtype), every other input as read_input_files reads it.
cpu::ValueMap read_input_values(const std::vector<std::string>& specs, const graph::Graph& g);

}  // namespace tauvta::model
