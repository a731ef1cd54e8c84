// The knob space of one task: every schedule TVM's VTA template can express for the workload
// (factor splits of each blocked axis, one or two virtual threads per kind), indexed as a grid
// of knob choices. Searchers see points (indices of the legal schedules); the grid gives their
// coordinates, one-knob neighbours for annealing, and AutoTVM's config index for the logs.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "hw/hw_config.h"
#include "lower/conv_plan.h"

namespace tauvta::tune {

using lower::Knob;

class KnobSpace {
 public:
  // Throws tauvta::Error when the workload cannot run on the config or the grid of knob choices
  // exceeds kMaxGrid (say which).
  KnobSpace(const hw::HwConfig& c, const lower::ConvWorkload& w, lower::LayerNeeds needs);

  static constexpr uint64_t kMaxGrid = uint64_t(1) << 24;

  size_t size() const { return schedules_.size(); }  // legal points
  uint64_t grid_size() const { return grid_.size(); }  // every combination, legal or not
  const std::vector<Knob>& knobs() const { return knobs_; }
  const lower::Schedule& schedule(size_t point) const { return schedules_[point]; }
  const lower::ConvTiling& tiling(size_t point) const { return tilings_[point]; }
  const lower::ConvGeometry& geometry() const { return geometry_; }
  // AutoTVM's config index of a point: knob choices in mixed radix, the first knob fastest.
  uint64_t config_index(size_t point) const { return grid_index_[point]; }
  std::vector<uint32_t> coords(size_t point) const;
  // The point of a schedule (outer factors -1 or consistent), nullopt when it is not legal here.
  std::optional<size_t> find(const lower::Schedule& s) const;
  // A legal point differing from `point` in exactly one knob, chosen at random (nullopt when
  // there is none).
  std::optional<size_t> random_neighbor(size_t point, std::mt19937_64& rng) const;

 private:
  uint64_t grid_of(std::span<const uint32_t> coords) const;
  std::vector<Knob> knobs_;
  std::vector<uint64_t> radix_;           // stride of each knob in the grid index
  std::vector<int32_t> grid_;             // grid index -> point, -1 when illegal
  std::vector<uint64_t> grid_index_;      // point -> grid index
  std::vector<lower::Schedule> schedules_;
  std::vector<lower::ConvTiling> tilings_;
  lower::ConvGeometry geometry_;
};

}  // namespace tauvta::tune
