#include "tune/knob_space.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::tune {

KnobSpace::KnobSpace(const hw::HwConfig& c, const lower::ConvWorkload& w, lower::LayerNeeds needs)
    : geometry_(lower::conv_geometry(c, w)) {
  const lower::ConvGeometry& g = geometry_;
  knobs_ = lower::schedule_knobs(g, w.kind);
  uint64_t total = 1;
  for (const Knob& k : knobs_) {
    radix_.push_back(total);
    total *= k.values.size();
    if (total > kMaxGrid) {
      throw Error(fmt::format("the knob space of {} has more than {} combinations", w.to_string(), kMaxGrid));
    }
  }
  grid_.assign(total, -1);
  std::vector<uint32_t> co(knobs_.size(), 0);
  for (uint64_t gi = 0; gi < total; ++gi) {
    uint64_t rest = gi;
    for (size_t k = 0; k < knobs_.size(); ++k) {
      co[k] = uint32_t(rest % knobs_[k].values.size());
      rest /= knobs_[k].values.size();
    }
    const lower::Schedule s = lower::schedule_of_choice(g, knobs_, co);
    lower::ConvTiling t;
    if (!lower::schedule_problem(c, w, g, s, needs, &t).empty()) continue;
    grid_[gi] = int32_t(schedules_.size());
    grid_index_.push_back(gi);
    schedules_.push_back(s);
    tilings_.push_back(t);
  }
}

std::vector<uint32_t> KnobSpace::coords(size_t point) const {
  std::vector<uint32_t> co(knobs_.size());
  uint64_t rest = grid_index_[point];
  for (size_t k = 0; k < knobs_.size(); ++k) {
    co[k] = uint32_t(rest % knobs_[k].values.size());
    rest /= knobs_[k].values.size();
  }
  return co;
}

uint64_t KnobSpace::grid_of(std::span<const uint32_t> co) const {
  uint64_t gi = 0;
  for (size_t k = 0; k < co.size(); ++k) gi += co[k] * radix_[k];
  return gi;
}

std::optional<size_t> KnobSpace::find(const lower::Schedule& s) const {
  std::vector<uint32_t> co;
  for (const Knob& k : knobs_) {
    const auto at = std::find(k.values.begin(), k.values.end(), lower::knob_value(s, k.name));
    if (at == k.values.end()) return std::nullopt;
    co.push_back(uint32_t(at - k.values.begin()));
  }
  const int32_t p = grid_[grid_of(co)];
  if (p < 0) return std::nullopt;
  // The knobs a template lacks keep their defaults; outer factors are -1 or the derived count.
  const lower::Schedule& canon = schedules_[size_t(p)];
  const std::pair<const lower::Split&, const lower::Split&> splits[] = {
      {s.tile_b, canon.tile_b}, {s.tile_h, canon.tile_h}, {s.tile_w, canon.tile_w},
      {s.tile_ci, canon.tile_ci}, {s.tile_co, canon.tile_co}};
  for (const auto& [given, own] : splits) {
    if (given.inner != own.inner) return std::nullopt;
    if (given.outer != -1 && own.outer != -1 && given.outer != own.outer) return std::nullopt;
  }
  if (s.oc_nthread != canon.oc_nthread || s.h_nthread != canon.h_nthread) return std::nullopt;
  return size_t(p);
}

std::optional<size_t> KnobSpace::random_neighbor(size_t point, std::mt19937_64& rng) const {
  // A few random one-knob changes first (the common case: most neighbours are legal), then
  // every change in a random order until a legal one turns up.
  const uint64_t gi0 = grid_index_[point];
  auto choice = [&](size_t k) { return uint32_t((gi0 / radix_[k]) % knobs_[k].values.size()); };
  for (int attempt = 0; attempt < 8; ++attempt) {
    const size_t k = std::uniform_int_distribution<size_t>(0, knobs_.size() - 1)(rng);
    const uint32_t n = uint32_t(knobs_[k].values.size());
    if (n < 2) continue;
    const uint32_t cur = choice(k);
    uint32_t v = std::uniform_int_distribution<uint32_t>(0, n - 2)(rng);
    if (v >= cur) ++v;
    const uint64_t gi = gi0 - uint64_t(cur) * radix_[k] + uint64_t(v) * radix_[k];
    if (grid_[gi] >= 0) return size_t(grid_[gi]);
  }
  std::vector<std::pair<uint32_t, uint32_t>> moves;
  for (size_t k = 0; k < knobs_.size(); ++k) {
    for (uint32_t v = 0; v < knobs_[k].values.size(); ++v) {
      if (v != choice(k)) moves.emplace_back(uint32_t(k), v);
    }
  }
  for (size_t i = 0; i < moves.size(); ++i) {
    std::uniform_int_distribution<size_t> pick(i, moves.size() - 1);
    std::swap(moves[i], moves[pick(rng)]);
    const auto [k, v] = moves[i];
    const uint64_t gi = gi0 - uint64_t(choice(k)) * radix_[k] + uint64_t(v) * radix_[k];
    if (grid_[gi] >= 0) return size_t(grid_[gi]);
  }
  return std::nullopt;
}

}  // namespace tauvta::tune
