// What `tauvta dse` and its Slurm workers build the same way from ExplorationRequest: the device, the
// precisions, the workload, the evaluator's options and a precision's design space. A worker
// that built any of these differently would key its results differently from its coordinator.
#pragma once

#include <memory>
#include <vector>

#include "dse/exploration_run.h"
#include "dse/design_space.h"
#include "dse/evaluator.h"
#include "dse/workload.h"
#include "fpga/device.h"

namespace tauvta::dse {

struct ExplorationSetup {
  const fpga::Device* device = nullptr;
  std::vector<int> precisions;
  std::unique_ptr<DseWorkload> workload;
  EvaluatorOptions evaluator;
  SpaceOptions space(int precision) const;
};

ExplorationSetup make_exploration_setup(const ExplorationRequest& a);

}  // namespace tauvta::dse
