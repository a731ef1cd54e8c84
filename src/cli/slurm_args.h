// The --slurm options `tauvta dse` and `tauvta tune` share (cluster/array_round.h).
#pragma once

#include <CLI/CLI.hpp>

#include "cluster/array_round.h"

namespace tauvta::cli {

void add_slurm_args(CLI::App* cmd, bool& slurm, cluster::ArrayOptions& o);

}  // namespace tauvta::cli
