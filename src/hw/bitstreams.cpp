#include "hw/bitstreams.h"

#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

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
     "July 2019 records of the same config fit ALU_II 2 (line 7: 50,176 ALU micro-ops, 0.9% off)."},
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
