#include "cli/model_args.h"

#include "cli/progress.h"

#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_io.h"
#include "common/error.h"
#include "graph/quantize.h"

namespace tauvta::cli {

void add_model_args(CLI::App* cmd, ModelArgs& a, bool model_required) {
  CLI::Option* model = cmd->add_option("model", a.model, "ONNX model file (or a compiled .tauvta where accepted)");
  if (model_required) model->required();
  cmd->add_option("--config", a.config, "Hardware config JSON whose widths --int targets (default: built-in pynq)");
  cmd->add_option("--calibrate", a.calibrate,
                  "Calibration data: a directory of .npy files, a .npy file or an IDX image file "
                  "(default: synthetic inputs, with a warning)");
  cmd->add_option("--calib-stat", a.calib_stat, "Activation binary points from: max, percentile or mse")
      ->check(CLI::IsMember({"max", "percentile", "mse"}));
  cmd->add_option("--percentile", a.percentile, "Percentile of |x| for --calib-stat percentile (default 99.99)");
  cmd->add_option("--weight-stat", a.weight_stat, "Weight binary points from: max or mse (default mse)")
      ->check(CLI::IsMember({"max", "mse"}));
  cmd->add_flag("--per-channel", a.per_channel, "One weight binary point (and shift) per output channel");
  cmd->add_option("--calib-samples", a.calib_samples, "Calibration samples used at most (default 512)");
  cmd->add_option("--dump-passes", a.dump_passes, "Write the graph after each pass to DIR/NN-<pass>.txt");
  cmd->add_flag("--force", a.force, "Overwrite existing output files");
  cmd->add_option("--max-tensor-mib", a.max_tensor_mib,
                  "Refuse models whose tensors would exceed this many MiB (default 4096)");
}

void apply_tensor_limit(int64_t mib) {
  if (mib < 1 || mib > (int64_t(1) << 40)) {
    throw Error(fmt::format("--max-tensor-mib {}: expected 1 to 2^40", mib));
  }
  graph::set_tensor_byte_limit(mib << 20);
}

hw::HwConfig model_config(const ModelArgs& a) { return a.config_value ? *a.config_value : load_config(a.config); }

model::LoadOptions load_options(const ModelArgs& a, bool quantize) {
  apply_tensor_limit(a.max_tensor_mib);
  model::LoadOptions o;
  o.quantize = quantize;
  o.config = model_config(a);
  o.calibrate = a.calibrate;
  o.calib_stat = graph::parse_calib_statistic(a.calib_stat);
  o.percentile = a.percentile;
  o.weight_stat = graph::parse_calib_statistic(a.weight_stat);
  o.per_channel = a.per_channel;
  o.calib_samples = a.calib_samples;
  o.dump_dir = a.dump_passes;
  o.force = a.force;
  if (a.progress) {
    o.progress = a.progress;
  } else {
    o.progress = [](const std::string& line) {
      static int64_t updates = 0;
      show_progress(line, ++updates, false, 1);
    };
  }
  return o;
}

model::LoadedModel load_for_cli(const ModelArgs& a, const model::LoadOptions& o) {
  model::LoadedModel m = model::load_model(a.model, o);
  if (m.quantized) std::cerr << "\n";
  for (const std::string& w : m.warnings) std::cerr << "warning: " << w << "\n";
  return m;
}

nlohmann::json model_report(const ModelArgs& a, const model::LoadOptions& o, const model::LoadedModel& m) {
  nlohmann::json j;
  j["model"] = a.model;
  j["config"] = o.config.to_json();
  j["config_name"] = o.config.name();
  nlohmann::json passes = nlohmann::json::array();
  for (const model::PassTiming& t : m.timings) passes.push_back({{"pass", t.pass}, {"seconds", t.seconds}});
  j["passes"] = passes;
  if (m.quantized) j["quantization"] = model::quantization_settings(o, m);
  return j;
}

nlohmann::json model_args_spec(const ModelArgs& a) {
  auto absolute = [](const std::string& p) { return p.empty() ? p : std::filesystem::absolute(p).string(); };
  nlohmann::json j = {{"model", absolute(a.model)},
                      {"calibrate", absolute(a.calibrate)},
                      {"calib_stat", a.calib_stat},
                      {"percentile", a.percentile},
                      {"weight_stat", a.weight_stat},
                      {"per_channel", a.per_channel},
                      {"calib_samples", a.calib_samples},
                      {"max_tensor_mib", a.max_tensor_mib}};
  // The config as its content, so every worker builds for the same board.
  if (has_config(a)) j["config"] = model_config(a).to_json();
  return j;
}

ModelArgs model_args_from_spec(const nlohmann::json& j) {
  ModelArgs a;
  a.model = j.at("model").get<std::string>();
  a.calibrate = j.at("calibrate").get<std::string>();
  a.calib_stat = j.at("calib_stat").get<std::string>();
  a.percentile = j.at("percentile").get<double>();
  a.weight_stat = j.at("weight_stat").get<std::string>();
  a.per_channel = j.at("per_channel").get<bool>();
  a.calib_samples = j.at("calib_samples").get<int64_t>();
  a.max_tensor_mib = j.at("max_tensor_mib").get<int64_t>();
  if (j.contains("config")) a.config_value = hw::HwConfig::from_json(j.at("config"), "the round's config");
  a.progress = [](const std::string&) {};  // a worker's log is for its results
  return a;
}

}  // namespace tauvta::cli
