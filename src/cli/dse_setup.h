// What `tauvta dse` and its Slurm workers build the same way from DseArgs: the device, the
// precisions, the workload, the evaluator's options and a precision's design space. A worker
// that built any of these differently would key its results differently from its coordinator.
#pragma once

#include <memory>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/dse_command.h"
#include "dse/design_space.h"
#include "dse/evaluator.h"
#include "dse/workload.h"
#include "fpga/device.h"

namespace tauvta::cli {

struct DseSetup {
  const fpga::Device* device = nullptr;
  std::vector<int> precisions;
  std::unique_ptr<dse::DseWorkload> workload;
  dse::EvaluatorOptions evaluator;
  dse::SpaceOptions space(int precision) const;
};

DseSetup make_dse_setup(const DseArgs& a);

// Registers `dse worker` under the dse command.
void add_dse_worker(CLI::App* dse);

}  // namespace tauvta::cli
