// Harness of the whole accelerator: a Verilated tauvta_accelerator behind a model of the board's
// memory port, driven through its AXI4-Lite control slave the way VTA's driver drives the Xilinx
// design. Compiled at run time against one design's Verilated model (src/rtl/accelerator_sim.cpp
// builds it); not part of any library.
//
// The memory port (docs/rtl.md "The memory port") follows the timing model's parameters, given on
// the command line: one read and one write data channel shared by the masters, each moving
// BYTES_PER_CYCLE bytes a cycle; a burst's data starts LATENCY cycles after its address was
// accepted (reads) or with it (writes) and holds its channel for ceil(beats * bus / rate) +
// OVERHEAD cycles; write responses come WRITE_LATENCY cycles after that; the port accepts at most
// READ_ACCEPTANCE reads and WRITE_ACCEPTANCE writes in flight; addresses are accepted one per
// cycle, round-robin over the read masters.
//
//   accel_harness BUS_BYTES BYTES_PER_CYCLE LATENCY WRITE_LATENCY READ_ACCEPTANCE WRITE_ACCEPTANCE OVERHEAD
//
// Commands on stdin (binary, little-endian); replies on stdout:
//   'W' u64 addr, u64 len, len bytes      write DRAM
//   'R' u64 addr, u64 len                 reply: len bytes of DRAM
//   'X' u64 insn_addr, u32 count, u64 max_cycles
//                                         run a program as the driver does; reply: u32 status
//                                         (0 done, 1 no FINISH within max_cycles), u64 count
//                                         of counters, then each counter
//   'Q'                                   quit
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "Vtauvta_accelerator.h"
#include "verilated.h"

namespace {

constexpr int kCounters = 20;  // src/rtl/accelerator_map.h

struct Params {
  uint64_t bus = 8;
  double rate = 8;
  uint64_t latency = 32, write_latency = 32, read_accept = 8, write_accept = 8, overhead = 0;
};

// Sparse DRAM: 4 KiB pages, zero until written.
class Memory {
 public:
  uint8_t* page(uint64_t addr) {
    auto& p = pages_[addr >> 12];
    if (p.empty()) p.assign(4096, 0);
    return p.data();
  }
  void write(uint64_t addr, const uint8_t* src, uint64_t len) {
    for (uint64_t i = 0; i < len; ++i) page(addr + i)[(addr + i) & 4095] = src[i];
  }
  void read(uint64_t addr, uint8_t* dst, uint64_t len) {
    for (uint64_t i = 0; i < len; ++i) {
      auto it = pages_.find((addr + i) >> 12);
      dst[i] = it == pages_.end() ? 0 : it->second[(addr + i) & 4095];
    }
  }

 private:
  std::unordered_map<uint64_t, std::vector<uint8_t>> pages_;
};

// Verilator port access for any width (integral up to 64 bits, VlWide above).
template <class P>
constexpr size_t words_of() {
  if constexpr (std::is_integral_v<P>) return (sizeof(P) + 3) / 4;
  else return sizeof(P) / 4;
}
template <class P>
void set_bytes(P& p, const uint8_t* b, size_t n) {
  if constexpr (std::is_integral_v<P>) {
    uint64_t v = 0;
    std::memcpy(&v, b, std::min(n, sizeof(uint64_t)));
    p = P(v);
  } else {
    for (size_t w = 0; w < words_of<P>(); ++w) {
      uint32_t x = 0;
      if (4 * w < n) std::memcpy(&x, b + 4 * w, std::min<size_t>(4, n - 4 * w));
      p[w] = x;
    }
  }
}
template <class P>
void get_bytes(const P& p, uint8_t* b, size_t n) {
  if constexpr (std::is_integral_v<P>) {
    const uint64_t v = uint64_t(p);
    std::memcpy(b, &v, std::min(n, sizeof(uint64_t)));
  } else {
    for (size_t w = 0; w < words_of<P>() && 4 * w < n; ++w) {
      const uint32_t x = p[w];
      std::memcpy(b + 4 * w, &x, std::min<size_t>(4, n - 4 * w));
    }
  }
}

template <class P>
bool bit_of(const P& p, uint64_t i) {
  if constexpr (std::is_integral_v<P>) return ((uint64_t(p) >> i) & 1) != 0;
  else return ((p[i / 32] >> (i % 32)) & 1) != 0;
}

struct ReadBurst {
  int master;
  uint64_t addr, beats, accepted, start = 0, sent = 0;
};
struct WriteBurst {
  uint64_t addr, beats, accepted, start = 0, sent = 0;
};

class Board {
 public:
  Board(const Params& p) : p_(p), top_(std::make_unique<Vtauvta_accelerator>(&ctx_)) {
    beat_buf_.resize(p.bus);
    top_->ap_rst_n = 0;
    for (int i = 0; i < 4; ++i) cycle();
    top_->ap_rst_n = 1;
    cycle();
  }
  Memory& memory() { return mem_; }

  void axil_write(uint32_t addr, uint32_t data) {
    top_->s_axi_control_awvalid = 1;
    top_->s_axi_control_wvalid = 1;
    top_->s_axi_control_awaddr = addr;
    top_->s_axi_control_wdata = data;
    top_->s_axi_control_wstrb = 0xf;
    top_->s_axi_control_bready = 1;
    bool accepted = false;
    while (true) {
      settle();
      const bool aw = top_->s_axi_control_awready;
      const bool b = top_->s_axi_control_bvalid;
      edge();
      if (aw) {
        accepted = true;
        top_->s_axi_control_awvalid = 0;
        top_->s_axi_control_wvalid = 0;
      }
      if (accepted && b) break;
    }
    top_->s_axi_control_bready = 0;
  }
  uint32_t axil_read(uint32_t addr) {
    top_->s_axi_control_arvalid = 1;
    top_->s_axi_control_araddr = addr;
    top_->s_axi_control_rready = 1;
    while (true) {
      settle();
      const bool ar = top_->s_axi_control_arready;
      edge();
      if (ar) break;
    }
    top_->s_axi_control_arvalid = 0;
    while (true) {
      settle();
      const bool r = top_->s_axi_control_rvalid;
      const uint32_t d = top_->s_axi_control_rdata;
      edge();
      if (r) {
        top_->s_axi_control_rready = 0;
        return d;
      }
    }
  }

  // Runs the program as VTA's driver does; false if FINISH did not come within max_cycles.
  bool run(uint64_t insn_addr, uint32_t count, uint64_t max_cycles) {
    axil_write(0x0010, count);
    axil_write(0x0018, uint32_t(insn_addr));
    for (uint32_t r : {0x1010u, 0x1018u, 0x2020u, 0x2028u, 0x3010u}) axil_write(r, 0);
    axil_write(0x1000, 0x81);
    axil_write(0x2000, 0x81);
    axil_write(0x3000, 0x81);
    axil_write(0x0000, 0x1);
    const uint64_t begin = now_;
    // Poll the done register now and then (reads do not disturb the modules).
    while (axil_read(0x2018) != 1) {
      for (int i = 0; i < 256; ++i) cycle();
      if (now_ - begin > max_cycles) return false;
    }
    return true;
  }
  uint64_t counter(int k) {
    const uint64_t lo = axil_read(0x4000 + 8 * k), hi = axil_read(0x4000 + 8 * k + 4);
    return lo | hi << 32;
  }

 private:
  void cycle() {
    settle();
    edge();
  }
  // Drives the memory port's outputs for this cycle and lets the design's logic settle.
  void settle() {
    drive_reads();
    drive_writes();
    top_->ap_clk = 0;
    top_->eval();
  }
  // Samples the handshakes of this cycle, then the clock edge.
  void edge() {
    sample_reads();
    sample_writes();
    top_->ap_clk = 1;
    top_->eval();
    ++now_;
  }

  // --- reads ---
  // The beat `b` of a burst whose channel time starts at `s` is on the bus in the cycle before its
  // bytes are all through (the burst's fixed overhead first), so the last beat's handshake is the
  // cycle before the burst completes: the cycle the timing model's completion time names is the
  // first in which the RTL has the whole burst.
  uint64_t beat_due(uint64_t s, uint64_t b) const {
    return s + p_.overhead + uint64_t(std::ceil(double((b + 1) * p_.bus) / p_.rate - 1e-9)) - 1;
  }
  uint64_t occupancy(uint64_t beats) const {
    return uint64_t(std::ceil(double(beats * p_.bus) / p_.rate - 1e-9)) + p_.overhead;
  }
  void drive_reads() {
    top_->m_axi_fetch_arready = 0;
    top_->m_axi_load_arready = 0;
    top_->m_axi_compute_arready = 0;
    top_->m_axi_fetch_rvalid = 0;
    top_->m_axi_load_rvalid = 0;
    top_->m_axi_compute_rvalid = 0;
    // Address channel: one request a cycle, round-robin, while the port has room.
    ar_pick_ = -1;
    if (reads_.size() < p_.read_accept) {
      top_->eval();  // the masters' arvalid for this cycle
      for (int k = 0; k < 3; ++k) {
        const int m = (ar_next_ + k) % 3;
        if (arvalid(m)) {
          ar_pick_ = m;
          break;
        }
      }
      if (ar_pick_ == 0) top_->m_axi_fetch_arready = 1;
      if (ar_pick_ == 1) top_->m_axi_load_arready = 1;
      if (ar_pick_ == 2) top_->m_axi_compute_arready = 1;
    }
    // Data channel: the oldest burst, in order.
    r_valid_ = false;
    if (!reads_.empty()) {
      ReadBurst& b = reads_.front();
      if (b.sent == 0 && b.start == 0) b.start = std::max(b.accepted + p_.latency, r_free_);
      if (now_ >= beat_due(b.start, b.sent)) {
        r_valid_ = true;
        mem_.read(b.addr + b.sent * p_.bus, beat_buf_.data(), p_.bus);
        const bool last = b.sent + 1 == b.beats;
        switch (b.master) {
          case 0:
            top_->m_axi_fetch_rvalid = 1;
            top_->m_axi_fetch_rlast = last;
            set_bytes(top_->m_axi_fetch_rdata, beat_buf_.data(), p_.bus);
            break;
          case 1:
            top_->m_axi_load_rvalid = 1;
            top_->m_axi_load_rlast = last;
            set_bytes(top_->m_axi_load_rdata, beat_buf_.data(), p_.bus);
            break;
          default:
            top_->m_axi_compute_rvalid = 1;
            top_->m_axi_compute_rlast = last;
            set_bytes(top_->m_axi_compute_rdata, beat_buf_.data(), p_.bus);
        }
      }
    }
  }
  bool arvalid(int m) const {
    return m == 0 ? top_->m_axi_fetch_arvalid : m == 1 ? top_->m_axi_load_arvalid : top_->m_axi_compute_arvalid;
  }
  void sample_reads() {
    if (ar_pick_ >= 0) {
      ReadBurst b{ar_pick_, 0, 0, now_};
      if (ar_pick_ == 0) b.addr = top_->m_axi_fetch_araddr, b.beats = top_->m_axi_fetch_arlen + 1u;
      if (ar_pick_ == 1) b.addr = top_->m_axi_load_araddr, b.beats = top_->m_axi_load_arlen + 1u;
      if (ar_pick_ == 2) b.addr = top_->m_axi_compute_araddr, b.beats = top_->m_axi_compute_arlen + 1u;
      reads_.push_back(b);
      ar_next_ = (ar_pick_ + 1) % 3;
    }
    if (r_valid_) {
      ReadBurst& b = reads_.front();
      const bool ready = b.master == 0 ? top_->m_axi_fetch_rready
                         : b.master == 1 ? top_->m_axi_load_rready
                                         : top_->m_axi_compute_rready;
      if (ready && ++b.sent == b.beats) {
        r_free_ = std::max(now_ + 1, b.start + occupancy(b.beats));
        reads_.pop_front();
      }
    }
  }

  // --- writes ---
  void drive_writes() {
    top_->m_axi_store_awready = writes_.size() + responses_.size() < p_.write_accept;
    top_->m_axi_store_wready = 0;
    w_open_ = false;
    if (!writes_.empty()) {
      WriteBurst& b = writes_.front();
      if (b.sent == 0 && b.start == 0) b.start = std::max(b.accepted, w_free_);
      if (now_ >= beat_due(b.start, b.sent)) {
        top_->m_axi_store_wready = 1;
        w_open_ = true;
      }
    }
    top_->m_axi_store_bvalid = !responses_.empty() && responses_.front() <= now_;
  }
  void sample_writes() {
    if (top_->m_axi_store_awvalid && top_->m_axi_store_awready) {
      writes_.push_back({top_->m_axi_store_awaddr, top_->m_axi_store_awlen + 1u, now_});
    }
    if (w_open_ && top_->m_axi_store_wvalid) {
      WriteBurst& b = writes_.front();
      get_bytes(top_->m_axi_store_wdata, beat_buf_.data(), p_.bus);
      const uint64_t base = b.addr + b.sent * p_.bus;
      for (uint64_t i = 0; i < p_.bus; ++i) {
        if (strobe_bit(i)) mem_.write(base + i, &beat_buf_[i], 1);
      }
      if (++b.sent == b.beats) {
        const uint64_t done = std::max(now_ + 1, b.start + occupancy(b.beats));
        w_free_ = done;
        // The response's handshake is the cycle before the write completes (as for read data).
        responses_.push_back(done + p_.write_latency - 1);
        writes_.pop_front();
      }
    }
    if (top_->m_axi_store_bvalid && top_->m_axi_store_bready) responses_.pop_front();
  }
  bool strobe_bit(uint64_t i) const { return bit_of(top_->m_axi_store_wstrb, i); }

  Params p_;
  VerilatedContext ctx_;
  std::unique_ptr<Vtauvta_accelerator> top_;
  Memory mem_;
  std::vector<uint8_t> beat_buf_;
  uint64_t now_ = 0;
  std::deque<ReadBurst> reads_;
  int ar_next_ = 0, ar_pick_ = -1;
  bool r_valid_ = false, w_open_ = false;
  uint64_t r_free_ = 0, w_free_ = 0;
  std::deque<WriteBurst> writes_;
  std::deque<uint64_t> responses_;
};

bool read_exact(void* p, size_t n) { return std::fread(p, 1, n, stdin) == n; }
template <class T>
T get() {
  T v{};
  if (!read_exact(&v, sizeof v)) std::exit(2);
  return v;
}
void put(const void* p, size_t n) { std::fwrite(p, 1, n, stdout); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr, "usage: accel_harness BUS_BYTES RATE LATENCY WRITE_LATENCY READ_ACC WRITE_ACC OVERHEAD\n");
    return 2;
  }
  Params p;
  p.bus = std::strtoull(argv[1], nullptr, 10);
  p.rate = std::strtod(argv[2], nullptr);
  p.latency = std::strtoull(argv[3], nullptr, 10);
  p.write_latency = std::strtoull(argv[4], nullptr, 10);
  p.read_accept = std::strtoull(argv[5], nullptr, 10);
  p.write_accept = std::strtoull(argv[6], nullptr, 10);
  p.overhead = std::strtoull(argv[7], nullptr, 10);
  Board board(p);
  std::vector<uint8_t> buf;
  for (int cmd; (cmd = std::fgetc(stdin)) != EOF;) {
    if (cmd == 'W') {
      const uint64_t addr = get<uint64_t>(), len = get<uint64_t>();
      buf.resize(len);
      if (!read_exact(buf.data(), len)) return 2;
      board.memory().write(addr, buf.data(), len);
    } else if (cmd == 'R') {
      const uint64_t addr = get<uint64_t>(), len = get<uint64_t>();
      buf.resize(len);
      board.memory().read(addr, buf.data(), len);
      put(buf.data(), len);
      std::fflush(stdout);
    } else if (cmd == 'X') {
      const uint64_t addr = get<uint64_t>();
      const uint32_t count = get<uint32_t>();
      const uint64_t max_cycles = get<uint64_t>();
      const uint32_t status = board.run(addr, count, max_cycles) ? 0 : 1;
      put(&status, 4);
      const uint64_t n = kCounters;
      put(&n, 8);
      for (int k = 0; k < kCounters; ++k) {
        const uint64_t c = status == 0 ? board.counter(k) : 0;
        put(&c, 8);
      }
      std::fflush(stdout);
    } else if (cmd == 'Q') {
      return 0;
    } else {
      std::fprintf(stderr, "accel_harness: unknown command %d\n", cmd);
      return 2;
    }
  }
  return 0;
}
