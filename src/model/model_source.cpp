#include "model/model_source.h"

#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/progress.h"
#include "graph/quantize.h"
#include "hw/config_file.h"

namespace tauvta::model {

void apply_tensor_limit(int64_t mib) {
  if (mib < 1 || mib > (int64_t(1) << 40)) {
    throw Error(fmt::format("--max-tensor-mib {}: expected 1 to 2^40", mib));
  }
  graph::set_tensor_byte_limit(mib << 20);
}

hw::HwConfig source_config(const ModelSource& s) { return s.config_value ? *s.config_value : hw::load_config(s.config); }

LoadOptions load_options(const ModelSource& s, bool quantize) {
  apply_tensor_limit(s.max_tensor_mib);
  LoadOptions o;
  o.quantize = quantize;
  o.config = source_config(s);
  o.calibrate = s.calibrate;
  o.calib_stat = graph::parse_calib_statistic(s.calib_stat);
  o.percentile = s.percentile;
  o.weight_stat = graph::parse_calib_statistic(s.weight_stat);
  o.per_channel = s.per_channel;
  o.calib_samples = s.calib_samples;
  o.dump_dir = s.dump_passes;
  o.force = s.force;
  if (s.progress) {
    o.progress = s.progress;
  } else {
    o.progress = [](const std::string& line) {
      static int64_t updates = 0;
      show_progress(line, ++updates, false, 1);
    };
  }
  return o;
}

LoadedModel load_source(const ModelSource& s, const LoadOptions& o) {
  LoadedModel m = load_model(s.model, o);
  if (s.warn) {
    for (const std::string& w : m.warnings) s.warn(w);
    return m;
  }
  if (m.quantized) std::cerr << "\n";  // ends the progress line
  for (const std::string& w : m.warnings) std::cerr << "warning: " << w << "\n";
  return m;
}

nlohmann::json source_report(const ModelSource& s, const LoadOptions& o, const LoadedModel& m) {
  nlohmann::json j;
  j["model"] = s.model;
  j["config"] = o.config.to_json();
  j["config_name"] = o.config.name();
  nlohmann::json passes = nlohmann::json::array();
  for (const PassTiming& t : m.timings) passes.push_back({{"pass", t.pass}, {"seconds", t.seconds}});
  j["passes"] = passes;
  if (m.quantized) j["quantization"] = quantization_settings(o, m);
  return j;
}

nlohmann::json source_spec(const ModelSource& s) {
  auto absolute = [](const std::string& p) { return p.empty() ? p : std::filesystem::absolute(p).string(); };
  nlohmann::json j = {{"model", absolute(s.model)},
                      {"calibrate", absolute(s.calibrate)},
                      {"calib_stat", s.calib_stat},
                      {"percentile", s.percentile},
                      {"weight_stat", s.weight_stat},
                      {"per_channel", s.per_channel},
                      {"calib_samples", s.calib_samples},
                      {"max_tensor_mib", s.max_tensor_mib}};
  // The config as its content, so every worker builds for the same board.
  if (has_config(s)) j["config"] = source_config(s).to_json();
  return j;
}

ModelSource source_from_spec(const nlohmann::json& j) {
  ModelSource s;
  s.model = j.at("model").get<std::string>();
  s.calibrate = j.at("calibrate").get<std::string>();
  s.calib_stat = j.at("calib_stat").get<std::string>();
  s.percentile = j.at("percentile").get<double>();
  s.weight_stat = j.at("weight_stat").get<std::string>();
  s.per_channel = j.at("per_channel").get<bool>();
  s.calib_samples = j.at("calib_samples").get<int64_t>();
  s.max_tensor_mib = j.at("max_tensor_mib").get<int64_t>();
  if (j.contains("config")) s.config_value = hw::HwConfig::from_json(j.at("config"), "the round's config");
  s.progress = [](const std::string&) {};  // a worker's log is for its results
  return s;
}

}  // namespace tauvta::model
