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

// One memcpy row as HLS's m_axi adapter moves it; returns when its last burst completes. Bursts
// take the port channel `ch`, or, when `ch` is null, an idle port (only the row's own bursts).
// `inflight` has room for the completion times of the last `outstanding` bursts (only entries
// written by this row are read); `setup` is the cycles before the first request.
uint64_t burst_row(const MemoryParams& p, uint64_t t, uint64_t addr, uint64_t bytes, bool write,
                   PortChannel* ch, uint64_t* inflight, TransferResult& tally, uint64_t setup) {
  const uint64_t k = write ? p.write_outstanding : p.read_outstanding;
  const uint64_t lat = write ? p.write_latency : p.read_latency;
  uint64_t issue = t + setup, free = 0, end = issue, i = 0;
  while (bytes > 0) {
    const uint64_t len = std::min({bytes, p.max_burst_bytes, kPageBytes - addr % kPageBytes});
    const uint64_t beats = (addr % p.bus_bytes + len + p.bus_bytes - 1) / p.bus_bytes;
    const uint64_t occ =
        uint64_t(std::ceil(double(beats * p.bus_bytes) / p.bytes_per_cycle - 1e-9)) +
        p.burst_overhead;
    // A request waits for a free outstanding slot: the burst k before it must have completed.
    if (i >= k) issue = std::max(issue, inflight[i % k]);
    // Read data comes back after the latency; write data follows its address at once.
    const uint64_t want = write ? issue : issue + lat;
    const uint64_t start = ch ? ch->reserve(want, occ, issue) : std::max(want, free);
    free = start + occ;
    tally.port_cycles += occ;
    const uint64_t complete = free + (write ? lat : 0);
    inflight[i % k] = complete;
    end = std::max(end, complete);
    ++issue, ++i;
    addr += len, bytes -= len;
  }
  tally.bursts += i;
  return end;
}

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

uint64_t MemoryParams::row_cycles(uint64_t bytes, bool write, uint64_t addr) const {
  uint64_t inflight[kMaxOutstanding];  // written before read: no initialization needed
  TransferResult tally;
  return burst_row(*this, 0, addr, bytes, write, nullptr, inflight, tally, row_overhead);
}

double MemoryParams::rows_cycles(double rows, double bytes, bool write) const {
  return rows * double(row_cycles(uint64_t(std::llround(bytes)), write));
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
  // On a channel with nothing booked from t on, the rows cannot be delayed: one pass.
  const bool idle = ch.free_after(t);
  uint64_t alone = t;
  TransferResult unused;
  if (!idle) {
    for (uint64_t y = 0; y < rows; ++y) {
      alone = burst_row(p_, alone, addr + y * stride_bytes, row_bytes, write, nullptr,
                        inflight_.data(), unused, p_.row_overhead);
    }
  }
  uint64_t now = t;
  for (uint64_t y = 0; y < rows; ++y) {
    now = burst_row(p_, now, addr + y * stride_bytes, row_bytes, write, &ch, inflight_.data(), r,
                    p_.row_overhead);
  }
  r.end = now;
  r.stall = idle ? 0 : now - std::min(now, alone);
  return r;
}

TransferResult MemorySystem::read_burst(uint64_t t, uint64_t addr, uint64_t bytes) {
  TransferResult r;
  const uint64_t len = std::min(bytes, p_.max_burst_bytes);
  r.end = burst_row(p_, t, addr, len, false, &read_, inflight_.data(), r, 0);
  // One burst: its channel time is the port cycles it held, ending with its data.
  r.data_start = r.end - r.port_cycles;
  return r;
}

uint64_t MemorySystem::bytes_arrived(uint64_t start, uint64_t addr, uint64_t bytes) const {
  const uint64_t beats = (addr % p_.bus_bytes + bytes + p_.bus_bytes - 1) / p_.bus_bytes;
  return start + p_.burst_overhead +
         uint64_t(std::ceil(double(beats * p_.bus_bytes) / p_.bytes_per_cycle - 1e-9));
}

}  // namespace tauvta::sim
