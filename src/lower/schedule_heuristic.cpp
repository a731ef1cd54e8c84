// The default heuristic behind default_schedule (conv_plan.h): rank the whole legal knob space
// with the analytic estimate, then lower the best few and keep the one the timing model says is
// fastest (the best few of each kind of output-channel tile: conv_plan.h, ConvTiling::sgt).
// Results are cached per (config, workload) for the life of the process.
#include <algorithm>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "common/error.h"

#include "lower/conv_lowering.h"
#include "lower/conv_plan.h"

namespace tauvta::lower {

namespace {

constexpr size_t kSimulated = 12;

std::mutex cache_mutex;
std::map<std::tuple<std::string, std::string, ConvWorkload, LayerNeeds>, Schedule>& cache() {
  static std::map<std::tuple<std::string, std::string, ConvWorkload, LayerNeeds>, Schedule> m;
  return m;
}

}  // namespace

Schedule default_schedule(const hw::HwConfig& c, const ConvWorkload& w, LayerNeeds needs) {
  const auto key = std::make_tuple(c.name(), c.to_json().dump(), w, needs);
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    if (auto it = cache().find(key); it != cache().end()) return it->second;
  }
  const ConvGeometry g = conv_geometry(c, w);
  std::vector<Schedule> space = schedule_space(c, w, needs);
  if (space.empty()) {
    throw Error("no schedule of " + w.to_string() + " fits config " + c.name());
  }
  // Ranked apart: tiles within a supergroup and (grouped layers) tiles spanning supergroups, so
  // the spanning ones (TVM's group template) add candidates without displacing the others.
  std::vector<std::pair<double, size_t>> within, spanning;
  for (size_t i = 0; i < space.size(); ++i) {
    ConvTiling t;
    schedule_problem(c, w, g, space[i], needs, &t);
    (t.sgt == 1 ? within : spanning).emplace_back(estimate_cycles(c, w, t), i);
  }
  std::vector<size_t> candidates;
  for (auto [ranked, count] : {std::pair{&within, kSimulated}, std::pair{&spanning, kSimulated / 2}}) {
    const size_t k = std::min(count, ranked->size());
    std::partial_sort(ranked->begin(), ranked->begin() + ptrdiff_t(k), ranked->end());
    for (size_t i = 0; i < k; ++i) candidates.push_back((*ranked)[i].second);
  }
  ProgramTimer timer(c);
  Schedule best = space[candidates.front()];
  uint64_t best_cycles = UINT64_MAX;
  for (size_t i : candidates) {
    const Schedule& s = space[i];
    const uint64_t cycles = timer.time(lower_conv_workload(c, w, s)).cycles;
    if (cycles < best_cycles) {
      best_cycles = cycles;
      best = s;
    }
  }
  std::lock_guard<std::mutex> lock(cache_mutex);
  cache()[key] = best;
  return best;
}

}  // namespace tauvta::lower
