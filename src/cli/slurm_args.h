// The --slurm options `tauvta dse` and `tauvta tune` share (cluster/array_round.h), and what
// their reports record of them.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cluster/array_round.h"

namespace tauvta::cli {

void add_slurm_args(CLI::App* cmd, bool& slurm, cluster::ArrayOptions& o);

// The options with the worker binary filled in (this tauvta, unless set) and checked.
cluster::ArrayOptions resolved_slurm_options(const cluster::ArrayOptions& o);

nlohmann::json to_json(const cluster::ArrayOptions& o);

}  // namespace tauvta::cli
