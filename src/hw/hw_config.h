// HwConfig: one VTA hardware variant. Holds the keys of VTA's vta_config.json (all log2) plus the
// timing parameters tauvta adds, validates them against what VTA can encode, and derives every
// size the ISA, the simulator and the runtime need (element bytes, buffer depths, field widths).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "hw/implementation.h"

namespace tauvta::hw {

// Timing parameters: tauvta extensions, read from an optional "TIMING" object in the JSON.
// Defaults describe a Pynq-Z1 board; docs/hw_config.md explains each one.
struct TimingParams {
  double clock_mhz = 100.0;          // fabric clock
  int log_bus_width = 6;             // AXI data bus, log2 of bits (6 = 64-bit, Pynq)
  // The memory side (src/sim/memory_system.h; docs/timing_model.md gives each one's source).
  // Latencies and the sustained bandwidth are fitted to Pynq-Z1 board measurements
  // (tools/calibrate/fit_board.py); the limits come from HLS's and the Zynq TRM's documentation.
  int dram_latency_cycles = 75;      // read: cycles from a burst request to its first data beat
  int write_latency_cycles = 75;     // write: cycles from a burst's last data beat to its response
  double dram_bandwidth_gbps = 0.4;  // sustained GB/s at the port; a cycle moves min(bus, this) bytes
  int max_burst_beats = 16;          // an AXI burst's beats at most (HLS m_axi default; AXI3 limit)
  int master_outstanding = 16;       // bursts one m_axi master keeps in flight (HLS default)
  int port_read_acceptance = 7;      // reads the PS port accepts in flight (Zynq-7000 ACP)
  int port_write_acceptance = 3;     // writes the PS port accepts in flight (Zynq-7000 ACP)
  int burst_overhead_cycles = 0;     // port cycles every burst costs besides its beats
  int row_overhead_cycles = 0;       // cycles a memcpy row spends before its first request
  int cmd_queue_depth = 8;           // fetch -> load/compute/store command queues
  int token_queue_depth = 8;         // each dependency token queue
  // The datapath's cycles. When a config file leaves them out they follow from its
  // IMPLEMENTATION (hw/implementation.h: datapath_timing); stated, they may be slower than the
  // datapath (a measured bitstream, a what-if) but never faster. The defaults are VTA's HLS design.
  int alu_ii = 2;                    // tensor ALU initiation interval (cycles per pass)
  int gemm_ii = 1;                   // GEMM initiation interval (cycles per micro-op)
  int gemm_pipeline_depth = 4;       // GEMM fill/drain cycles per instruction
  int alu_pipeline_depth = 4;        // ALU fill/drain cycles per instruction
  int insn_overhead_cycles = 1;      // cycles every instruction spends being issued in its module
};

// What VTA's HLS design measures as its pipelines' fill/drain: a config that states no depth gets
// this, or its datapath's latency when that is longer.
inline constexpr int kHlsPipelineDepth = 4;

struct HwConfig {
  std::string target = "pynq";  // the built-in default is VTA's Pynq-Z1 configuration
  std::string hw_ver = "0.0.2";
  int log_inp_width = 3;
  int log_wgt_width = 3;
  int log_acc_width = 5;
  int log_batch = 0;
  int log_block_in = 4;
  int log_block_out = 4;
  int log_uop_buff_size = 15;
  int log_inp_buff_size = 15;
  int log_wgt_buff_size = 18;
  int log_acc_buff_size = 17;
  TimingParams timing;
  Implementation impl;  // how it is built: the "IMPLEMENTATION" object

  // Parse VTA's vta_config.json form (plus optional "TIMING" and "IMPLEMENTATION" objects), derive
  // the TIMING keys it leaves out from the implementation, and validate. `source` names
  // the input in error messages. Throws tauvta::Error naming the key, value and allowed range.
  static HwConfig from_json(const nlohmann::json& j, const std::string& source = "config");
  static HwConfig load(const std::filesystem::path& path);
  // From VTA's configuration name, e.g. "1x16_i8w8a32_15_15_18_17", "1x16x32_..." (BLOCK_IN x
  // BLOCK_OUT) or with a target prefix "pynq_1x16_...": every vta_config.json key comes from the
  // name, timing from the built-in Pynq defaults. Throws naming the malformed part.
  static HwConfig from_name(const std::string& name);
  nlohmann::json to_json() const;  // fully resolved; from_json(to_json()) == *this
  // This config with the keys of a TIMING object `t` replaced (the rest kept), validated.
  // Keys of `t` faster than the implementation's datapath are refused.
  HwConfig with_timing(const nlohmann::json& t, const std::string& source = "TIMING") const;
  // This config built as `impl`, with the TIMING keys that follow from it derived anew.
  HwConfig with_implementation(const Implementation& built_as, const std::string& source = "IMPLEMENTATION") const;
  void validate(const std::string& source = "config") const;

  // Bits per value. The output buffer holds values of the input's width.
  int inp_width() const { return 1 << log_inp_width; }
  int wgt_width() const { return 1 << log_wgt_width; }
  int acc_width() const { return 1 << log_acc_width; }
  int out_width() const { return inp_width(); }
  int batch() const { return 1 << log_batch; }
  int block_in() const { return 1 << log_block_in; }
  int block_out() const { return 1 << log_block_out; }

  // Bytes per element of each memory type (docs/vta_isa.md section 1).
  int uop_elem_bytes() const { return 4; }
  int inp_elem_bytes() const { return (batch() * block_in() * inp_width()) / 8; }
  int wgt_elem_bytes() const { return (block_out() * block_in() * wgt_width()) / 8; }
  int acc_elem_bytes() const { return (batch() * block_out() * acc_width()) / 8; }
  int out_elem_bytes() const { return (batch() * block_out() * out_width()) / 8; }

  // log2 of buffer depths in elements; these set the instruction field widths.
  int log_uop_depth() const { return log_uop_buff_size - 2; }
  int log_inp_depth() const {
    return log_inp_buff_size - (log_batch + log_block_in + log_inp_width - 3);
  }
  int log_wgt_depth() const {
    return log_wgt_buff_size - (log_block_out + log_block_in + log_wgt_width - 3);
  }
  int log_acc_depth() const {
    return log_acc_buff_size - (log_batch + log_block_out + log_acc_width - 3);
  }
  uint32_t uop_depth() const { return 1u << log_uop_depth(); }
  uint32_t inp_depth() const { return 1u << log_inp_depth(); }
  uint32_t wgt_depth() const { return 1u << log_wgt_depth(); }
  uint32_t acc_depth() const { return 1u << log_acc_depth(); }
  uint32_t out_depth() const { return acc_depth(); }

  int bus_bytes() const { return (1 << timing.log_bus_width) / 8; }
  // Bytes the DRAM channel moves per cycle: the bus width, capped by the DRAM bandwidth.
  double dram_bytes_per_cycle() const;
  uint64_t macs_per_cycle() const { return uint64_t(batch()) * block_in() * block_out(); }
  // The DRAM port's bandwidth in GB/s at the clock (the roofline's bandwidth roof).
  double dram_gbps() const { return dram_bytes_per_cycle() * timing.clock_mhz * 1e6 / 1e9; }
  double peak_gops() const { return 2.0 * double(macs_per_cycle()) * timing.clock_mhz / 1000.0; }
  // Operations (2 per MAC) per second, in GOPS, of `macs` MACs taking `cycles` cycles at this
  // config's clock; 0 for no cycles.
  double gops(uint64_t macs, uint64_t cycles) const {
    return cycles ? 2.0 * double(macs) / (double(cycles) / (timing.clock_mhz * 1e6)) / 1e9 : 0.0;
  }

  // VTA's configuration name, e.g. "1x16_i8w8a32_15_15_18_17" ("1x16x32_..." when
  // BLOCK_IN != BLOCK_OUT).
  std::string name() const;
};

bool operator==(const TimingParams& a, const TimingParams& b);
bool operator==(const HwConfig& a, const HwConfig& b);

}  // namespace tauvta::hw
