#include "sim/instruments.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "common/error.h"
#include "common/target_clones.h"
#include "hw/lanes.h"
#include "sim/instrument_lanes.h"

namespace tauvta::sim {

void TraceBuffer::merge(const TraceBuffer& other) {
  for (const TraceEvent& e : other.events_) push(e);
  dropped_[0] += other.dropped_[0];
  dropped_[1] += other.dropped_[1];
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
  auto init = [&](auto& st) {
    st.pre.assign(acc_lanes, 0);
    st.flags.assign(acc_lanes, 0);
  };
  config.acc_width() <= 32 ? init(lanes32_) : init(lanes64_);
  per_element_ = what_.histogram || what_.sparsity || what_.stats || what_.trace;
  obs_.overflow_map.assign(size_t(image_elems_), 0);
  obs_.zero_map.assign(size_t(image_elems_), 0);
  obs_.channel_overflows.assign(size_t(map_.c), 0);
  const int g = settings_.histogram_guard_bits;
  obs_.pre_cast = IntHistogram(qmin_ * (int64_t(1) << g), (qmax_ + 1) * (int64_t(1) << g), settings_.histogram_bins);
  obs_.output = IntHistogram(qmin_, qmax_ + 1, std::min<int64_t>(settings_.histogram_bins, qmax_ - qmin_ + 1));
  const int64_t pre_span = obs_.pre_cast.hi - obs_.pre_cast.lo;
  // Counting per value costs an increment per element; only the histogram needs the counts. The
  // stats and the sparsity count without it come from one vectorized pass (count_values).
  if (what_.histogram && pre_span <= (int64_t(1) << 14)) {
    pre_exact_ = true;
    pre_counts_ = BinCounter(obs_.pre_cast.lo, obs_.pre_cast.hi, size_t(pre_span));
  } else if (what_.histogram) {
    pre_counts_ = BinCounter(obs_.pre_cast);
  }
  if (what_.histogram && bits <= 10) {
    out_exact_ = true;
    out_counts_ = BinCounter(qmin_, qmax_ + 1, size_t(qmax_ - qmin_ + 1));
  } else if (what_.histogram) {
    out_counts_ = BinCounter(obs_.output);
  }
  // Derived output counts need pre-cast bins that nest in both histograms' bins.
  clip_lo_ = derived_lo_ = qmin_;
  clip_hi_ = derived_hi_ = qmax_;
  if (pre_exact_ && out_exact_) {
    derived_counts_ = BinCounter(obs_.pre_cast.lo, obs_.pre_cast.hi, size_t(pre_span));
  } else if (what_.histogram && !out_exact_) {
    const int64_t out_span = qmax_ - qmin_ + 1, out_bins = int64_t(obs_.output.counts.size());
    const int64_t pre_bins = int64_t(obs_.pre_cast.counts.size());
    const int64_t w = out_span / out_bins;
    if (out_span % out_bins == 0 && pre_span % pre_bins == 0 && (pre_span / pre_bins) % w == 0 &&
        (qmin_ - obs_.pre_cast.lo) % w == 0 && pre_span / w <= (int64_t(1) << 14)) {
      derived_width_ = w;
      derived_counts_ = BinCounter(obs_.pre_cast.lo, obs_.pre_cast.hi, size_t(pre_span / w));
    }
  }
  if (what_.sparsity) pending_zeros_.assign(size_t((map_.c + map_.block - 1) / map_.block * plane_ * map_.block), 0);
}

void LayerInstruments::flush() const {
  if (pending_values_ == 0) return;  // nothing recorded since the last flush
  pending_values_ = 0;
  if (!pending_zeros_.empty()) {
    const int64_t blocks = (map_.c + map_.block - 1) / map_.block;
    for (int64_t cb = 0; cb < blocks; ++cb) {
      const int64_t chans = std::min<int64_t>(map_.block, map_.c - cb * map_.block);
      for (int64_t xy = 0; xy < plane_; ++xy) {
        uint32_t* z = pending_zeros_.data() + (cb * plane_ + xy) * map_.block;
        for (int64_t j = 0; j < chans; ++j) obs_.zero_map[size_t((cb * map_.block + j) * plane_ + xy)] += z[j];
        std::fill(z, z + map_.block, 0u);
      }
    }
  }
  const int64_t zt = settings_.zero_threshold;
  auto add_output = [&](int64_t v, uint64_t n) {  // n outputs of value v (exact) or in v's bin
    if (out_exact_) {
      obs_.out_min = std::min(obs_.out_min, v);
      obs_.out_max = std::max(obs_.out_max, v);
      obs_.out_sum += v * int64_t(n);
      obs_.out_sumsq += v * v * int64_t(n);
      if ((v < 0 ? -v : v) <= zt) obs_.zeros += n;
    }
    if (what_.histogram) obs_.output.add(v, n);
  };
  IntHistogram& h = obs_.pre_cast;
  // n values before the cast in the pre-cast counter's slot (0: below its range, bins + 1:
  // above, whose extremes were kept apart) of the given bin width.
  auto add_pre = [&](size_t slot, size_t bins, int64_t width, uint64_t n) {
    if (slot == 0 || slot == bins + 1) {
      if (what_.histogram) (slot == 0 ? h.below : h.above) += n;
      return;
    }
    const int64_t v = h.lo + int64_t(slot - 1) * width;
    if (pre_exact_) {
      obs_.pre_min = std::min(obs_.pre_min, v);
      obs_.pre_max = std::max(obs_.pre_max, v);
    }
    if (what_.histogram) h.add(v, n);
  };
  if (out_exact_) {
    out_counts_.drain([&](size_t slot, uint64_t n) { add_output(qmin_ + int64_t(slot) - 1, n); });  // slot 1 + (v - qmin)
  } else if (!out_counts_.empty()) {
    out_counts_.flush(obs_.output);
  }
  if (!derived_counts_.empty()) {
    // A bin's values clamp into one output bin: the one of its first value, clamped (below the
    // range is below every bound, above it above every bound).
    const size_t bins = derived_counts_.bins();
    const int64_t w = derived_width_;
    derived_counts_.drain([&](size_t slot, uint64_t n) {
      add_pre(slot, bins, w, n);
      const int64_t v = slot == 0 ? derived_lo_ : slot == bins + 1 ? derived_hi_ : h.lo + int64_t(slot - 1) * w;
      add_output(std::max(derived_lo_, std::min(v, derived_hi_)), n);
    });
  }
  if (pre_exact_) {
    pre_counts_.drain([&](size_t slot, uint64_t n) { add_pre(slot, pre_counts_.bins(), 1, n); });
    obs_.pre_min = std::min(obs_.pre_min, outside_min_);
    obs_.pre_max = std::max(obs_.pre_max, outside_max_);
    outside_min_ = INT64_MAX;
    outside_max_ = INT64_MIN;
  } else if (!pre_counts_.empty()) {
    pre_counts_.flush(obs_.pre_cast);
  }
}

template <typename Acc>
TAUVTA_TARGET_CLONES("avx2", "default") void LayerInstruments::on_clip_lanes(const Acc* acc, const LoopNest& l, bool is_min, int64_t imm, uint8_t clipped) {
  const int lanes = map_.batch * map_.block;
  LaneState<Acc>& st = lane_state<Acc>();
  // The immediate is sign-extended to the accumulator's width, so it is a value of its type.
  const Acc bound = Acc(imm), seen = Acc(kSeen), clip = Acc(clipped);
  for (uint32_t o = 0; o < l.iter_out; ++o) {
    for (uint32_t i = 0; i < l.iter_in; ++i) {
      for (uint32_t u = 0; u < l.n_uops; ++u) {
        const size_t d = size_t(l.dst(l.uops[u], o, i)) * size_t(lanes);
        Acc* pre = st.pre.data() + d;
        Acc* flags = st.flags.data() + d;
        const Acc* a = acc + d;
        // Straight lines per lane so the compiler vectorizes them. A fused add's second cast
        // keeps the first one's overflow (flags only gain bits until the store).
        if (is_min) {
          for (int k = 0; k < lanes; ++k) {
            pre[k] = a[k];
            flags[k] |= seen | (a[k] > bound ? clip : Acc(0));
          }
        } else {
          for (int k = 0; k < lanes; ++k) flags[k] |= a[k] < bound ? clip : Acc(0);
        }
      }
    }
  }
}

void LayerInstruments::on_clip(const OnChipMemory& m, const LoopNest& l, hw::AluOp op, int64_t imm) {
  const bool is_min = op == hw::AluOp::kMin;
  if (is_min ? imm != qmin_ : true) (is_min ? clip_hi_ : clip_lo_) = imm;  // the clamp a STORE will likely show
  // MIN with the type's minimum is how a max-pool starts its running maximum, not a cast; a MAX
  // whose bound the activation sets (ReLU's 0) cannot overflow: neither needs any work.
  if (is_min ? imm == qmin_ : imm != qmin_) return;
  // A bound the activation sets (ReLU6's MIN 6) is not an overflow: only a clip at the output
  // type's own limit saturates the cast.
  const uint8_t clipped = (is_min ? imm == qmax_ : true) ? kClipped : 0;
  if (m.acc_is_int32()) {
    on_clip_lanes(m.acc32.data(), l, is_min, imm, clipped);
  } else {
    on_clip_lanes(m.acc64.data(), l, is_min, imm, clipped);
  }
}

template <typename T>
void LayerInstruments::note_outside(const T* pre, size_t n) {
  const int64_t lo = obs_.pre_cast.lo, hi = obs_.pre_cast.hi;
  for (size_t k = 0; k < n; ++k) {
    const int64_t v = int64_t(pre[k]);
    if (v < lo || v >= hi) {
      outside_min_ = std::min(outside_min_, v);
      outside_max_ = std::max(outside_max_, v);
    }
  }
}

template <typename T>
void LayerInstruments::count_values(const T* pre, const T* out, size_t n) {
  // Only what the selection asks for. Every lane here is real and where it sits does not matter,
  // so the loops are straight lines over however many lanes the caller has.
  obs_.elements += uint64_t(n);
  pending_values_ += uint64_t(n);  // an upper bound on every pending 32-bit counter
  // Sums of outputs too wide to count per value, and extremes of values before the cast too
  // spread to count per value, come from one vectorized pass, which also checks the clamp.
  const bool out_sums = !out_exact_ && (what_.stats || what_.histogram || what_.sparsity);
  const bool pre_extremes = !pre_exact_ && (what_.stats || what_.histogram);
  bool derived = false;
  int64_t pre_min = 0, pre_max = 0;
  if (out_sums || pre_extremes) {
    const LaneSummary<T> s = summarize(pre, out, n, derived_lo_, derived_hi_, std::min(settings_.zero_threshold, qmax_ + 1));
    if (out_sums) {
      obs_.out_min = std::min(obs_.out_min, int64_t(s.out_min));
      obs_.out_max = std::max(obs_.out_max, int64_t(s.out_max));
      obs_.out_sum += s.sum;
      obs_.out_sumsq += s.sumsq;
      obs_.zeros += uint64_t(s.zeros);
    }
    if (pre_extremes) {
      obs_.pre_min = std::min(obs_.pre_min, int64_t(s.pre_min));
      obs_.pre_max = std::max(obs_.pre_max, int64_t(s.pre_max));
    }
    derived = !derived_counts_.empty() && s.clamped;
    pre_min = s.pre_min;
    pre_max = s.pre_max;
  } else if (!derived_counts_.empty()) {
    const ClampCheck<T> c = check_clamp(pre, out, n, derived_lo_, derived_hi_);
    derived = c.clamped;
    pre_min = c.pre_min;
    pre_max = c.pre_max;
  }
  if (derived) {
    // The pass above found the extremes, so the counting loop need not look for values
    // outside the counter's range.
    derived_counts_.count_all(pre, n);
    if (pre_exact_ && (pre_min < obs_.pre_cast.lo || pre_max >= obs_.pre_cast.hi)) note_outside(pre, n);
    return;
  }
  if (!out_counts_.empty()) out_counts_.add_all(out, n);  // exact, or the histogram's bins
  if (pre_exact_) {
    if (pre_counts_.add_all(pre, n)) note_outside(pre, n);
  } else if (what_.histogram) {
    pre_counts_.add_all(pre, n);
  }
}

template <typename T>
TAUVTA_TARGET_CLONES("avx2", "default") void LayerInstruments::add_zeros(const T* out, int n, size_t zero_slot) {
  // |out| <= threshold as two compares in the lanes' own type (the threshold, clamped to just past the
  // output range, fits their type), so the loop vectorizes.
  const T zt = T(std::min(settings_.zero_threshold, qmax_ + 1));
  uint32_t* __restrict zmap = pending_zeros_.data() + zero_slot;
  for (int k = 0; k < n; ++k) zmap[k] += uint32_t((out[k] >= T(-zt)) & (out[k] <= zt));
}

template <typename T>
void LayerInstruments::record_overflows(const T* pre, const T* out, const T* overflow, int n, int64_t e0, int64_t ch0,
                                        int64_t image) {
  T any_overflow = 0;
  for (int k = 0; k < n; ++k) any_overflow |= overflow[k];
  if (any_overflow && !(what_.stats || what_.histogram)) {
    for (int k = 0; k < n; ++k) obs_.pre_max = std::max(obs_.pre_max, int64_t(pre[k]));  // for the tuner's report
  }
  if (!any_overflow && !(what_.trace && trace_ != nullptr)) return;
  for (int k = 0; k < n; ++k) {
    const int64_t e = e0 + int64_t(k) * plane_;
    if (overflow[k]) {
      ++obs_.overflows;
      ++obs_.overflow_map[size_t(e)];
      ++obs_.channel_overflows[size_t(ch0 + k)];
    }
    if (trace_ == nullptr) continue;
    const TraceEvent ev{layer_, TraceEvent::kOverflow, image_base_ + image, e, pre[k], out[k]};
    if (overflow[k] && what_.overflow) trace_->push(ev);
    if (what_.trace) {
      TraceEvent v = ev;
      v.kind = TraceEvent::kValue;
      trace_->push(v);
    }
  }
}

namespace {

// An element's place in the blocked output layout [N/BATCH][C/BLOCK][H*W] (xy in the plane,
// channel block, batch block), found once by dividing and then stepped without dividing.
struct BlockedPlace {
  int64_t plane, blocks, xy, cb, nb;
  BlockedPlace(int64_t rel, int64_t plane_, int64_t blocks_)
      : plane(plane_), blocks(blocks_), xy(rel % plane_), cb((rel / plane_) % blocks_), nb(rel / (plane_ * blocks_)) {}
  // Moves `run` elements on, at most to the end of the plane.
  void advance(int64_t run = 1) {
    xy += run;
    if (xy == plane) {
      xy = 0;
      if (++cb == blocks) {
        cb = 0;
        ++nb;
      }
    }
  }
};

}  // namespace

template <typename T>
void LayerInstruments::add_zero_rows(const T* lanes0, const hw::Insn& insn, int64_t blocks) {
  const size_t lanes = size_t(map_.batch * map_.block);
  for (uint32_t y = 0; y < insn.y_size; ++y) {
    BlockedPlace at(int64_t(uint64_t(insn.dram_base) + uint64_t(y) * insn.x_stride - map_.first_elem), plane_, blocks);
    // Consecutive elements of one channel block have consecutive slots in the pending map, so
    // with one batch row each run up to the end of the plane is one call.
    for (uint32_t x = 0; x < insn.x_size;) {
      const uint32_t run = uint32_t(std::min<int64_t>(insn.x_size - x, plane_ - at.xy));
      const T* row = lanes0 + (size_t(y) * insn.x_size + x) * lanes;
      const size_t slot = size_t((at.cb * plane_ + at.xy) * map_.block);
      if (map_.batch == 1) {
        add_zeros(row, int(run) * map_.block, slot);
      } else {
        for (uint32_t e = 0; e < run; ++e) {
          for (int r = 0; r < map_.batch; ++r) {
            add_zeros(row + e * lanes + size_t(r * map_.block), map_.block, slot + size_t(e) * size_t(map_.block));
          }
        }
      }
      x += run;
      at.advance(run);
    }
  }
}

template <typename Acc, typename Out, typename Lane>
void LayerInstruments::on_store_rows(const Acc* acc, const Out* outbuf, const hw::Insn& insn) {
  const int lanes = map_.batch * map_.block;
  const int out_bits = int(std::countr_zero(uint64_t(qmax_ + 1))) + 1;
  const int64_t blocks = (map_.c + map_.block - 1) / map_.block;
  const Acc out_mask = Acc((uint64_t(1) << out_bits) - 1);
  LaneState<Acc>& st = lane_state<Acc>();
  Rows<Lane>& rw = rows<Lane>();
  const uint64_t first = map_.first_elem, end = map_.first_elem + map_.elems;
  if (insn.y_size == 0 || insn.x_size == 0) return;
  // The common case in one pass: every element of the STORE is in this layer's output and every
  // lane is real (channels a multiple of the block, every batch row a valid image), no trace:
  // the cast and the counts run over the STORE's lanes at once (its SRAM rows are consecutive).
  const uint64_t e_first = insn.dram_base, e_last = uint64_t(insn.dram_base) + uint64_t(insn.y_size - 1) * insn.x_stride + insn.x_size - 1;
  if (!what_.trace && map_.c % map_.block == 0 && e_first >= first && e_last < end &&
      (int64_t(e_last - first) / (plane_ * blocks) + 1) * map_.batch <= std::min<int64_t>(map_.n, valid_images_)) {
    const size_t rows_total = size_t(insn.y_size) * insn.x_size, total = rows_total * size_t(lanes);
    const size_t s0 = size_t(insn.sram_base) * size_t(lanes);
    // The overflow instrument alone reads the lanes first and pays for the cast's writes only
    // when something overflowed (the flags are cleared either way, as cast_lanes would).
    if (!per_element_ && !any_overflow(acc + s0, outbuf + s0, st.flags.data() + s0, total, out_mask)) {
      obs_.elements += uint64_t(total);
      return;
    }
    rw.reserve(total);
    const Lane any = cast_lanes<Acc, Out, Lane>(acc + s0, outbuf + s0, st.flags.data() + s0, st.pre.data() + s0, rw.pre.data(),
                                                rw.out.data(), rw.overflow.data(), int(total), out_mask);
    if (per_element_) {
      count_values(rw.pre.data(), rw.out.data(), total);
    } else {
      obs_.elements += uint64_t(total);  // the overflow instrument alone: only overflows need a place
    }
    if (!any) {
      if (what_.sparsity) add_zero_rows(rw.out.data(), insn, blocks);
      return;
    }
    for (uint32_t y = 0; y < insn.y_size; ++y) {
      BlockedPlace at(int64_t(uint64_t(insn.dram_base) + uint64_t(y) * insn.x_stride - first), plane_, blocks);
      for (uint32_t x = 0; x < insn.x_size; ++x, at.advance()) {
        const size_t k0 = (size_t(y) * insn.x_size + x) * size_t(lanes);
        for (int r = 0; r < map_.batch; ++r) {
          const size_t k = k0 + size_t(r * map_.block);
          if (what_.sparsity) add_zeros(rw.out.data() + k, map_.block, size_t((at.cb * plane_ + at.xy) * map_.block));
          if (any) {
            record_overflows(rw.pre.data() + k, rw.out.data() + k, rw.overflow.data() + k, map_.block,
                             at.cb * map_.block * plane_ + at.xy, at.cb * map_.block, at.nb * map_.batch + r);
          }
        }
      }
    }
    return;
  }
  // Element by element: the rows' real lanes, the elements in the output, and their positions.
  rw.reserve(size_t(lanes));
  // Raw pointers in registers: the lane stores could otherwise alias the vectors' pointers.
  Lane* pr = rw.pre.data();
  Lane* ou = rw.out.data();
  Lane* ov_flags = rw.overflow.data();
  static_assert(kSeen == 1 && kClipped == 2, "cast_lanes reads the flags as bits 0 and 1");
  for (uint32_t y = 0; y < insn.y_size; ++y) {
    // This row's elements in the layer's output: x in [x_lo, x_hi), consecutive in DRAM.
    const uint64_t row = uint64_t(insn.dram_base) + uint64_t(y) * insn.x_stride;
    const uint64_t x_lo = row >= first ? 0 : first - row;
    const uint64_t x_hi = row >= end ? 0 : std::min<uint64_t>(insn.x_size, end - row);
    if (x_lo >= x_hi) continue;
    // The first element's place in the blocked layout [N/BATCH][C/BLOCK][H*W]; the others step
    // through it one element at a time, without dividing.
    BlockedPlace at(int64_t(row + x_lo - first), plane_, blocks);
    for (uint64_t x = x_lo; x < x_hi; ++x, at.advance()) {
      const size_t sram = size_t(insn.sram_base + y * insn.x_size + uint32_t(x)) * size_t(lanes);
      const Acc* av = acc + sram;
      const Out* ov = outbuf + sram;
      Acc* fv = st.flags.data() + sram;
      const Acc* pv = st.pre.data() + sram;
      const Lane any = cast_lanes<Acc, Out, Lane>(av, ov, fv, pv, pr, ou, ov_flags, lanes, out_mask);
      // Its real lanes are the first `chans` channels of the first `rows` batch rows (the others
      // pad N or C, or are images past the valid ones).
      const int64_t rows = std::clamp<int64_t>(
          std::min<int64_t>(map_.n - at.nb * map_.batch, valid_images_ - at.nb * map_.batch), 0, map_.batch);
      const int64_t chans = std::clamp<int64_t>(map_.c - at.cb * map_.block, 0, map_.block);
      if (any || per_element_) {
        const int64_t e0 = at.cb * map_.block * plane_ + at.xy;
        for (int64_t r = 0; r < rows; ++r) {
          const size_t k0 = size_t(r * map_.block);
          count_values(pr + k0, ou + k0, size_t(chans));
          if (what_.sparsity) add_zeros(ou + k0, int(chans), size_t((at.cb * plane_ + at.xy) * map_.block));
          record_overflows(pr + k0, ou + k0, ov_flags + k0, int(chans), e0, at.cb * map_.block,
                           at.nb * map_.batch + r);
        }
      } else {  // the overflow instrument alone and nothing overflowed
        obs_.elements += uint64_t(rows * chans);
      }
    }
  }
}

void LayerInstruments::on_store(const OnChipMemory& m, const hw::Insn& insn) {
  if (pending_values_ >= (uint64_t(1) << 31)) flush();  // no 32-bit counter can wrap
  if ((clip_lo_ != derived_lo_ || clip_hi_ != derived_hi_) && qmin_ <= clip_lo_ && clip_lo_ <= clip_hi_ &&
      clip_hi_ <= qmax_) {
    flush();  // the pending derived counts were clamped to the old bounds
    derived_lo_ = clip_lo_;
    derived_hi_ = clip_hi_;
  }
  if (m.acc_is_int32()) {
    m.out_is_int8() ? on_store_rows<int32_t, int8_t, int32_t>(m.acc32.data(), m.out8.data(), insn)
                    : on_store_rows<int32_t, int16_t, int32_t>(m.acc32.data(), m.out16.data(), insn);
    return;
  }
  // 64-bit accumulators: the STORE's SRAM lanes are consecutive; count them as 32-bit values
  // unless one does not fit.
  const size_t lanes = size_t(map_.batch * map_.block), n = size_t(insn.y_size) * insn.x_size * lanes;
  const size_t s0 = size_t(insn.sram_base) * lanes;
  if (n <= m.acc64.size() - std::min(s0, m.acc64.size()) && fit_32_bits(m.acc64.data() + s0, lanes64_.pre.data() + s0, n)) {
    m.out_is_int8() ? on_store_rows<int64_t, int8_t, int32_t>(m.acc64.data(), m.out8.data(), insn)
                    : on_store_rows<int64_t, int16_t, int32_t>(m.acc64.data(), m.out16.data(), insn);
  } else {
    m.out_is_int8() ? on_store_rows<int64_t, int8_t, int64_t>(m.acc64.data(), m.out8.data(), insn)
                    : on_store_rows<int64_t, int16_t, int64_t>(m.acc64.data(), m.out16.data(), insn);
  }
}

}  // namespace tauvta::sim
