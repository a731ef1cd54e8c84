// The options `tauvta run` (on the accelerator) and `tauvta compile` share for the network they
// build (backend::NetworkRequest): the tuning log and the batch size; and the default model.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "backend/build_network.h"

namespace tauvta::cli {

void add_network_args(CLI::App* cmd, backend::NetworkRequest& a);

// models/vgg7_fmnist.onnx in the working directory, else the source tree's.
std::string default_model_path();

}  // namespace tauvta::cli
