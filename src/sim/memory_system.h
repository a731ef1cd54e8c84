// MemorySystem: the accelerator's DRAM side as the timing model sees it (docs/timing_model.md).
// VTA's HLS modules move data with one memcpy per 2D row through plain m_axi masters (fetch,
// load, compute's micro-op and accumulator ports, store) that share one PS port (ACP on
// Pynq-Z1, S_AXI_HPC0 on UltraScale+). A row becomes AXI bursts split at the maximum burst
// length and at 4 KiB boundaries; a master keeps at most `outstanding` bursts in flight (the
// lesser of the HLS adapter's and the port's acceptance); read data returns `latency` cycles after
// a request, write responses `write latency` cycles after the last data beat; every burst holds
// the port's read or write data channel for its beats plus a fixed overhead. A memcpy ends when
// its last burst completes, so the next row starts only then.
//
// The channels keep their busy intervals (a calendar), so a transfer fills the gaps another
// module's latency-bound rows leave. Requests arrive in nondecreasing time order (the timing
// model starts instructions in time order), so intervals that end before the newest request
// can be forgotten. Everything depends only on addresses and sizes, never on data.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "hw/hw_config.h"

namespace tauvta::sim {

struct RowPattern;

inline constexpr uint64_t kPageBytes = 4096;  // AXI: a burst never crosses a 4 KiB boundary

// One AXI data channel (read or write) of the shared port: the cycles it is busy, burst by burst.
// The port serves bursts in the order their addresses were issued (the interconnect arbitrates
// per burst), while the timing model books a whole memcpy when its instruction starts: so a burst
// booked for later, whose address is issued after this one's, yields to it (it and the bookings
// queued behind it move back), unless its data is already flowing. Their instruction's end was
// taken when it was booked: the small transfers that overtake long rows (micro-ops, accumulators)
// cost the long row a little the model does not charge it.
//
// A row replayed on an idle channel is booked as its pattern's runs (bursts back to back on the
// channel, RowPattern::runs) rather than burst by burst: a long row is a handful of entries. A run
// behaves exactly as its bursts would: a request meeting it finds no gap inside it, and the first
// of its bursts issued after the request (issues rise along a row) yields, which splits the run
// there; bursts that queue behind a new one move back together, so a run moves whole.
class PortChannel {
 public:
  // Earliest start >= t of `cycles` free cycles for a burst issued at `issue`; marks them busy
  // and returns the start.
  uint64_t reserve(uint64_t t, uint64_t cycles, uint64_t issue = 0);
  // Whether nothing is reserved at or after t (a transfer starting then cannot be delayed).
  bool free_after(uint64_t t) const { return head_ == busy_.size() || busy_.back().end <= t; }
  // Books the bursts of `row` started at `at` after everything reserved (the caller knows nothing
  // is booked at or after `at`): reserve's result for each burst on such a calendar, without the
  // search. `row` must outlive the bookings (MemorySystem keeps its patterns while any is booked).
  void append(uint64_t at, const RowPattern& row);
  // Forget intervals ending at or before t (no later request can start before t).
  void forget_before(uint64_t t);
  void clear() { busy_.clear(), head_ = 0; }
  // Whether no booking is live (entries forgotten but not yet erased do not count).
  bool empty() const { return head_ == busy_.size(); }

 private:
  // A single burst (row == nullptr), or bursts [first, last) of a replayed row, which run back to
  // back: burst j holds [row->bursts[j].start + shift, + cycles) and was issued at
  // row->bursts[j].issue + issue_shift. start, end and issue are the run's first burst's start and
  // issue and its last burst's end.
  struct Interval {
    uint64_t start, end;
    uint64_t issue;  // when the (first) burst's address was issued
    const RowPattern* row = nullptr;
    uint32_t first = 0, last = 0;
    uint64_t shift = 0, issue_shift = 0;
  };
  // Splits the run at `it` before its burst j (first < j < last) and returns the second part.
  std::vector<Interval>::iterator split(std::vector<Interval>::iterator it, uint32_t j);

  std::vector<Interval> busy_;  // sorted, disjoint; [head_, size) are live
  size_t head_ = 0;
};

// What one memory instruction's rows cost.
struct TransferResult {
  uint64_t end = 0;     // when the last row completed (reads: data in; writes: response back)
  uint64_t data_start = 0;  // read_burst: when the burst's data started to flow (its channel time)
  uint64_t stall = 0;   // cycles later than the same rows on an idle port (other masters' traffic)
  uint64_t bursts = 0;  // AXI bursts issued
  uint64_t port_cycles = 0;  // cycles the bursts held the port's data channel
};

// The physical parameters, resolved once from HwConfig.
struct MemoryParams {
  static constexpr uint64_t kMaxOutstanding = 1024;  // HwConfig validates the limits to this
  uint64_t bus_bytes = 8;                            // port data width
  double bytes_per_cycle = 8;  // sustained: min(port width, DRAM bandwidth / clock)
  uint64_t max_burst_bytes = 128;
  uint64_t read_latency = 32, write_latency = 32;
  uint64_t read_outstanding = 8, write_outstanding = 8;
  uint64_t burst_overhead = 0;  // port cycles per burst besides its beats
  uint64_t row_overhead = 0;  // cycles the HLS memcpy loop spends per row before its first request

  // Port cycles a burst of `beats` beats holds its data channel.
  uint64_t burst_cycles(uint64_t beats) const;

  static MemoryParams from(const hw::HwConfig& c);
  // Cycles one row of `bytes` bytes takes on an idle port from its start (alignment as given).
  uint64_t row_cycles(uint64_t bytes, bool write, uint64_t addr = 0) const;
  // `rows` rows of `bytes` bytes each (averages, as the schedule estimators have them), one
  // after another on an idle port.
  double rows_cycles(double rows, double bytes, bool write) const;
};

// The bursts of one row on an idle port, relative to the row's start: what a row costs depends
// only on its length, direction and where it starts within a 4 KiB page (within a beat, for a
// row that stays in its page), so rows that share those are costed once and replayed.
struct RowPattern {
  struct Burst {
    uint64_t start, cycles, issue;  // channel time and address issue, from the row's start
  };
  struct Run {
    uint32_t first, last;  // bursts [first, last), each starting where the one before ended
  };
  uint64_t key = 0;                     // MemorySystem::pattern_key of its rows
  uint64_t end = 0;                     // the row's completion, from its start
  uint64_t busy_end = 0;                // the end of its last burst on the channel, from its start
  uint64_t port_cycles = 0;
  std::vector<Burst> bursts;
  std::vector<Run> runs;  // the bursts as maximal back-to-back runs on the channel
};

class MemorySystem {
 public:
  explicit MemorySystem(const hw::HwConfig& c);
  // The calendars point into this object's patterns: a copy would point into the original's.
  MemorySystem(const MemorySystem&) = delete;
  MemorySystem& operator=(const MemorySystem&) = delete;
  const MemoryParams& params() const { return p_; }
  void clear();
  // Reference mode: every row is costed and booked burst by burst through PortChannel::reserve,
  // as the replayed patterns must equal (the tests compare the two).
  void set_reference(bool on) { reference_ = on; }
  // `rows` rows of `row_bytes` bytes, row r at byte address addr + r * stride_bytes, starting at
  // `t`. Requests must come in nondecreasing `t` (see the header comment).
  TransferResult transfer(uint64_t t, uint64_t addr, uint64_t rows, uint64_t row_bytes,
                          uint64_t stride_bytes, bool write);
  // One read burst of at most max_burst_bytes requested at `t` (instruction fetch streams its
  // program this way); returns when its last beat arrived and when its data started.
  TransferResult read_burst(uint64_t t, uint64_t addr, uint64_t bytes);
  // When the first `bytes` bytes of a burst at byte address `addr` whose data started at `start`
  // have arrived: the beats that hold them at the port's rate, after the burst's fixed overhead.
  uint64_t bytes_arrived(uint64_t start, uint64_t addr, uint64_t bytes) const;

 private:
  // Where a row starts, as far as its bursts depend on it: a row within one page is split at
  // max_burst_bytes from its start only, so its offset within a beat; a row that crosses a page,
  // its page offset.
  uint64_t pattern_offset(uint64_t addr, uint64_t bytes) const {
    const uint64_t page_offset = addr % kPageBytes;
    return page_offset + bytes <= kPageBytes ? page_offset % p_.bus_bytes : page_offset;
  }
  // What a row's bursts depend on: its length, direction and pattern_offset (RowPattern::key).
  uint64_t pattern_key(uint64_t addr, uint64_t bytes, bool write) const {
    return bytes << 13 | pattern_offset(addr, bytes) << 1 | uint64_t(write);
  }
  // The pattern of a row of `bytes` bytes at `addr`, computed the first time its key is met.
  const RowPattern& pattern(uint64_t addr, uint64_t bytes, bool write);
  // Books the channel's pending transfer (what the fast path of transfer left unbooked) in its
  // calendar, unless it is over by the last transfer's start.
  void flush(bool write);
  // Forgets the patterns once they are many and no booking points into them.
  void trim_patterns();

  // Bounds the patterns kept while the calendars still point into them.
  static constexpr uint64_t kMaxPatternBursts = uint64_t(1) << 22;

  MemoryParams p_;
  PortChannel read_, write_;
  std::vector<uint64_t> inflight_;  // completion times of the last `outstanding` bursts (ring)
  std::vector<uint64_t> burst_cycles_;  // MemoryParams::burst_cycles by beats, up to a full burst
  // Every row pattern met (a deque: the calendars point into it; trim_patterns forgets them),
  // found through a direct-mapped table keyed by RowPattern's key, in front of a map.
  std::deque<RowPattern> patterns_;
  std::unordered_map<uint64_t, const RowPattern*> pattern_index_;
  struct CachedPattern {
    uint64_t key = 0;
    const RowPattern* row = nullptr;
  };
  std::array<CachedPattern, 1024> pattern_cache_{};
  uint64_t pattern_bursts_ = 0;
  // The last transfer on each channel (read, write) when it found the channel idle: rows from
  // `at`, its last burst ending at busy_end. Its bursts are booked only when a request comes
  // that could meet them (flush), so a transfer nothing contends with books nothing.
  struct Pending {
    bool live = false;
    uint64_t at = 0, addr = 0, rows = 0, row_bytes = 0, stride = 0, busy_end = 0;
  };
  Pending pending_[2];
  uint64_t horizon_ = 0;  // the last transfer's start: bookings over by then are forgotten
  bool reference_ = false;
};

}  // namespace tauvta::sim
