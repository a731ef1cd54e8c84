#include "sim/instruments.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>

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

BinCounter::BinCounter(int64_t lo, int64_t hi, size_t bins) : lo_(lo), hi_(hi), bins_(bins), stride_(bins + 2) {
  const uint64_t span = uint64_t(hi - lo);
  if (span % bins == 0 && std::has_single_bit(span / bins)) shift_ = std::countr_zero(span / bins);
  counts_.assign(4 * stride_, 0);
}

void BinCounter::flush(IntHistogram& h) {
  drain([&](size_t slot, uint64_t n) { (slot == 0 ? h.below : slot == bins_ + 1 ? h.above : h.counts[slot - 1]) += n; });
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
  const size_t row = size_t(config.batch() * config.block_out());
  auto init = [&](auto& st) {
    st.pre.assign(acc_lanes, 0);
    st.flags.assign(acc_lanes, 0);
    st.row_pre.assign(row, 0);
    st.row_out.assign(row, 0);
    st.row_overflow.assign(row, 0);
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
  if ((what_.histogram || what_.stats) && pre_span <= (int64_t(1) << 14)) {
    pre_exact_ = true;
    pre_counts_ = BinCounter(obs_.pre_cast.lo, obs_.pre_cast.hi, size_t(pre_span));
  } else if (what_.histogram) {
    pre_counts_ = BinCounter(obs_.pre_cast);
  }
  if ((what_.histogram || what_.sparsity || what_.stats) && bits <= 10) {
    out_exact_ = true;
    out_counts_ = BinCounter(qmin_, qmax_ + 1, size_t(qmax_ - qmin_ + 1));
  } else if (what_.histogram) {
    out_counts_ = BinCounter(obs_.output);
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
  if (out_exact_) {
    const int64_t zt = settings_.zero_threshold;
    out_counts_.drain([&](size_t slot, uint64_t n) {  // every output is in range: slot 1 + (v - qmin)
      const int64_t v = qmin_ + int64_t(slot) - 1;
      obs_.out_min = std::min(obs_.out_min, v);
      obs_.out_max = std::max(obs_.out_max, v);
      obs_.out_sum += v * int64_t(n);
      obs_.out_sumsq += v * v * int64_t(n);
      if ((v < 0 ? -v : v) <= zt) obs_.zeros += n;
      if (what_.histogram) obs_.output.add(v, n);
    });
  } else if (!out_counts_.empty()) {
    out_counts_.flush(obs_.output);
  }
  if (pre_exact_) {
    IntHistogram& h = obs_.pre_cast;
    const size_t above = size_t(h.hi - h.lo) + 1;
    pre_counts_.drain([&](size_t slot, uint64_t n) {
      if (slot == 0 || slot == above) {  // their extremes were kept apart
        if (what_.histogram) (slot == 0 ? h.below : h.above) += n;
        return;
      }
      const int64_t v = h.lo + int64_t(slot) - 1;
      obs_.pre_min = std::min(obs_.pre_min, v);
      obs_.pre_max = std::max(obs_.pre_max, v);
      if (what_.histogram) h.add(v, n);
    });
    obs_.pre_min = std::min(obs_.pre_min, outside_min_);
    obs_.pre_max = std::max(obs_.pre_max, outside_max_);
    outside_min_ = INT64_MAX;
    outside_max_ = INT64_MIN;
  } else if (!pre_counts_.empty()) {
    pre_counts_.flush(obs_.pre_cast);
  }
}

template <typename Acc>
void LayerInstruments::on_clip_lanes(const Acc* acc, const LoopNest& l, bool is_min, int64_t imm, uint8_t clipped) {
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
void LayerInstruments::count_values(const T* pre, const T* out, size_t n) {
  // Only what the selection asks for. Every lane here is real and where it sits does not matter,
  // so the loops are straight lines over however many lanes the caller has.
  obs_.elements += uint64_t(n);
  pending_values_ += uint64_t(n);  // an upper bound on every pending 32-bit counter
  if (out_exact_) {
    out_counts_.add_all(out, n);
  } else if (what_.stats || what_.histogram || what_.sparsity) {
    int64_t out_min = obs_.out_min, out_max = obs_.out_max, sum = 0, sumsq = 0;
    uint64_t zeros = 0;
    const int64_t zt = settings_.zero_threshold;
    for (size_t k = 0; k < n; ++k) {
      const int64_t o = int64_t(out[k]);
      out_min = std::min(out_min, o);
      out_max = std::max(out_max, o);
      sum += o;
      sumsq += o * o;
      zeros += uint64_t((o < 0 ? -o : o) <= zt);
    }
    obs_.out_min = out_min;
    obs_.out_max = out_max;
    obs_.out_sum += sum;
    obs_.out_sumsq += sumsq;
    obs_.zeros += zeros;
    if (what_.histogram) out_counts_.add_all(out, n);
  }
  if (pre_exact_) {
    if (pre_counts_.add_all(pre, n)) {  // outside the range: keep the extremes themselves
      const int64_t lo = obs_.pre_cast.lo, hi = obs_.pre_cast.hi;
      for (size_t k = 0; k < n; ++k) {
        const int64_t v = int64_t(pre[k]);
        if (v < lo || v >= hi) {
          outside_min_ = std::min(outside_min_, v);
          outside_max_ = std::max(outside_max_, v);
        }
      }
    }
  } else if (what_.stats || what_.histogram) {
    int64_t pre_min = obs_.pre_min, pre_max = obs_.pre_max;
    for (size_t k = 0; k < n; ++k) {
      pre_min = std::min(pre_min, int64_t(pre[k]));
      pre_max = std::max(pre_max, int64_t(pre[k]));
    }
    obs_.pre_min = pre_min;
    obs_.pre_max = pre_max;
    if (what_.histogram) pre_counts_.add_all(pre, n);
  }
}

template <typename T>
void LayerInstruments::add_zeros(const T* out, int n, size_t zero_slot) {
  const int64_t zt = settings_.zero_threshold;
  uint32_t* zmap = pending_zeros_.data() + zero_slot;
  for (int k = 0; k < n; ++k) zmap[k] += uint32_t((out[k] < 0 ? -int64_t(out[k]) : int64_t(out[k])) <= zt);
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

// One stored element row's lanes at the cast: the value before it (the MIN's input if a MIN saw
// the lane, else the accumulator or the output), the output, and whether the cast changed the
// value; clears the lanes' flags. Returns nonzero if any lane overflowed. The pointers never
// alias (restrict), so the loop vectorizes.
template <typename Acc, typename Out>
Acc cast_lanes(const Acc* __restrict acc, const Out* __restrict outbuf, Acc* __restrict flags,
               const Acc* __restrict pre_in, Acc* __restrict pre, Acc* __restrict out, Acc* __restrict overflow, int lanes,
               int up) {
  using UAcc = std::make_unsigned_t<Acc>;
  Acc any = 0;
  for (int k = 0; k < lanes; ++k) {
    const Acc f = flags[k];
    flags[k] = 0;
    const Acc a = acc[k], o = Acc(outbuf[k]), p = pre_in[k];  // loads outside the selects
    // The OUT lane holds the low bits of the accumulator unless a GEMM with reset wrote it
    // (then the accumulator was zeroed and the output is the value itself). The narrowing
    // changed the value iff the accumulator it came from does not fit the output width.
    const Acc from_acc = Acc(Acc(UAcc(a) << up) >> up == o);
    const Acc narrow = from_acc ? a : o;
    pre[k] = (f & 1) ? p : narrow;  // kSeen
    out[k] = o;
    const Acc overflowed = Acc((f >> 1) | (from_acc & Acc(a != o)));  // kClipped, or narrowed
    overflow[k] = overflowed;
    any |= overflowed;
  }
  return any;
}

}  // namespace

template <typename Acc, typename Out>
void LayerInstruments::on_store_rows(const Acc* acc, const Out* outbuf, const hw::Insn& insn) {
  const int lanes = map_.batch * map_.block;
  const int out_bits = int(std::countr_zero(uint64_t(qmax_ + 1))) + 1;
  const int64_t blocks = (map_.c + map_.block - 1) / map_.block;
  const int up = int(8 * sizeof(Acc)) - out_bits;
  LaneState<Acc>& st = lane_state<Acc>();
  const uint64_t first = map_.first_elem, end = map_.first_elem + map_.elems;
  if (insn.y_size == 0 || insn.x_size == 0) return;
  // The common case in one pass: every element of the STORE is in this layer's output and every
  // lane is real (channels a multiple of the block, every batch row a valid image), no trace:
  // the cast and the counts run over the STORE's lanes at once (its SRAM rows are consecutive).
  const uint64_t e_first = insn.dram_base, e_last = uint64_t(insn.dram_base) + uint64_t(insn.y_size - 1) * insn.x_stride + insn.x_size - 1;
  if (per_element_ && !what_.trace && map_.c % map_.block == 0 && e_first >= first && e_last < end &&
      (int64_t(e_last - first) / (plane_ * blocks) + 1) * map_.batch <= std::min<int64_t>(map_.n, valid_images_)) {
    const size_t rows_total = size_t(insn.y_size) * insn.x_size, total = rows_total * size_t(lanes);
    if (st.row_pre.size() < total) {
      st.row_pre.resize(total);
      st.row_out.resize(total);
      st.row_overflow.resize(total);
    }
    const size_t s0 = size_t(insn.sram_base) * size_t(lanes);
    const Acc any = cast_lanes<Acc, Out>(acc + s0, outbuf + s0, st.flags.data() + s0, st.pre.data() + s0, st.row_pre.data(),
                                         st.row_out.data(), st.row_overflow.data(), int(total), up);
    count_values(st.row_pre.data(), st.row_out.data(), total);
    if (!what_.sparsity && !any) return;
    for (uint32_t y = 0; y < insn.y_size; ++y) {
      const int64_t rel = int64_t(uint64_t(insn.dram_base) + uint64_t(y) * insn.x_stride - first);
      int64_t xy = rel % plane_, cb = (rel / plane_) % blocks, nb = rel / (plane_ * blocks);
      for (uint32_t x = 0; x < insn.x_size; ++x) {
        const size_t k0 = (size_t(y) * insn.x_size + x) * size_t(lanes);
        for (int r = 0; r < map_.batch; ++r) {
          const size_t k = k0 + size_t(r * map_.block);
          if (what_.sparsity) add_zeros(st.row_out.data() + k, map_.block, size_t((cb * plane_ + xy) * map_.block));
          if (any) {
            record_overflows(st.row_pre.data() + k, st.row_out.data() + k, st.row_overflow.data() + k, map_.block,
                             cb * map_.block * plane_ + xy, cb * map_.block, nb * map_.batch + r);
          }
        }
        if (++xy == plane_) {
          xy = 0;
          if (++cb == blocks) {
            cb = 0;
            ++nb;
          }
        }
      }
    }
    return;
  }
  // Element by element: the rows' real lanes, the elements in the output, and their positions.
  if (st.row_pre.size() < size_t(lanes)) {
    st.row_pre.resize(size_t(lanes));
    st.row_out.resize(size_t(lanes));
    st.row_overflow.resize(size_t(lanes));
  }
  // Raw pointers in registers: the lane stores could otherwise alias the vectors' pointers.
  Acc* pr = st.row_pre.data();
  Acc* ou = st.row_out.data();
  Acc* ov_flags = st.row_overflow.data();
  static_assert(kSeen == 1 && kClipped == 2, "cast_lanes reads the flags as bits 0 and 1");
  for (uint32_t y = 0; y < insn.y_size; ++y) {
    // This row's elements in the layer's output: x in [x_lo, x_hi), consecutive in DRAM.
    const uint64_t row = uint64_t(insn.dram_base) + uint64_t(y) * insn.x_stride;
    const uint64_t x_lo = row >= first ? 0 : first - row;
    const uint64_t x_hi = row >= end ? 0 : std::min<uint64_t>(insn.x_size, end - row);
    if (x_lo >= x_hi) continue;
    // The first element's place in the blocked layout [N/BATCH][C/BLOCK][H*W]; the others step
    // through it one element at a time, without dividing.
    const int64_t rel = int64_t(row + x_lo - first);
    int64_t xy = rel % plane_, cb = (rel / plane_) % blocks, nb = rel / (plane_ * blocks);
    for (uint64_t x = x_lo; x < x_hi; ++x) {
      const size_t sram = size_t(insn.sram_base + y * insn.x_size + uint32_t(x)) * size_t(lanes);
      const Acc* av = acc + sram;
      const Out* ov = outbuf + sram;
      Acc* fv = st.flags.data() + sram;
      const Acc* pv = st.pre.data() + sram;
      const Acc any = cast_lanes<Acc, Out>(av, ov, fv, pv, pr, ou, ov_flags, lanes, up);
      // Its real lanes are the first `chans` channels of the first `rows` batch rows (the others
      // pad N or C, or are images past the valid ones).
      const int64_t rows =
          std::clamp<int64_t>(std::min<int64_t>(map_.n - nb * map_.batch, valid_images_ - nb * map_.batch), 0, map_.batch);
      const int64_t chans = std::clamp<int64_t>(map_.c - cb * map_.block, 0, map_.block);
      if (any || per_element_) {
        const int64_t e0 = cb * map_.block * plane_ + xy;
        for (int64_t r = 0; r < rows; ++r) {
          const size_t k0 = size_t(r * map_.block);
          count_values(pr + k0, ou + k0, size_t(chans));
          if (what_.sparsity) add_zeros(ou + k0, int(chans), size_t((cb * plane_ + xy) * map_.block));
          record_overflows(pr + k0, ou + k0, ov_flags + k0, int(chans), e0, cb * map_.block, nb * map_.batch + r);
        }
      } else {  // the overflow instrument alone and nothing overflowed
        obs_.elements += uint64_t(rows * chans);
      }
      if (++xy == plane_) {
        xy = 0;
        if (++cb == blocks) {
          cb = 0;
          ++nb;
        }
      }
    }
  }
}

void LayerInstruments::on_store(const OnChipMemory& m, const hw::Insn& insn) {
  if (pending_values_ >= (uint64_t(1) << 31)) flush();  // no 32-bit counter can wrap
  if (m.acc_is_int32()) {
    m.out_is_int8() ? on_store_rows(m.acc32.data(), m.out8.data(), insn) : on_store_rows(m.acc32.data(), m.out16.data(), insn);
  } else {
    m.out_is_int8() ? on_store_rows(m.acc64.data(), m.out8.data(), insn) : on_store_rows(m.acc64.data(), m.out16.data(), insn);
  }
}

}  // namespace tauvta::sim
