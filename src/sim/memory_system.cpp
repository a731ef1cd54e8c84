#include "sim/memory_system.h"

#include <algorithm>
#include <cmath>

namespace tauvta::sim {

namespace {
constexpr uint64_t kPageBytes = 4096;  // AXI: a burst never crosses a 4 KiB boundary
}  // namespace

uint64_t PortChannel::reserve(uint64_t t, uint64_t cycles, uint64_t issue) {
  if (cycles == 0) return t;
  // The first live interval that ends after t (ends are sorted like starts: disjoint intervals).
  auto it = std::partition_point(busy_.begin() + std::ptrdiff_t(head_), busy_.end(),
                                 [t](const Interval& iv) { return iv.end <= t; });
  uint64_t s = t;
  for (; it != busy_.end(); ++it) {
    if (it->issue > issue && it->start >= s) break;  // issued later and not started: it yields
    if (s + cycles <= it->start) break;              // fits in the gap before *it
    s = std::max(s, it->end);
  }
  const uint64_t e = s + cycles;
  it = busy_.insert(it, Interval{s, e, issue});
  // The bookings this one overtook queue behind it.
  uint64_t front = e;
  for (++it; it != busy_.end() && it->start < front; ++it) {
    const uint64_t d = front - it->start;
    it->start += d;
    it->end += d;
    front = it->end;
  }
  return s;
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
  // A row within one page is split at max_burst_bytes from its start only, so its bursts depend
  // on its offset within a beat alone; a row that crosses a page is keyed by its page offset.
  uint64_t page_offset = addr % kPageBytes;
  if (page_offset + bytes <= kPageBytes) page_offset %= p_.bus_bytes;
  RowPattern& r = pattern_;
  if (r.valid && r.write == write && r.bytes == bytes && r.page_offset == page_offset) return r;
  r.valid = true;
  r.write = write;
  r.bytes = bytes;
  r.page_offset = page_offset;
  r.bursts.clear();
  TransferResult tally;
  r.end = burst_row(p_, BurstCycles{p_, &burst_cycles_}, 0, page_offset, bytes, write, nullptr,
                    inflight_.data(), tally, p_.row_overhead,
                    [&r](uint64_t start, uint64_t cycles, uint64_t issue) {
                      r.bursts.push_back(RowPattern::Burst{start, cycles, issue});
                    });
  r.port_cycles = tally.port_cycles;
  return r;
}

void MemorySystem::clear() {
  read_.clear();
  write_.clear();
}

TransferResult MemorySystem::transfer(uint64_t t, uint64_t addr, uint64_t rows, uint64_t row_bytes,
                                      uint64_t stride_bytes, bool write) {
  TransferResult r;
  r.end = t;
  if (rows == 0 || row_bytes == 0) return r;
  read_.forget_before(t);
  write_.forget_before(t);
  PortChannel& ch = write ? write_ : read_;
  uint64_t now = t;
  if (!reference_ && ch.free_after(t)) {
    // Nothing is booked from t on, so the rows cannot be delayed: each row is its pattern on an
    // idle port, shifted to where the previous row completed, and its bursts are booked after
    // everything else (what reserve would find, without the search).
    for (uint64_t y = 0; y < rows; ++y) {
      const RowPattern& pat = pattern(addr + y * stride_bytes, row_bytes, write);
      for (const RowPattern::Burst& b : pat.bursts) ch.append(now + b.start, b.cycles, now + b.issue);
      r.bursts += pat.bursts.size();
      r.port_cycles += pat.port_cycles;
      now += pat.end;
    }
    r.end = now;
    return r;
  }
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
