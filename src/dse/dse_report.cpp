#include "dse/dse_report.h"

#include <cctype>
#include <algorithm>
#include <fstream>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/error.h"

namespace tauvta::dse {

void write_atomic(const std::filesystem::path& path, const std::string& text) {
  if (!path.parent_path().empty()) std::filesystem::create_directories(path.parent_path());
  write_file_atomic(path, text);
}

std::vector<const Evaluation*> pareto_front(std::span<const Evaluation> evals, fpga::ResourceKind resource) {
  std::vector<const Evaluation*> ok;
  for (const Evaluation& e : evals) {
    if (e.feasible && e.cycles > 0) ok.push_back(&e);
  }
  return pareto_front_of(std::move(ok), resource);
}

std::vector<const Evaluation*> pareto_front_of(std::vector<const Evaluation*> ok, fpga::ResourceKind resource) {
  std::stable_sort(ok.begin(), ok.end(), [&](const Evaluation* a, const Evaluation* b) {
    if (a->latency_ms != b->latency_ms) return a->latency_ms < b->latency_ms;
    return fpga::get(a->resources, resource) < fpga::get(b->resources, resource);
  });
  std::vector<const Evaluation*> front;
  double least = std::numeric_limits<double>::infinity();
  for (const Evaluation* e : ok) {
    const double r = fpga::get(e->resources, resource);
    if (r < least) {
      front.push_back(e);
      least = r;
    }
  }
  return front;
}

std::vector<const Evaluation*> accuracy_front(std::span<const PrecisionResult> results, fpga::ResourceKind resource) {
  // Accuracy takes one value per format: each format's (latency, resource) front, then the points
  // another format's front dominates in all three are dropped.
  std::map<double, std::vector<const Evaluation*>> by_accuracy;
  for (const PrecisionResult& r : results) {
    for (const Evaluation& e : r.evaluations) {
      if (e.feasible && e.cycles > 0 && e.accuracy >= 0) by_accuracy[e.accuracy].push_back(&e);
    }
  }
  std::vector<const Evaluation*> candidates, front;
  for (auto& [acc, group] : by_accuracy) {
    for (const Evaluation* e : pareto_front_of(std::move(group), resource)) candidates.push_back(e);
  }
  for (const Evaluation* e : candidates) {
    const double re = fpga::get(e->resources, resource);
    bool dominated = false;
    for (const Evaluation* o : candidates) {
      const double ro = fpga::get(o->resources, resource);
      if (o != e && o->accuracy >= e->accuracy && o->latency_ms <= e->latency_ms && ro <= re &&
          (o->accuracy > e->accuracy || o->latency_ms < e->latency_ms || ro < re)) {
        dominated = true;
        break;
      }
    }
    if (!dominated) front.push_back(e);
  }
  std::stable_sort(front.begin(), front.end(), [](const Evaluation* a, const Evaluation* b) {
    return a->accuracy != b->accuracy ? a->accuracy > b->accuracy : a->latency_ms < b->latency_ms;
  });
  return front;
}

namespace {

// "lut", "bram36": a resource's key in summary.json, as an evaluation's resources name it.
std::string resource_key(fpga::ResourceKind kind) {
  std::string key = fpga::resource_name(kind);
  for (char& c : key) c = char(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

std::string csv_text(std::string s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

nlohmann::json write_outputs(const std::filesystem::path& dir, std::span<const PrecisionResult> results,
                   const std::vector<const DesignSpace*>& spaces, const Evaluator& evaluator,
                   const nlohmann::json& options) {
  std::string designs = "precision,evaluation,key,budget";
  for (int k = 0; k < kNumKnobs; ++k) designs += fmt::format(",{}", knob_name(Knob(k)));
  designs += ",feasible,verdict,reason,lut,ff,dsp,bram36,fmax_mhz,clock_mhz,critical_stage,peak_gops,cycles,gops,latency_ms,accuracy,acc_wrap_rate,acc_worst_case_warnings\n";
  std::string importance = "precision,target,feature,importance\n";
  std::string pareto = "precision,resource,rank,key,latency_ms,gops,value\n";
  std::string convergence = "precision,evaluation,budget,gops,best_gops\n";
  nlohmann::json summary;
  summary["options"] = options;
  summary["precisions"] = nlohmann::json::array();
  for (size_t i = 0; i < results.size(); ++i) {
    const PrecisionResult& r = results[i];
    const DesignSpace& space = *spaces[i];
    double best = 0;
    size_t n = 0;
    nlohmann::json curve = nlohmann::json::array();  // convergence.csv's rows of this precision
    for (size_t j = 0; j < r.evaluations.size(); ++j) {
      const Evaluation& e = r.evaluations[j];
      designs += fmt::format("{},{},{},{}", r.precision, j + 1, e.key, e.budget);
      for (int k = 0; k < kNumKnobs; ++k) designs += fmt::format(",{}", space.value(e.design, Knob(k)));
      designs += fmt::format(",{},{},{},{:.0f},{:.0f},{:.0f},{:.1f},{:.1f},{:.0f},{},{:.2f},{},{:.4f},{:.4f},{},{},{}\n",
                             e.feasible ? 1 : 0, e.verdict, csv_text(e.reason), e.resources.lut, e.resources.ff, e.resources.dsp,
                             e.resources.bram36, e.fmax_mhz, e.clock_mhz, e.critical_stage, e.peak_gops, e.cycles,
                             e.gops, e.latency_ms, e.accuracy >= 0 ? fmt::format("{:.4f}", e.accuracy) : "",
                             e.wrap_rate >= 0 ? fmt::format("{:.3g}", e.wrap_rate) : "",
                             e.accumulator_warnings >= 0 ? std::to_string(e.accumulator_warnings) : "");
      if (e.budget < 0) continue;
      ++n;
      if (e.feasible) best = std::max(best, e.gops);
      convergence += fmt::format("{},{},{},{:.4f},{:.4f}\n", r.precision, n, e.budget, e.feasible ? e.gops : 0.0, best);
      curve.push_back({{"evaluation", n}, {"budget", e.budget}, {"gops", e.feasible ? e.gops : 0.0}, {"best_gops", best}});
    }
    for (const TargetReport& t : r.importance.targets) {
      for (const auto& [name, v] : t.importance) {
        importance += fmt::format("{},{},{},{:.6f}\n", r.precision, target_name(t.target), name, v);
      }
    }
    for (fpga::ResourceKind k : {fpga::ResourceKind::kLut, fpga::ResourceKind::kDsp, fpga::ResourceKind::kBram}) {
      size_t rank = 0;
      for (const Evaluation* e : pareto_front(r.evaluations, k)) {
        pareto += fmt::format("{},{},{},{},{:.4f},{:.4f},{:.1f}\n", r.precision, fpga::resource_name(k), ++rank, e->key,
                              e->latency_ms, e->gops, fpga::get(e->resources, k));
      }
    }
    // Every resource's front in summary.json (fastest first), keyed as an evaluation's resources.
    nlohmann::json fronts = nlohmann::json::object();
    for (int k = 0; k < fpga::kNumResourceKinds; ++k) {
      const std::string key = resource_key(fpga::ResourceKind(k));
      nlohmann::json front = nlohmann::json::array();
      for (const Evaluation* e : pareto_front(r.evaluations, fpga::ResourceKind(k))) {
        front.push_back({{"key", e->key}, {"latency_ms", e->latency_ms}, {"gops", e->gops},
                         {"value", fpga::get(e->resources, fpga::ResourceKind(k))}});
      }
      fronts[key] = front;
    }
    nlohmann::json p = {{"precision", r.precision},
                        {"device", r.device},
                        {"raw_size", r.raw_size},
                        {"pruned_size", r.pruned_size},
                        {"evaluated", r.evaluations.size()},
                        {"performance_evaluations", r.performance_evaluations()},
                        {"feasible", r.feasible()},
                        {"wall_seconds", r.wall_seconds},
                        {"importance", to_json(r.importance)},
                        {"strategy", r.strategy_summary},
                        {"convergence", curve},
                        {"pareto", fronts}};
    if (r.best) {
      const Evaluation& b = r.evaluations[*r.best];
      p["best"] = to_json(b);
      p["best"]["evaluations_to_95pct"] = r.evaluations_to_reach(b.gops);
      const std::filesystem::path bdir = dir / "best" / fmt::format("p{}", r.precision);
      write_atomic(bdir / "vta_config.json", b.config.to_json().dump(2) + "\n");
      write_atomic(bdir / "evaluation.json", to_json(b).dump(2) + "\n");
      const std::filesystem::path log = evaluator.log_path(b.config);
      if (!log.empty() && std::filesystem::exists(log)) {
        std::ifstream in(log, std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        write_atomic(bdir / "tuning_log.jsonl", text);
        p["best"]["tuning_log"] = (bdir / "tuning_log.jsonl").string();
      }
      p["best"]["vta_config"] = (bdir / "vta_config.json").string();
    }
    summary["precisions"].push_back(p);
  }
  // With an accuracy bound: the fronts of accuracy against latency and each resource, across
  // precisions (designs of every format that keeps the bound).
  bool any_accuracy = false;
  for (const PrecisionResult& r : results) {
    for (const Evaluation& e : r.evaluations) any_accuracy = any_accuracy || e.accuracy >= 0;
  }
  if (any_accuracy) {
    std::string csv = "resource,rank,precision,key,accuracy,latency_ms,gops,value\n";
    nlohmann::json fronts = nlohmann::json::object();
    for (int k = 0; k < fpga::kNumResourceKinds; ++k) {
      const auto kind = fpga::ResourceKind(k);
      const std::string key = resource_key(kind);
      nlohmann::json front = nlohmann::json::array();
      size_t rank = 0;
      for (const Evaluation* e : accuracy_front(results, kind)) {
        front.push_back({{"key", e->key}, {"precision", e->precision}, {"accuracy", e->accuracy},
                         {"latency_ms", e->latency_ms}, {"gops", e->gops}, {"value", fpga::get(e->resources, kind)}});
        csv += fmt::format("{},{},{},{},{:.4f},{:.4f},{:.4f},{:.1f}\n", key, ++rank, e->precision, e->key, e->accuracy,
                           e->latency_ms, e->gops, fpga::get(e->resources, kind));
      }
      fronts[key] = front;
    }
    summary["pareto_accuracy"] = fronts;
    write_atomic(dir / "pareto_accuracy.csv", csv);
  }
  write_atomic(dir / "designs.csv", designs);
  write_atomic(dir / "importance.csv", importance);
  write_atomic(dir / "pareto.csv", pareto);
  write_atomic(dir / "convergence.csv", convergence);
  write_atomic(dir / "summary.json", summary.dump(2) + "\n");
  return summary;
}

}  // namespace tauvta::dse
