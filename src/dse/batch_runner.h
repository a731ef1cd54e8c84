// Where a strategy's batch of asks is evaluated. The explorer hands every batch to a runner and
// tells the strategy what comes back, in ask order; the runner decides where the work happens:
// ThreadRunner on this machine's cores, SlurmRunner (dse/slurm_runner.h) as a Slurm job array.
// Results do not depend on the runner: an evaluation is a function of the design, its budget and
// the tuning logs earlier batches left.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "dse/evaluator.h"
#include "dse/strategy.h"

namespace tauvta::dse {

class BatchRunner {
 public:
  virtual ~BatchRunner() = default;
  // The evaluations of `asks`, in their order. `done(n)`: n evaluations of this batch are in
  // (may be called from several threads; may be empty).
  virtual std::vector<Evaluation> run(const DesignSpace& space, Evaluator& evaluator, std::span<const Ask> asks,
                                      const std::function<void(size_t done)>& done) = 0;
};

// The asks in groups that must run one after another (Evaluator::sharing_key), each in ask
// order; groups in the order of their first ask. Every runner keeps a group in one worker.
std::vector<std::vector<size_t>> sharing_groups(const DesignSpace& space, const Evaluator& evaluator,
                                                std::span<const Ask> asks);

// A pool of threads in this process, each taking the next group of asks (the first error stops
// the batch and is rethrown).
class ThreadRunner final : public BatchRunner {
 public:
  explicit ThreadRunner(int threads = 0) : threads_(threads) {}  // <= 0: every core
  std::vector<Evaluation> run(const DesignSpace& space, Evaluator& evaluator, std::span<const Ask> asks,
                              const std::function<void(size_t done)>& done) override;

 private:
  int threads_;
};

}  // namespace tauvta::dse
