// In-circuit-style instruments on the simulated accelerator (OTune's debug core): they watch the
// one place a value can overflow, the cast from the wide accumulator to the narrow output (the
// ALU's MIN/MAX at the output type's bounds, and the narrowing at STORE), for one layer's output
// tensor. A FunctionalCore calls the hooks only when a run carries instruments, so the fast paths
// pay one null-pointer test per ALU or STORE instruction when they are off.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "hw/hw_config.h"
#include "hw/insn.h"
#include "sim/compute_kernels.h"
#include "sim/onchip_memory.h"
#include "sim/value_counts.h"

namespace tauvta::sim {

// What to observe of a layer.
struct InstrumentSelection {
  bool overflow = false;   // overflow map, per-channel counts and rate
  bool histogram = false;  // distributions before and after the cast
  bool sparsity = false;   // zero map (|output| <= zero_threshold)
  bool stats = false;      // min, max, mean, std, sparsity of outputs
  bool trace = false;      // every output value into the trace buffer
  bool any() const { return overflow || histogram || sparsity || stats || trace; }
};

struct InstrumentSettings {
  int histogram_bins = 64;
  // The pre-cast histogram spans the output range widened by this many bits on each side, so
  // a value that overflowed by up to 2^guard_bits times the range still lands in a bin.
  int histogram_guard_bits = 2;
  int64_t zero_threshold = 0;
  uint64_t trace_capacity = 1 << 16;  // events the shared trace buffer holds
};

// Where a layer's output tensor lives: OUT elements [first_elem, first_elem + elems) of DRAM
// (STORE's dram_base unit) in the accelerator's blocked layout [N/BATCH][C/BLOCK_OUT][H][W] of
// BATCH x BLOCK_OUT lanes (docs/vta_isa.md section 1); lanes past N or C are padding.
struct OutputMap {
  uint64_t first_elem = 0, elems = 0;
  int batch = 1, block = 16;  // lanes = batch * block
  int64_t n = 1, c = 1, h = 1, w = 1;
};

// A bounded log of raw events shared by the enabled instruments of every layer of a run; once
// full it keeps counting what it dropped, per kind, so a reader knows what is missing.
struct TraceEvent {
  enum Kind : uint8_t { kOverflow = 0, kValue = 1 };
  uint32_t layer = 0;  // the caller's layer number
  Kind kind = kOverflow;
  int64_t image = 0;   // dataset image (image base of the run + batch position)
  int64_t index = 0;   // element within one image, C*H*W order
  int64_t pre = 0;     // value before the cast (output units)
  int64_t out = 0;     // value the layer wrote
};

class TraceBuffer {
 public:
  explicit TraceBuffer(uint64_t capacity = 1 << 16) : capacity_(capacity) {}
  void push(const TraceEvent& e) {
    if (events_.size() < capacity_) {
      events_.push_back(e);
    } else {
      ++dropped_[e.kind];
    }
  }
  void merge(const TraceBuffer& other);
  uint64_t capacity() const { return capacity_; }
  const std::vector<TraceEvent>& events() const { return events_; }
  uint64_t dropped(TraceEvent::Kind k) const { return dropped_[k]; }
  uint64_t dropped_total() const { return dropped_[0] + dropped_[1]; }

 private:
  uint64_t capacity_;
  std::vector<TraceEvent> events_;
  uint64_t dropped_[2] = {0, 0};
};

// Everything the instruments of one layer have accumulated (over any number of runs).
struct LayerObservation {
  uint64_t elements = 0;   // output elements observed (tensor elements x runs)
  uint64_t overflows = 0;  // elements whose cast saturated or whose narrowing changed the value
  std::vector<uint64_t> overflow_map;   // per element of one image (C*H*W): times it overflowed
  std::vector<uint64_t> channel_overflows;  // per output channel
  // Every channel is observed equally often: elements / channels.
  uint64_t channel_elements() const { return channel_overflows.empty() ? 0 : elements / channel_overflows.size(); }
  std::vector<uint64_t> zero_map;       // per element of one image: times |out| <= threshold
  uint64_t zeros = 0;
  IntHistogram pre_cast, output;        // before the cast (output units) and after it
  // Extremes (INT64_MAX / INT64_MIN until something is observed).
  int64_t out_min = INT64_MAX, out_max = INT64_MIN, pre_min = INT64_MAX, pre_max = INT64_MIN;
  int64_t out_sum = 0, out_sumsq = 0;  // exact: |out| < 2^15, far fewer than 2^33 elements

  double overflow_rate() const { return elements ? double(overflows) / double(elements) : 0.0; }
  double sparsity() const { return elements ? double(zeros) / double(elements) : 0.0; }
  double mean() const { return elements ? double(out_sum) / double(elements) : 0.0; }
  double stddev() const;
  void merge(const LayerObservation& o);
};

// The instruments of one layer. Owned by the caller; one run at a time (not thread-safe).
class LayerInstruments {
 public:
  LayerInstruments(const hw::HwConfig& config, uint32_t layer, OutputMap map,
                   InstrumentSelection what, const InstrumentSettings& settings,
                   TraceBuffer* trace);

  // The image number of batch position 0 in the next run, and how many batch positions hold
  // real images (a padded last batch's others are not recorded).
  void set_image_base(int64_t image, int64_t valid) {
    image_base_ = image;
    valid_images_ = valid;
  }

  // Hooks the functional core calls. on_clip runs before a MIN or MAX with an immediate: it
  // keeps the value entering the MIN (the pre-cast value) and notes a saturation at the output
  // type's bound. on_store runs before a STORE: it reads every stored lane of this layer's
  // output region, records it, and forgets the lane's flags.
  void on_clip(const OnChipMemory& m, const LoopNest& l, hw::AluOp op, int64_t imm);
  void on_store(const OnChipMemory& m, const hw::Insn& insn);

  // Where trace events go (a copy of a network's instruments rebinds its layers to its buffer).
  void set_trace(TraceBuffer* trace) { trace_ = trace; }
  const InstrumentSelection& selection() const { return what_; }
  const OutputMap& map() const { return map_; }
  // What was observed so far (the histograms' pending counts are added first).
  const LayerObservation& observation() const {
    flush();
    return obs_;
  }
  LayerObservation& observation() {
    flush();
    return obs_;
  }
  uint32_t layer() const { return layer_; }
  int64_t qmin() const { return qmin_; }
  int64_t qmax() const { return qmax_; }

 private:
  // What `n` real lanes add to the counts that do not depend on where a lane sits (elements,
  // per-value counts, stats, histograms). T is the accumulator's type.
  template <typename T>
  void count_values(const T* pre, const T* out, size_t n);
  template <typename T>
  void note_outside(const T* pre, size_t n);  // extremes of values outside the pre-cast counter's range
  // `n` consecutive real channels of one stored element row of image `image` (channel j is
  // element e0 + j * H*W of the image): zeros at the pending zero map's `zero_slot`, and
  // overflows (map, channel counts, trace events).
  template <typename T>
  void add_zeros(const T* out, int n, size_t zero_slot);
  template <typename T>
  void record_overflows(const T* pre, const T* out, const T* overflow, int n, int64_t e0, int64_t ch0, int64_t image);
  // The zero map of a STORE whose every element is in the output with real lanes, from its lanes
  // in SRAM order starting at `lanes0` (the output's `blocks` channel blocks).
  template <typename T>
  void add_zero_rows(const T* lanes0, const hw::Insn& insn, int64_t blocks);
  // Adds the pending counts (pre-cast bins, output values) to the observation.
  void flush() const;
  template <typename Acc>
  void on_clip_lanes(const Acc* acc, const LoopNest& l, bool is_min, int64_t imm, uint8_t clipped);
  template <typename Acc, typename Out, typename Lane>
  void on_store_rows(const Acc* acc, const Out* outbuf, const hw::Insn& insn);
  // The values before the cast and the outputs, counted as they come when the histogram is
  // selected. Outputs of up to 10 bits are counted exactly, one slot per value (the table stays in
  // the L1 cache): the output histogram, zeros, min, max, sum and sum of squares all follow from
  // the counts at flush, so a stored element costs one increment for all of them; the value
  // before the cast likewise, over the pre-cast histogram's range (values outside keep their
  // extremes apart: rare, an overflow by more than the guard bits). Wider outputs (W16's spread
  // over 64K values) are summed as they come and counted in the histograms' bins; so are the
  // stats and the sparsity count without the histogram (a vectorized pass costs less than an
  // increment per element).
  mutable BinCounter pre_counts_, out_counts_;
  bool pre_exact_ = false, out_exact_ = false;
  // Lanes whose output is the clamp of their value before the cast to [derived_lo_, derived_hi_]
  // (every lane of a layer whose cast is MIN then MAX, the usual case: checked per lane, in a
  // vectorized pass) count only that value, in bins as wide as the output counter's
  // (`derived_width_`: 1 when exact) that never straddle one of its bins; flush() adds each
  // bin to the output's counts at its clamped value. One increment per element instead of two.
  // Other lanes count both. The bounds are the last cast's immediates seen when a STORE comes;
  // pending counts are flushed before they change.
  mutable BinCounter derived_counts_;
  int64_t derived_width_ = 1;
  int64_t derived_lo_ = 0, derived_hi_ = 0;  // the clamp the pending derived counts were counted under
  int64_t clip_lo_ = 0, clip_hi_ = 0;        // the last MAX and cast MIN immediates
  mutable uint64_t pending_values_ = 0;  // values added since the last flush (flush before 2^32)
  mutable int64_t outside_min_ = INT64_MAX, outside_max_ = INT64_MIN;
  // The zero map while a run fills it, in the output's blocked order ([C/BLOCK][H*W][BLOCK]) so
  // that one stored row's channels are neighbours; flush() adds it to the C*H*W map.
  mutable std::vector<uint32_t> pending_zeros_;

  uint32_t layer_;
  OutputMap map_;
  InstrumentSelection what_;
  InstrumentSettings settings_;
  TraceBuffer* trace_;
  int64_t qmin_, qmax_;
  int64_t image_base_ = 0;
  int64_t valid_images_ = INT64_MAX;
  int64_t image_elems_;  // C*H*W
  int64_t plane_;        // H*W
  // Per accumulator lane: the value entering the last MIN and flags (kSeen: a MIN saw it,
  // kClipped: a clip at the type's bound changed it), both in the accumulator's own type so the
  // loops over lanes are one width and vectorize.
  template <typename Acc>
  struct LaneState {
    std::vector<Acc> pre, flags;
  };
  LaneState<int32_t> lanes32_;
  LaneState<int64_t> lanes64_;
  template <typename Acc>
  LaneState<Acc>& lane_state() {
    if constexpr (sizeof(Acc) == 4) {
      return lanes32_;
    } else {
      return lanes64_;
    }
  }
  // The stored lanes at the cast (value before it, output, overflow), as 32-bit values whenever
  // they fit (always with 32-bit accumulators; with 64-bit ones unless a value overflowed by
  // more than 2^31: the counting loops then run twice as many lanes per instruction).
  template <typename Lane>
  struct Rows {
    std::vector<Lane> pre, out, overflow;
    void reserve(size_t n) {
      if (pre.size() < n) {
        pre.resize(n);
        out.resize(n);
        overflow.resize(n);
      }
    }
  };
  Rows<int32_t> rows32_;
  Rows<int64_t> rows64_;
  template <typename Lane>
  Rows<Lane>& rows() {
    if constexpr (sizeof(Lane) == 4) {
      return rows32_;
    } else {
      return rows64_;
    }
  }
  bool per_element_ = false;  // some selected instrument looks at every element, not only overflows
  static constexpr uint8_t kSeen = 1, kClipped = 2;
  mutable LayerObservation obs_;
};

}  // namespace tauvta::sim
