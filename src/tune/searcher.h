// Searchers behind one ask/tell interface (Timeloop's next()/report()): next(batch) proposes
// points of a KnobSpace never proposed before, report(results) tells their measured scores. The
// tuner loop, the log resume and the tests drive every searcher the same way, so random, grid,
// measured annealing and the model-guided search (XGBoost + annealing + epsilon-greedy batches,
// tau-VTA's Algorithm 1, lines 4-10) are interchangeable. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "ml/cost_model.h"
#include "tune/knob_space.h"

namespace tauvta::tune {

// The XGBoost cost model lives in ml/ (the FPGA resource model trains one on implementation
// reports too); the tuner's names for it.
using ml::cost_objective_name;
using ml::CostModel;
using ml::CostModelOptions;
using ml::CostObjective;
using ml::parse_cost_objective;

// A measured point: score is GOPS (higher is better); a failed measurement scores 0.
struct TrialResult {
  size_t point = 0;
  double score = 0;
};

// Rows from other tasks' measurements (other workloads or hardware) the model starts from.
struct TransferSet {
  std::vector<float> rows;      // n x num_features()
  std::vector<float> scores;    // normalized per group (1 = that group's best)
  std::vector<unsigned> groups; // consecutive group sizes
  size_t size() const { return scores.size(); }
};

struct SearcherOptions {
  std::string kind = "xgb";  // random, grid, sa, xgb
  uint64_t seed = 1;
  double epsilon = 0.05;     // xgb: share of each batch drawn at random
  int chains = 64;           // parallel annealing chains (sa, xgb)
  int anneal_steps = 300;    // xgb: most annealing steps over the model per batch
  int expected_trials = 1000;  // sa: the budget its temperature cools over
  // xgb: until the model has data, anneal over the analytic cycle estimate (the default
  // heuristic's) instead of choosing the first batches at random.
  bool analytic_prior = true;
  CostModelOptions model;
  const TransferSet* transfer = nullptr;  // xgb: warm start (must outlive the searcher)
};

class Searcher {
 public:
  Searcher(const KnobSpace& space, uint64_t seed);
  virtual ~Searcher() = default;
  Searcher(const Searcher&) = delete;
  Searcher& operator=(const Searcher&) = delete;

  // Up to `batch` legal points never proposed (nor reported) before; empty once the space is
  // exhausted.
  virtual std::vector<size_t> next(size_t batch) = 0;
  // Scores of proposed points, or of points measured before this searcher existed (a resumed
  // log): those are marked proposed too.
  virtual void report(std::span<const TrialResult> results);
  virtual std::string name() const = 0;
  // The cost model's feature importance ("gain"), best first; empty for model-free searchers
  // or before the model is trained.
  virtual std::vector<std::pair<std::string, double>> feature_importance() const { return {}; }

  size_t proposed() const { return space_.size() - unproposed_.size(); }
  size_t remaining() const { return unproposed_.size(); }
  bool was_proposed(size_t point) const { return slot_[point] == kTaken; }

 protected:
  // Marks `point` proposed; false when it already was.
  bool take(size_t point);
  // A uniformly random unproposed point, taken (nullopt when none is left).
  std::optional<size_t> take_random();

  const KnobSpace& space_;
  std::mt19937_64 rng_;

 private:
  static constexpr size_t kTaken = SIZE_MAX;
  std::vector<size_t> unproposed_;  // points not yet proposed (swap-remove)
  std::vector<size_t> slot_;        // point -> its index in unproposed_, or kTaken
};

// `features`: space.size() x num_features() rows (space_features), used by xgb. Throws
// tauvta::Error for an unknown kind.
std::unique_ptr<Searcher> make_searcher(const SearcherOptions& o, const KnobSpace& space,
                                        std::span<const float> features);

// The searcher kinds, for help texts: "random, grid, sa, xgb".
const char* searcher_kinds();

}  // namespace tauvta::tune
