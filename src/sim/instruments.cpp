#include "sim/instruments.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

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
  const int64_t span = hi_ - lo_;
  if (span % bins == 0 && std::has_single_bit(uint64_t(span / bins))) shift = std::countr_zero(uint64_t(span / bins));
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
  return std::sqrt(std::max(0.0, double(out_sumsq) / double(elements) - m * m));
}

void LayerObservation::merge(const LayerObservation& o) {
  if (o.elements == 0) return;
  auto add = [](std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
    if (a.size() != b.size()) throw InternalError("LayerObservation::merge: different shapes");
    for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  };
  add(overflow_map, o.overflow_map);
  add(channel_overflows, o.channel_overflows);
  add(zero_map, o.zero_map);
  if (!o.pre_cast.counts.empty()) pre_cast.merge(o.pre_cast);
  if (!o.output.counts.empty()) output.merge(o.output);
  out_min = std::min(out_min, o.out_min);
  out_max = std::max(out_max, o.out_max);
  pre_min = std::min(pre_min, o.pre_min);
  pre_max = std::max(pre_max, o.pre_max);
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
  if (map_.batch != config.batch() || map_.block != config.block_out()) {
    throw InternalError("LayerInstruments: output map does not match the config's lanes");
  }
  plane_ = map_.h * map_.w;
  image_elems_ = map_.c * plane_;
  if (image_elems_ * map_.n > std::numeric_limits<int32_t>::max()) {
    throw Error(fmt::format("instruments: an output of {} elements is too large to observe", image_elems_ * map_.n));
  }
  const size_t acc_lanes = size_t(config.acc_depth()) * size_t(config.batch() * config.block_out());
  pre_.assign(acc_lanes, 0);
  flags_.assign(acc_lanes, 0);
  per_element_ = what_.histogram || what_.sparsity || what_.stats || what_.trace;
  for (int k = 0; k < map_.batch * map_.block; ++k) {
    lane_row_.push_back(k / map_.block);
    lane_channel_.push_back(k % map_.block);
  }
  obs_.overflow_map.assign(size_t(image_elems_), 0);
  obs_.zero_map.assign(size_t(image_elems_), 0);
  obs_.channel_overflows.assign(size_t(map_.c), 0);
  const int g = settings_.histogram_guard_bits;
  obs_.pre_cast = IntHistogram(qmin_ * (int64_t(1) << g), (qmax_ + 1) * (int64_t(1) << g), settings_.histogram_bins);
  obs_.output = IntHistogram(qmin_, qmax_ + 1, std::min<int64_t>(settings_.histogram_bins, qmax_ - qmin_ + 1));
}

void LayerInstruments::on_clip(const OnChipMemory& m, const LoopNest& l, hw::AluOp op, int64_t imm) {
  const bool is_min = op == hw::AluOp::kMin;
  // MIN with the type's minimum is how a max-pool starts its running maximum, not a cast; a MAX
  // whose bound the activation sets (ReLU's 0) cannot overflow: neither needs any work.
  if (is_min ? imm == qmin_ : imm != qmin_) return;
  // A bound the activation sets (ReLU6's MIN 6) is not an overflow: only a clip at the output
  // type's own limit saturates the cast.
  const uint8_t clipped = (is_min ? imm == qmax_ : true) ? kClipped : 0;
  const int lanes = m.acc_lanes();
  auto visit = [&](const auto* acc) {
    for (uint32_t o = 0; o < l.iter_out; ++o) {
      for (uint32_t i = 0; i < l.iter_in; ++i) {
        for (uint32_t u = 0; u < l.n_uops; ++u) {
          const size_t d = size_t(l.dst(l.uops[u], o, i)) * size_t(lanes);
          int64_t* pre = pre_.data() + d;
          uint8_t* flags = flags_.data() + d;
          const auto* a = acc + d;
          // Straight lines per lane so the compiler vectorizes them. A fused add's second cast
          // keeps the first one's overflow (flags only gain bits until the store).
          if (is_min) {
            for (int k = 0; k < lanes; ++k) {
              const int64_t v = int64_t(a[k]);
              pre[k] = v;
              flags[k] = uint8_t(flags[k] | kSeen | (v > imm ? clipped : 0));
            }
          } else {
            for (int k = 0; k < lanes; ++k) flags[k] = uint8_t(flags[k] | (int64_t(a[k]) < imm ? clipped : 0));
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

void LayerInstruments::record_row(const LaneTarget* t, const int64_t* pre, const int64_t* out, const uint8_t* overflow,
                                  int n) {
  // Only what the selection asks for: the overflow instrument alone (the tuner's) does the least.
  uint64_t count = 0, any_overflow = 0;
  for (int k = 0; k < n; ++k) {
    const bool take = t[k].e >= 0 && t[k].image < valid_images_;
    count += take;
    any_overflow |= take && overflow[k];
  }
  obs_.elements += count;
  if (count == 0) return;
  if (what_.stats || what_.histogram) {
    // Straight lines the compiler vectorizes.
    int64_t out_min = obs_.out_min, out_max = obs_.out_max, pre_min = obs_.pre_min, pre_max = obs_.pre_max;
    int64_t sum = 0, sumsq = 0;
    for (int k = 0; k < n; ++k) {
      const bool take = t[k].e >= 0 && t[k].image < valid_images_;
      const int64_t o = take ? out[k] : 0, p = take ? pre[k] : 0;
      out_min = take && o < out_min ? o : out_min;
      out_max = take && o > out_max ? o : out_max;
      pre_min = take && p < pre_min ? p : pre_min;
      pre_max = take && p > pre_max ? p : pre_max;
      sum += o;
      sumsq += o * o;
    }
    obs_.out_min = out_min;
    obs_.out_max = out_max;
    obs_.pre_min = pre_min;
    obs_.pre_max = pre_max;
    obs_.out_sum += sum;
    obs_.out_sumsq += sumsq;
  } else if (any_overflow) {
    for (int k = 0; k < n; ++k) {  // the largest value before the cast, for the tuner's report
      if (t[k].e >= 0 && t[k].image < valid_images_ && pre[k] > obs_.pre_max) obs_.pre_max = pre[k];
    }
  }
  if (what_.sparsity || what_.stats || what_.histogram) {
    const int64_t zt = settings_.zero_threshold;
    for (int k = 0; k < n; ++k) {
      if (t[k].e < 0 || t[k].image >= valid_images_) continue;
      const int64_t o = out[k];
      if ((o < 0 ? -o : o) <= zt) {
        ++obs_.zeros;
        ++obs_.zero_map[size_t(t[k].e)];
      }
      if (what_.histogram) {
        obs_.pre_cast.add(pre[k]);
        obs_.output.add(o);
      }
    }
  }
  if (!any_overflow && !(what_.trace && trace_ != nullptr)) return;
  for (int k = 0; k < n; ++k) {
    if (t[k].e < 0 || t[k].image >= valid_images_) continue;
    if (overflow[k]) {
      ++obs_.overflows;
      ++obs_.overflow_map[size_t(t[k].e)];
      ++obs_.channel_overflows[size_t(t[k].ch)];
    }
    if (trace_ == nullptr) continue;
    const TraceEvent ev{layer_, TraceEvent::kOverflow, image_base_ + t[k].image, t[k].e, pre[k], out[k]};
    if (overflow[k] && what_.overflow) trace_->push(ev);
    if (what_.trace) {
      TraceEvent v = ev;
      v.kind = TraceEvent::kValue;
      trace_->push(v);
    }
  }
}

void LayerInstruments::on_store(const OnChipMemory& m, const hw::Insn& insn) {
  const int lanes = m.acc_lanes();
  const int out_bits = m.config().out_width();
  std::vector<int64_t>& pre = row_pre_;
  std::vector<int64_t>& out = row_out_;
  std::vector<uint8_t>& ovf = row_overflow_;
  std::vector<LaneTarget>& tg = row_targets_;
  tg.resize(size_t(lanes));
  pre.resize(size_t(lanes));
  out.resize(size_t(lanes));
  ovf.resize(size_t(lanes));
  auto visit = [&](const auto* acc, const auto* outbuf) {
    for (uint32_t y = 0; y < insn.y_size; ++y) {
      for (uint32_t x = 0; x < insn.x_size; ++x) {
        const uint64_t e = uint64_t(insn.dram_base) + uint64_t(y) * insn.x_stride + x;
        if (e < map_.first_elem || e >= map_.first_elem + map_.elems) continue;
        const size_t sram = size_t(insn.sram_base + y * insn.x_size + x) * size_t(lanes);
        const auto* av = acc + sram;
        const auto* ov = outbuf + sram;
        uint8_t* fv = flags_.data() + sram;
        const int64_t* pv = pre_.data() + sram;
        uint8_t any = 0;
        for (int k = 0; k < lanes; ++k) {
          const uint8_t f = fv[k];
          fv[k] = 0;
          const int64_t a = int64_t(av[k]), o = int64_t(ov[k]);
          // The OUT lane holds the low bits of the accumulator unless a GEMM with reset wrote it
          // (then the accumulator was zeroed and the output is the value itself). The narrowing
          // changed the value iff the accumulator it came from does not fit the output width.
          const bool from_acc = hw::sign_extend(uint64_t(a), out_bits) == o;
          pre[size_t(k)] = (f & kSeen) ? pv[k] : from_acc ? a : o;
          out[size_t(k)] = o;
          ovf[size_t(k)] = uint8_t((f & kClipped) || (from_acc && a != o));
          any |= ovf[size_t(k)];
        }
        // The element's place in the blocked layout, then each lane's (batch row, channel).
        const int64_t rel = int64_t(e - map_.first_elem);
        const int64_t blocks = (map_.c + map_.block - 1) / map_.block;
        const int64_t cb = (rel / plane_) % blocks, nb = rel / (plane_ * blocks);
        if (!any && !per_element_) {
          // The overflow instrument alone and nothing overflowed: only count the real lanes.
          const int64_t rows = std::clamp<int64_t>(std::min<int64_t>(map_.n - nb * map_.batch, valid_images_ - nb * map_.batch), 0, map_.batch);
          const int64_t chans = std::clamp<int64_t>(map_.c - cb * map_.block, 0, map_.block);
          obs_.elements += uint64_t(rows * chans);
          continue;
        }
        const int64_t xx = rel % map_.w, yy = (rel / map_.w) % map_.h;
        for (int k = 0; k < lanes; ++k) {
          const int64_t n = nb * map_.batch + lane_row_[size_t(k)], ch = cb * map_.block + lane_channel_[size_t(k)];
          tg[size_t(k)] = n < map_.n && ch < map_.c ? LaneTarget{int32_t(ch * plane_ + yy * map_.w + xx), int32_t(ch), int32_t(n)}
                                                    : LaneTarget{};
        }
        record_row(tg.data(), pre.data(), out.data(), ovf.data(), lanes);
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
