#include "hw/bitstreams.h"

#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "hw/hw_config.h"

namespace tauvta::hw {

namespace {

// The table, declared once.
constexpr Bitstream kBitstreams[] = {
    {"pynq-1x16-2019-08-slow-alu", "pynq_1x16_i8w8a32_15_15_18_17", "2019-08-01", "2019-08-31",
     R"({"ALU_II": 18})",
     "TopHub vta_v0.10 records measured on 2019-08-09 (tests/data/calibration lines 11-21, "
     "ResNet-50 layers on 1x16): ten of eleven ran 9-83% slower than the HLS design's timing, "
     "compute-bound 3x3 layers included, and the excess over the model divided by the layer's "
     "tensor ALU micro-ops is 12.5-18.4 cycles for ten of them (an ALU initiation interval near "
     "18, as a tensor ALU loop that is not pipelined has, instead of the HLS design's 2). Line 21 "
     "is line 2's workload and schedule: 8.35 ms in August against 7.35 ms in July 2019. The "
     "July 2019 records of the same config fit ALU_II 2 (line 7: 50,176 ALU micro-ops, 0.9% off). "
     "VTA's first HLS source (vta.cc, 2018) has such an ALU: its lane loop is pipelined one lane a "
     "cycle (PIPELINE II=1 over BLOCK_OUT), 16 cycles per micro-op on 1x16 plus the loop's fill."},
    {"pynq-4x8-2019-full-rate-port", "pynq_4x8_i8w8a32_15_16_16_18", "2019-07-01", "2019-12-31",
     R"({"DRAM_BANDWIDTH_GBPS": 0.8})",
     "The sustained port rate of the presets (0.40 GB/s, 4 bytes a cycle) was fitted on 1x16 "
     "records; this bitstream's loads ran faster than it allows. Line 30 (4x8, 1x1 stride 2, "
     "917 KB of weights, 186 KB of inputs, 100 KB of outputs) finished in 275,500 cycles: its "
     "reads alone ran at 4.0 bytes a cycle over the whole layer, the fitted rate with no latency "
     "gap at all (the model at 0.40: +58.9%). 0.8 GB/s is not fitted: it is the Zynq-7000 "
     "ACP's full width, 64 bits a cycle at 100 MHz (UG585). VTA's 2019 HLS sources typed the load "
     "module's data port by one tensor row (BLOCK_IN x 8 bits): 64 bits on 4x8, as wide as the "
     "ACP, and 128 bits on 1x16, which the interconnect narrows to the ACP's 64 with a width "
     "converter that splits each 16-beat burst in two; the 1x16 records are what the fitted rate "
     "describes (why the converter path sustains half the port's width is not established). At "
     "0.8 GB/s all ten 4x8 records (lines 22-31, measured 2019-07-30) are within "
     "7.4% of the board, line 30 at +7.1%; six of the other nine move by under a point between "
     "0.40 and 0.8 (compute-bound)."},
};

// The board configs TopHub's VTA records ran (their -model= names), declared once.
constexpr BoardConfig kBoardConfigs[] = {
    {"pynq_1x16_i8w8a32_15_15_18_17",
     "VTA's default vta_config.json of 2019 (LOG_BATCH 0, LOG_BLOCK 4, LOG_UOP/INP/WGT/ACC_BUFF_SIZE "
     "15/15/18/17); TopHub's vta_v0.10 1x16 records name it (tests/data/calibration lines 1-21)"},
    {"pynq_4x8_i8w8a32_15_16_16_18",
     "TopHub's vta_v0.10 4x8 records name it (tests/data/calibration lines 22-31)"},
};

// Unix seconds at 00:00 UTC of a YYYY-MM-DD date.
double day_start(const char* date) {
  int y = 0;
  unsigned m = 0, d = 0;
  std::sscanf(date, "%d-%u-%u", &y, &m, &d);
  const std::chrono::sys_days day{std::chrono::year{y} / std::chrono::month{m} / std::chrono::day{d}};
  return double(std::chrono::duration_cast<std::chrono::seconds>(day.time_since_epoch()).count());
}

}  // namespace

const Bitstream* bitstream_of(const std::string& model, double timestamp) {
  for (const Bitstream& b : kBitstreams) {
    if (model == b.config && timestamp >= day_start(b.measured_from) &&
        timestamp < day_start(b.measured_to) + 86400) {
      return &b;
    }
  }
  return nullptr;
}

const BoardConfig* board_config_with_shape(const std::string& model, int batch, int block_in, int block_out) {
  const HwConfig of = HwConfig::from_name(model);
  for (const BoardConfig& b : kBoardConfigs) {
    const HwConfig c = HwConfig::from_name(b.model);
    if (c.target == of.target && c.inp_width() == of.inp_width() && c.wgt_width() == of.wgt_width() &&
        c.acc_width() == of.acc_width() && c.batch() == batch && c.block_in() == block_in &&
        c.block_out() == block_out) {
      return &b;
    }
  }
  return nullptr;
}

nlohmann::json bitstream_timing(const Bitstream& b) { return nlohmann::json::parse(b.timing); }

nlohmann::json to_json(const Bitstream& b) {
  return {{"name", b.name},
          {"config", b.config},
          {"measured_from", b.measured_from},
          {"measured_to", b.measured_to},
          {"timing", bitstream_timing(b)},
          {"evidence", b.evidence}};
}

}  // namespace tauvta::hw
