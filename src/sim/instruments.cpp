#include "sim/instruments.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/lanes.h"

namespace tauvta::sim {

void TraceBuffer::merge(const TraceBuffer& other) {
  for (const TraceEvent& e : other.events_) push(e);
  dropped_[0] += other.dropped_[0];
  dropped_[1] += other.dropped_[1];
}

IntHistogram::IntHistogram(int64_t lo_, int64_t hi_, int bins) : lo(lo_), hi(hi_) {
  if (bins < 1 || hi_ <= lo_) {
    throw Error(fmt::format("histogram: {} bins over [{}, {}) is not a range", bins, lo_, hi_));
  }
  counts.assign(size_t(bins), 0);
}

void IntHistogram::merge(const IntHistogram& o) {
  if (o.counts.size() != counts.size() || o.lo != lo || o.hi != hi) {
    throw InternalError("IntHistogram::merge: different bins");
  }
  for (size_t b = 0; b < counts.size(); ++b) counts[b] += o.counts[b];
  below += o.below;
  above += o.above;
}

int64_t IntHistogram::bin_lo(size_t b) const {
  // The smallest v with floor((v - lo) * bins / (hi - lo)) >= b.
  const int64_t span = hi - lo, n = int64_t(counts.size());
  return lo + (int64_t(b) * span + n - 1) / n;
}

double LayerObservation::stddev() const {
  if (elements == 0) return 0.0;
  const double m = mean();
  return std::sqrt(std::max(0.0, out_sumsq / double(elements) - m * m));
}

void LayerObservation::merge(const LayerObservation& o) {
  if (o.elements == 0) return;
  auto add = [](std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
    if (a.size() != b.size()) throw InternalError("LayerObservation::merge: different shapes");
    for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  };
  const bool first = elements == 0;
  add(overflow_map, o.overflow_map);
  add(channel_overflows, o.channel_overflows);
  add(channel_elements, o.channel_elements);
  add(zero_map, o.zero_map);
  if (!o.pre_cast.counts.empty()) pre_cast.merge(o.pre_cast);
  if (!o.output.counts.empty()) output.merge(o.output);
  out_min = first ? o.out_min : std::min(out_min, o.out_min);
  out_max = first ? o.out_max : std::max(out_max, o.out_max);
  pre_min = first ? o.pre_min : std::min(pre_min, o.pre_min);
  pre_max = first ? o.pre_max : std::max(pre_max, o.pre_max);
  elements += o.elements;
  overflows += o.overflows;
  zeros += o.zeros;
  out_sum += o.out_sum;
  out_sumsq += o.out_sumsq;
}

LayerInstruments::LayerInstruments(const hw::HwConfig& config, uint32_t layer, OutputMap map,
                                   InstrumentSelection what, const InstrumentSettings& settings,
                                   TraceBuffer* trace)
    : layer_(layer), map_(std::move(map)), what_(what), settings_(settings), trace_(trace) {
  const int bits = config.out_width();
  qmin_ = -(int64_t(1) << (bits - 1));
  qmax_ = (int64_t(1) << (bits - 1)) - 1;
  if (map_.lanes != config.batch() * config.block_out() ||
      map_.logical.size() != map_.elems * uint64_t(map_.lanes)) {
    throw InternalError("LayerInstruments: output map does not match the config's lanes");
  }
  plane_ = map_.h * map_.w;
  image_elems_ = map_.c * plane_;
  const size_t acc_lanes = size_t(config.acc_depth()) * size_t(config.batch() * config.block_out());
  pre_.assign(acc_lanes, 0);
  flags_.assign(acc_lanes, 0);
  cast_.assign(acc_lanes, 0);
  obs_.overflow_map.assign(size_t(image_elems_), 0);
  obs_.zero_map.assign(size_t(image_elems_), 0);
  obs_.channel_overflows.assign(size_t(map_.c), 0);
  obs_.channel_elements.assign(size_t(map_.c), 0);
  const int g = settings_.histogram_guard_bits;
  obs_.pre_cast = IntHistogram(qmin_ * (int64_t(1) << g), (qmax_ + 1) * (int64_t(1) << g), settings_.histogram_bins);
  obs_.output = IntHistogram(qmin_, qmax_ + 1, std::min<int64_t>(settings_.histogram_bins, qmax_ - qmin_ + 1));
}

void LayerInstruments::on_clip(const OnChipMemory& m, const LoopNest& l, hw::AluOp op, int64_t imm) {
  constexpr uint8_t kSeen = 1, kClipped = 2;
  const int lanes = m.acc_lanes();
  // A bound the activation sets (ReLU's MAX 0, ReLU6's MIN 6) is not an overflow: only a clip
  // at the output type's own limit saturates the cast.
  const bool is_min = op == hw::AluOp::kMin;
  const bool at_type_bound = is_min ? imm == qmax_ : imm == qmin_;
  // MIN with the type's minimum is how a max-pool starts its running maximum, not a cast.
  const bool starts_cast = is_min && imm != qmin_;
  auto visit = [&](const auto* acc) {
    for (uint32_t o = 0; o < l.iter_out; ++o) {
      for (uint32_t i = 0; i < l.iter_in; ++i) {
        for (uint32_t u = 0; u < l.n_uops; ++u) {
          const size_t d = size_t(l.dst(l.uops[u], o, i)) * size_t(lanes);
          for (int k = 0; k < lanes; ++k) {
            const size_t s = d + size_t(k);
            const int64_t v = int64_t(acc[s]);
            if (starts_cast) {
              pre_[s] = v;
              flags_[s] |= kSeen;  // a fused add's second cast keeps the first one's overflow
            }
            if (at_type_bound && (is_min ? v > imm : v < imm)) flags_[s] |= kClipped;
            cast_[s] = is_min ? std::min(v, imm) : std::max(v, imm);
          }
        }
      }
    }
  };
  if (m.acc_is_int32()) {
    visit(m.acc32.data());
  } else {
    visit(m.acc64.data());
  }
}

void LayerInstruments::record(int64_t t, int64_t pre, int64_t out, bool overflow) {
  const int64_t image = t / image_elems_, e = t % image_elems_;
  if (image >= valid_images_) return;
  const size_t ch = size_t((e / plane_) % map_.c);
  ++obs_.elements;
  ++obs_.channel_elements[ch];
  const bool first = obs_.elements == 1;
  obs_.out_min = first ? out : std::min(obs_.out_min, out);
  obs_.out_max = first ? out : std::max(obs_.out_max, out);
  obs_.pre_min = first ? pre : std::min(obs_.pre_min, pre);
  obs_.pre_max = first ? pre : std::max(obs_.pre_max, pre);
  obs_.out_sum += double(out);
  obs_.out_sumsq += double(out) * double(out);
  if (overflow) {
    ++obs_.overflows;
    ++obs_.overflow_map[size_t(e)];
    ++obs_.channel_overflows[ch];
  }
  if ((out < 0 ? -out : out) <= settings_.zero_threshold) {
    ++obs_.zeros;
    ++obs_.zero_map[size_t(e)];
  }
  if (what_.histogram) {
    obs_.pre_cast.add(pre);
    obs_.output.add(out);
  }
  if (trace_ != nullptr) {
    if (overflow && what_.overflow) trace_->push({layer_, TraceEvent::kOverflow, image_base_ + image, e, pre, out});
    if (what_.trace) trace_->push({layer_, TraceEvent::kValue, image_base_ + image, e, pre, out});
  }
}

void LayerInstruments::on_store(const OnChipMemory& m, const hw::Insn& insn) {
  const int lanes = m.acc_lanes();
  const int out_bits = m.config().out_width();
  auto visit = [&](const auto* acc, const auto* out) {
    for (uint32_t y = 0; y < insn.y_size; ++y) {
      for (uint32_t x = 0; x < insn.x_size; ++x) {
        const uint64_t e = uint64_t(insn.dram_base) + uint64_t(y) * insn.x_stride + x;
        if (e < map_.first_elem || e >= map_.first_elem + map_.elems) continue;
        const size_t sram = size_t(insn.sram_base + y * insn.x_size + x) * size_t(lanes);
        const int64_t* logical = map_.logical.data() + (e - map_.first_elem) * uint64_t(lanes);
        for (int k = 0; k < lanes; ++k) {
          const size_t s = sram + size_t(k);
          const uint8_t f = flags_[s];
          flags_[s] = 0;
          if (logical[k] < 0) continue;
          const int64_t a = int64_t(acc[s]), o = int64_t(out[s]);
          // The OUT lane holds the low bits of the accumulator unless a GEMM with reset wrote it
          // (then the accumulator was zeroed and the output is the value itself). The narrowing
          // changed the value iff the accumulator it came from does not fit the output width.
          const bool from_acc = hw::sign_extend(uint64_t(a), out_bits) == o;
          const bool narrowed = from_acc && a != o;
          // A lane some other operation changed after its clip (it no longer holds the clip's
          // result) was not cast there: its value is what the store narrows.
          const bool cast = (f & 1) && cast_[s] == a;
          record(logical[k], cast ? pre_[s] : from_acc ? a : o, o, (cast && (f & 2)) || narrowed);
        }
      }
    }
  };
  if (m.acc_is_int32()) {
    m.out_is_int8() ? visit(m.acc32.data(), m.out8.data()) : visit(m.acc32.data(), m.out16.data());
  } else {
    m.out_is_int8() ? visit(m.acc64.data(), m.out8.data()) : visit(m.acc64.data(), m.out16.data());
  }
}

}  // namespace tauvta::sim
