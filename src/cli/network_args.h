// What `tauvta run` (on the accelerator) and `tauvta compile` share: the compiled network from an
// ONNX model (quantized, then compiled with tuning-log schedules where records match) or from a
// .tauvta artifact, the tuning log, the batch size.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "backend/compile_network.h"
#include "backend/network.h"
#include "cli/model_args.h"
#include "model/pipeline.h"

namespace tauvta::cli {

struct NetworkArgs {
  std::string tuning_log;
  std::optional<int64_t> batch;  // --batch; unset: the batch the model declares (model::default_batch)
  // The shape of the first input given (run --input): its first dimension is the batch when the
  // model's is symbolic.
  std::optional<graph::Shape> input_shape;
};

void add_network_args(CLI::App* cmd, NetworkArgs& a);

struct BuiltNetwork {
  backend::CompiledNetwork net;
  std::optional<model::LoadedModel> model;  // when built from ONNX (the float graph for comparisons)
  nlohmann::json report;                    // model, config, batch, passes, quantization, tuning log use
  int64_t batch = 1;                        // the batch the network is compiled for
  bool from_artifact = false;
};

// The committed trained VGG-7 (the main job's default model).
std::string default_model_path();

BuiltNetwork build_network(const ModelArgs& m, const NetworkArgs& n);

// Where every layer of a compiled network runs and why, with its schedule and the schedule's source.
std::string placement_table(const backend::CompiledNetwork& net);
nlohmann::json placement_json(const backend::CompiledNetwork& net);

// Schedules from a tuning log's best record per workload, for the records made for config `c`;
// notes what was used in `report["tuning_log"]`. Empty path: no schedules.
backend::CompileOptions tuning_options(const std::string& path, const hw::HwConfig& c, nlohmann::json& report);

}  // namespace tauvta::cli
