// A compiled network as every command and the Python module get one: from an ONNX model
// (quantized, then compiled with tuning-log schedules where records match) or from a .tauvta
// artifact (checked against the config and batch asked for).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "backend/compile_network.h"
#include "backend/network.h"
#include "model/model_source.h"
#include "model/pipeline.h"

namespace tauvta::backend {

struct NetworkRequest {
  std::string tuning_log;         // AutoTVM/TopHub records; empty: the heuristic's schedules
  std::optional<int64_t> batch;   // unset: the batch the model declares (model::default_batch)
  std::optional<graph::Shape> input_shape;  // a given input's shape (a symbolic batch takes its first dimension)
};

struct BuiltNetwork {
  CompiledNetwork net;
  std::optional<model::LoadedModel> model;  // when built from ONNX (the float graph for comparisons)
  nlohmann::json report;                    // model, config, batch, passes, quantization, tuning log use
  int64_t batch = 1;                        // the batch the network is compiled for
  bool from_artifact = false;
};

BuiltNetwork build_network(const model::ModelSource& m, const NetworkRequest& n);

// Where every layer runs and why, with each accelerator layer's schedule and its source.
std::string placement_table(const CompiledNetwork& net);
nlohmann::json placement_json(const CompiledNetwork& net);

// The tuning log's schedules for config `c`: only records tuned for this config (by VTA config
// name) and measured without error count; per workload the one with the lowest measured time
// wins, as AutoTVM's ApplyHistoryBest does. Records what it used in report["tuning_log"].
CompileOptions tuning_log_options(const std::string& path, const hw::HwConfig& c, nlohmann::json& report);

}  // namespace tauvta::backend
