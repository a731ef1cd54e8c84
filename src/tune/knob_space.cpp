#include "tune/knob_space.h"

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::tune {

namespace {

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i <= n; ++i) {
    if (n % i == 0) d.push_back(i);
  }
  return d;
}

}  // namespace

KnobSpace::KnobSpace(const hw::HwConfig& c, const lower::ConvWorkload& w, lower::LayerNeeds needs)
    : geometry_(lower::conv_geometry(c, w)), dense_(w.kind == lower::OpKind::kDense) {
  const lower::ConvGeometry& g = geometry_;
  // TVM's dense template has no row, column or h-thread knobs.
  knobs_.push_back({"tile_b", divisors(g.nb)});
  if (!dense_) {
    knobs_.push_back({"tile_h", divisors(g.oh)});
    knobs_.push_back({"tile_w", divisors(g.ow)});
  }
  knobs_.push_back({"tile_ci", divisors(g.cib)});
  knobs_.push_back({"tile_co", divisors(g.cob)});
  knobs_.push_back({"oc_nthread", {1, 2}});
  if (!dense_) knobs_.push_back({"h_nthread", {1, 2}});
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
    lower::Schedule s;
    size_t k = 0;
    auto split = [&](int64_t extent) {
      const int64_t inner = knobs_[k].values[co[k]];
      ++k;
      return lower::Split{extent / inner, inner};
    };
    s.tile_b = split(g.nb);
    if (!dense_) {
      s.tile_h = split(g.oh);
      s.tile_w = split(g.ow);
    }
    s.tile_ci = split(g.cib);
    s.tile_co = split(g.cob);
    s.oc_nthread = int(knobs_[k].values[co[k]]);
    ++k;
    if (!dense_) s.h_nthread = int(knobs_[k].values[co[k]]);
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
  const lower::ConvGeometry& g = geometry_;
  std::vector<uint32_t> co;
  auto choice = [&](const Knob& k, int64_t value) -> bool {
    for (size_t i = 0; i < k.values.size(); ++i) {
      if (k.values[i] == value) {
        co.push_back(uint32_t(i));
        return true;
      }
    }
    return false;
  };
  auto split_ok = [&](const Knob& k, const lower::Split& sp, int64_t extent) {
    if (sp.inner < 1 || (sp.outer != -1 && sp.outer * sp.inner != extent)) return false;
    return choice(k, sp.inner);
  };
  size_t k = 0;
  bool ok = split_ok(knobs_[k++], s.tile_b, g.nb);
  if (!dense_) {
    ok = ok && split_ok(knobs_[k++], s.tile_h, g.oh);
    ok = ok && split_ok(knobs_[k++], s.tile_w, g.ow);
  } else {
    ok = ok && s.tile_h.inner == 1 && s.tile_w.inner == 1 && s.h_nthread == 1;
  }
  ok = ok && split_ok(knobs_[k++], s.tile_ci, g.cib);
  ok = ok && split_ok(knobs_[k++], s.tile_co, g.cob);
  ok = ok && choice(knobs_[k++], s.oc_nthread);
  if (!dense_) ok = ok && choice(knobs_[k++], s.h_nthread);
  if (!ok) return std::nullopt;
  const int32_t p = grid_[grid_of(co)];
  if (p < 0) return std::nullopt;
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
