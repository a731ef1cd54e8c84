#include "dse/explorer.h"

#include <algorithm>
#include <random>
#include <chrono>

namespace tauvta::dse {

size_t PrecisionResult::feasible() const {
  size_t n = 0;
  for (const Evaluation& e : evaluations) n += e.feasible ? 1 : 0;
  return n;
}

size_t PrecisionResult::performance_evaluations() const {
  size_t n = 0;
  for (const Evaluation& e : evaluations) n += e.budget >= 0 ? 1 : 0;
  return n;
}

size_t PrecisionResult::evaluations_to_reach(double target, double fraction) const {
  size_t n = 0;
  for (const Evaluation& e : evaluations) {
    if (e.budget < 0) continue;
    ++n;
    if (e.feasible && e.gops >= fraction * target) return n;
  }
  return 0;
}

PrecisionResult explore(const DesignSpace& space, Evaluator& evaluator, const ExploreOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  PrecisionResult r;
  r.precision = space.precision();
  r.device = space.device().name;
  r.raw_size = space.raw_size();
  std::vector<Design> pruned = space.pruned();
  r.pruned_size = pruned.size();
  std::unique_ptr<Strategy> strategy = make_strategy(o.strategy, space, std::move(pruned));
  ThreadRunner threads(o.threads);
  BatchRunner& runner = o.runner ? *o.runner : threads;

  ExploreProgress p;
  p.precision = r.precision;
  p.pruned = r.pruned_size;
  for (std::vector<Ask> asks = strategy->next(); !asks.empty(); asks = strategy->next()) {
    std::vector<Evaluation> out = runner.run(space, evaluator, asks, [&](size_t done) {
      if (!o.progress) return;
      ExploreProgress q = p;
      q.evaluated += done;
      o.progress(q);
    });
    strategy->report(out);
    for (size_t i = 0; i < out.size(); ++i) {
      Evaluation& e = out[i];
      ++p.evaluated;
      if (e.budget >= 0) ++p.timed;
      if (e.feasible) {
        ++p.feasible;
        if (e.gops > p.best_gops) p.best_gops = e.gops;
      }
      if (asks[i].record) r.evaluations.push_back(std::move(e));
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    p.designs_per_second = secs > 0 ? double(p.evaluated) / secs : 0;
    if (o.progress) o.progress(p);
  }
  double best = 0;
  for (size_t i = 0; i < r.evaluations.size(); ++i) {
    const Evaluation& e = r.evaluations[i];
    if (e.feasible && e.cycles > 0 && e.gops > best) {
      best = e.gops;
      r.best = i;
    }
  }
  r.strategy_summary = strategy->summary();
  // Importance over the designs the search timed (every kept evaluation when it timed fewer than
  // 5), at most 4000 of them drawn at random: enough for the models, and fitting the whole
  // screened space takes long.
  std::vector<const Evaluation*> data;
  for (const Evaluation& e : r.evaluations) {
    if (e.budget >= 0) data.push_back(&e);
  }
  if (data.size() < 5) {
    data.clear();
    for (const Evaluation& e : r.evaluations) data.push_back(&e);
  }
  if (data.size() > 4000) {
    std::mt19937_64 rng(o.strategy.seed);
    std::shuffle(data.begin(), data.end(), rng);
    data.resize(4000);
  }
  r.importance = analyze_importance(space, data, o.strategy.seed);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace tauvta::dse
