// What an exploration leaves in its output directory, every file written through a temporary name
// and renamed (a killed run never leaves half a file): designs.csv (every evaluated design: knob
// values, resources, clock, feasibility and its reason, cycles, GOPS), importance.csv (per
// precision and target), pareto.csv (latency against LUT, DSP and BRAM), convergence.csv (GOPS
// and best so far per evaluation), best/pP/vta_config.json (loadable with --config) with its
// tuning log and evaluation, and summary.json (the resolved options, space sizes, the best design
// per precision, the models' held-out accuracy and importance, the strategy's record). With an
// accuracy bound, designs.csv's accuracy column and pareto_accuracy.csv (accuracy against latency
// and each resource, across precisions).
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dse/evaluator.h"
#include "dse/explorer.h"

namespace tauvta::dse {

// Writes `text` to `path` through `path`.tmp and a rename.
void write_atomic(const std::filesystem::path& path, const std::string& text);

// The designs not dominated in (latency, `resource`) among feasible evaluations, fastest first.
std::vector<const Evaluation*> pareto_front(std::span<const Evaluation> evals, fpga::ResourceKind resource);
std::vector<const Evaluation*> pareto_front_of(std::vector<const Evaluation*> feasible, fpga::ResourceKind resource);
// With an accuracy step: the feasible designs of every precision not dominated in (accuracy,
// latency, `resource`), most accurate first.
std::vector<const Evaluation*> accuracy_front(std::span<const PrecisionResult> results, fpga::ResourceKind resource);

// Returns summary.json's content.
nlohmann::json write_outputs(const std::filesystem::path& dir, std::span<const PrecisionResult> results,
                   const std::vector<const DesignSpace*>& spaces, const Evaluator& evaluator,
                   const nlohmann::json& options);

}  // namespace tauvta::dse
