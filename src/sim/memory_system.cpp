#include "sim/memory_system.h"

#include <algorithm>
#include <cmath>

namespace tauvta::sim {

uint64_t PortChannel::reserve(uint64_t t, uint64_t cycles, uint64_t issue) {
  if (cycles == 0) return t;
  // The first live interval that ends after t (ends are sorted like starts: disjoint intervals).
  auto it = std::partition_point(busy_.begin() + std::ptrdiff_t(head_), busy_.end(),
                                 [t](const Interval& iv) { return iv.end <= t; });
  uint64_t s = t;
  for (; it != busy_.end(); ++it) {
    if (it->issue > issue && it->start >= s) break;  // issued later and not started: it yields
    if (s + cycles <= it->start) break;              // fits in the gap before *it
    if (it->row != nullptr && it->last - it->first > 1) {
      // Past a run's first burst there is no gap; the bursts that start at or after `after` (the
      // ones before end by then or are under way) follow each other from s on, and the first of
      // them issued after this request yields. Starts and issues both rise along the run.
      const std::vector<RowPattern::Burst>& b = it->row->bursts;
      const RowPattern::Burst& f = b[it->first];
      const uint64_t after = std::max(s, f.start + f.cycles + it->shift);
      const auto first = b.begin() + it->first + 1, last = b.begin() + it->last;
      auto j = std::partition_point(first, last, [&](const RowPattern::Burst& x) {
        return x.start + it->shift < after;
      });
      j = std::partition_point(j, last, [&](const RowPattern::Burst& x) {
        return x.issue + it->issue_shift <= issue;
      });
      if (j != last) {
        s = j->start + it->shift;
        it = split(it, uint32_t(j - b.begin()));
        break;
      }
    }
    s = std::max(s, it->end);
  }
  const uint64_t e = s + cycles;
  it = busy_.insert(it, Interval{s, e, issue});
  // The bookings this one overtook queue behind it (a run's bursts abut, so it moves whole).
  uint64_t front = e;
  for (++it; it != busy_.end() && it->start < front; ++it) {
    const uint64_t d = front - it->start;
    it->start += d;
    it->end += d;
    it->shift += d;
    front = it->end;
  }
  return s;
}

std::vector<PortChannel::Interval>::iterator PortChannel::split(std::vector<Interval>::iterator it,
                                                                 uint32_t j) {
  const std::vector<RowPattern::Burst>& b = it->row->bursts;
  Interval tail = *it;
  tail.first = j;
  tail.start = b[j].start + it->shift;
  tail.issue = b[j].issue + it->issue_shift;
  it->last = j;
  it->end = b[j - 1].start + b[j - 1].cycles + it->shift;
  return busy_.insert(it + 1, tail);
}

void PortChannel::append(uint64_t at, const RowPattern& row) {
  for (const RowPattern::Run& r : row.runs) {
    const RowPattern::Burst &f = row.bursts[r.first], &l = row.bursts[r.last - 1];
    busy_.push_back(
        Interval{at + f.start, at + l.start + l.cycles, at + f.issue, &row, r.first, r.last, at, at});
  }
}

void PortChannel::forget_before(uint64_t t) {
  while (head_ < busy_.size() && busy_[head_].end <= t) ++head_;
  if (head_ > 256 && head_ * 2 > busy_.size()) {
    busy_.erase(busy_.begin(), busy_.begin() + std::ptrdiff_t(head_));
    head_ = 0;
  }
}

namespace {

// Port cycles of a burst of `beats` beats: a table up to a full burst, the formula beyond.
struct BurstCycles {
  const MemoryParams& p;
  const std::vector<uint64_t>* table;
  uint64_t operator()(uint64_t beats) const {
    return table && beats < table->size() ? (*table)[beats] : p.burst_cycles(beats);
  }
};

// One memcpy row as HLS's m_axi adapter moves it; returns when its last burst completes. Bursts
// take the port channel `ch`, or, when `ch` is null, an idle port (only the row's own bursts).
// `inflight` has room for the completion times of the last `outstanding` bursts (only entries
// written by this row are read); `setup` is the cycles before the first request. `on_burst`
// sees each burst's channel start, cycles and issue.
template <typename OnBurst>
uint64_t burst_row(const MemoryParams& p, BurstCycles occ_of, uint64_t t, uint64_t addr,
                   uint64_t bytes, bool write, PortChannel* ch, uint64_t* inflight,
                   TransferResult& tally, uint64_t setup, OnBurst&& on_burst) {
  const uint64_t k = write ? p.write_outstanding : p.read_outstanding;
  const uint64_t lat = write ? p.write_latency : p.read_latency;
  uint64_t issue = t + setup, free = 0, end = issue, i = 0, slot = 0;
  while (bytes > 0) {
    const uint64_t len = std::min({bytes, p.max_burst_bytes, kPageBytes - addr % kPageBytes});
    const uint64_t beats = (addr % p.bus_bytes + len + p.bus_bytes - 1) / p.bus_bytes;
    const uint64_t occ = occ_of(beats);
    // A request waits for a free outstanding slot: the burst k before it must have completed.
    if (i >= k) issue = std::max(issue, inflight[slot]);
    // Read data comes back after the latency; write data follows its address at once.
    const uint64_t want = write ? issue : issue + lat;
    const uint64_t start = ch ? ch->reserve(want, occ, issue) : std::max(want, free);
    on_burst(start, occ, issue);
    free = start + occ;
    tally.port_cycles += occ;
    const uint64_t complete = free + (write ? lat : 0);
    inflight[slot] = complete;
    slot = slot + 1 == k ? 0 : slot + 1;
    end = std::max(end, complete);
    ++issue, ++i;
    addr += len, bytes -= len;
  }
  tally.bursts += i;
  return end;
}

constexpr auto kNoBurstHook = [](uint64_t, uint64_t, uint64_t) {};

}  // namespace

MemoryParams MemoryParams::from(const hw::HwConfig& c) {
  const hw::TimingParams& t = c.timing;
  MemoryParams p;
  p.bus_bytes = uint64_t(c.bus_bytes());
  p.bytes_per_cycle = c.dram_bytes_per_cycle();
  p.max_burst_bytes = uint64_t(t.max_burst_beats) * p.bus_bytes;
  p.read_latency = uint64_t(t.dram_latency_cycles);
  p.write_latency = uint64_t(t.write_latency_cycles);
  p.read_outstanding =
      uint64_t(std::min({t.master_outstanding, t.port_read_acceptance, int(kMaxOutstanding)}));
  p.write_outstanding =
      uint64_t(std::min({t.master_outstanding, t.port_write_acceptance, int(kMaxOutstanding)}));
  p.burst_overhead = uint64_t(t.burst_overhead_cycles);
  p.row_overhead = uint64_t(t.row_overhead_cycles);
  return p;
}

uint64_t MemoryParams::burst_cycles(uint64_t beats) const {
  return uint64_t(std::ceil(double(beats * bus_bytes) / bytes_per_cycle - 1e-9)) + burst_overhead;
}

uint64_t MemoryParams::row_cycles(uint64_t bytes, bool write, uint64_t addr) const {
  uint64_t inflight[kMaxOutstanding];  // written before read: no initialization needed
  TransferResult tally;
  return burst_row(*this, BurstCycles{*this, nullptr}, 0, addr, bytes, write, nullptr, inflight,
                   tally, row_overhead, kNoBurstHook);
}

double MemoryParams::rows_cycles(double rows, double bytes, bool write) const {
  return rows * double(row_cycles(uint64_t(std::llround(bytes)), write));
}

MemorySystem::MemorySystem(const hw::HwConfig& c)
    : p_(MemoryParams::from(c)), inflight_(std::max(p_.read_outstanding, p_.write_outstanding)) {
  const uint64_t full = p_.max_burst_bytes / p_.bus_bytes + 1;  // a misaligned burst: one more beat
  burst_cycles_.resize(full + 1);
  for (uint64_t b = 0; b <= full; ++b) burst_cycles_[b] = p_.burst_cycles(b);
}

const RowPattern& MemorySystem::pattern(uint64_t addr, uint64_t bytes, bool write) {
  const uint64_t key = pattern_key(addr, bytes, write);
  CachedPattern& cached = pattern_cache_[(key * 0x9E3779B97F4A7C15ull) >> 54];
  if (cached.row != nullptr && cached.key == key) return *cached.row;
  auto [pos, fresh] = pattern_index_.try_emplace(key, nullptr);
  if (fresh) {
    RowPattern& r = patterns_.emplace_back();
    r.key = key;
    TransferResult tally;
    r.end = burst_row(p_, BurstCycles{p_, &burst_cycles_}, 0, pattern_offset(addr, bytes), bytes,
                      write, nullptr, inflight_.data(), tally, p_.row_overhead,
                      [&r](uint64_t start, uint64_t cycles, uint64_t issue) {
                        r.bursts.push_back(RowPattern::Burst{start, cycles, issue});
                      });
    r.port_cycles = tally.port_cycles;
    // Back-to-back bursts form runs; a burst of no cycles books nothing (as reserve does).
    for (uint32_t j = 0; j < r.bursts.size(); ++j) {
      const RowPattern::Burst& x = r.bursts[j];
      if (x.cycles == 0) continue;
      if (!r.runs.empty() && r.runs.back().last == j) {
        const RowPattern::Burst& prev = r.bursts[j - 1];
        if (prev.start + prev.cycles == x.start) {
          ++r.runs.back().last;
          continue;
        }
      }
      r.runs.push_back(RowPattern::Run{j, j + 1});
    }
    if (!r.runs.empty()) {
      const RowPattern::Burst& x = r.bursts[r.runs.back().last - 1];
      r.busy_end = x.start + x.cycles;
    }
    pattern_bursts_ += r.bursts.size();
    pos->second = &r;
  }
  cached = CachedPattern{key, pos->second};
  return *cached.row;
}

void MemorySystem::trim_patterns() {
  if (pattern_bursts_ <= kMaxPatternBursts || !read_.empty() || !write_.empty()) return;
  patterns_.clear();
  pattern_index_.clear();
  pattern_cache_.fill(CachedPattern{});
  pattern_bursts_ = 0;
}

void MemorySystem::flush(bool write) {
  Pending& p = pending_[write ? 1 : 0];
  if (!p.live) return;
  p.live = false;
  // Bursts over by the last transfer's start are forgotten anyway (forget_before).
  if (p.busy_end <= horizon_) return;
  PortChannel& ch = write ? write_ : read_;
  uint64_t now = p.at;
  for (uint64_t y = 0; y < p.rows; ++y) {
    const RowPattern& pat = pattern(p.addr + y * p.stride, p.row_bytes, write);
    ch.append(now, pat);
    now += pat.end;
  }
}

void MemorySystem::clear() {
  read_.clear();
  write_.clear();
  pending_[0].live = pending_[1].live = false;
  horizon_ = 0;
  trim_patterns();
}

TransferResult MemorySystem::transfer(uint64_t t, uint64_t addr, uint64_t rows, uint64_t row_bytes,
                                      uint64_t stride_bytes, bool write) {
  TransferResult r;
  r.end = t;
  if (rows == 0 || row_bytes == 0) return r;
  read_.forget_before(t);
  write_.forget_before(t);
  horizon_ = t;
  trim_patterns();
  PortChannel& ch = write ? write_ : read_;
  Pending& pending = pending_[write ? 1 : 0];
  uint64_t now = t;
  if (!reference_ && ch.free_after(t) && (!pending.live || pending.busy_end <= t)) {
    // Nothing is booked from t on, so the rows cannot be delayed: each row is its pattern on an
    // idle port, shifted to where the previous row completed. Its bursts would be booked after
    // everything else; they are kept as the channel's pending transfer and booked only if a
    // request comes before they are over (flush), which for the store's writes is never.
    pending = Pending{true, t, addr, rows, row_bytes, stride_bytes, t};
    const RowPattern* last = nullptr;
    for (uint64_t y = 0; y < rows; ++y) {
      const uint64_t a = addr + y * stride_bytes;
      if (last == nullptr || last->key != pattern_key(a, row_bytes, write)) {
        last = &pattern(a, row_bytes, write);
      }
      r.bursts += last->bursts.size();
      r.port_cycles += last->port_cycles;
      pending.busy_end = std::max(pending.busy_end, now + last->busy_end);
      now += last->end;
    }
    r.end = now;
    return r;
  }
  flush(write);
  // Other masters' bursts are booked ahead (or reference mode): book burst by burst, and charge
  // the difference to the same rows on an idle port as the stall.
  const BurstCycles occ{p_, reference_ ? nullptr : &burst_cycles_};
  uint64_t alone = t;
  TransferResult scratch;
  for (uint64_t y = 0; y < rows; ++y) {
    alone = reference_ ? burst_row(p_, occ, alone, addr + y * stride_bytes, row_bytes, write,
                                   nullptr, inflight_.data(), scratch, p_.row_overhead, kNoBurstHook)
                       : alone + pattern(addr + y * stride_bytes, row_bytes, write).end;
  }
  for (uint64_t y = 0; y < rows; ++y) {
    now = burst_row(p_, occ, now, addr + y * stride_bytes, row_bytes, write, &ch, inflight_.data(),
                    r, p_.row_overhead, kNoBurstHook);
  }
  r.end = now;
  r.stall = now - std::min(now, alone);
  return r;
}

TransferResult MemorySystem::read_burst(uint64_t t, uint64_t addr, uint64_t bytes) {
  TransferResult r;
  flush(false);
  const uint64_t len = std::min(bytes, p_.max_burst_bytes);
  r.end = burst_row(p_, BurstCycles{p_, &burst_cycles_}, t, addr, len, false, &read_,
                    inflight_.data(), r, 0, kNoBurstHook);
  // One burst: its channel time is the port cycles it held, ending with its data.
  r.data_start = r.end - r.port_cycles;
  return r;
}

uint64_t MemorySystem::bytes_arrived(uint64_t start, uint64_t addr, uint64_t bytes) const {
  const uint64_t beats = (addr % p_.bus_bytes + bytes + p_.bus_bytes - 1) / p_.bus_bytes;
  return start + BurstCycles{p_, &burst_cycles_}(beats);
}

}  // namespace tauvta::sim
