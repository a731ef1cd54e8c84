// Board bitstreams of VTA whose measured behaviour differs from the HLS design the presets model
// (docs/timing_model.md, "Bitstreams"). Each names the VTA config it was built for, the dates
// its board records were measured, the TIMING values where its hardware differs, and the
// evidence for each value. `tauvta op --log` times every record with the bitstream it was
// measured on, so records of a different hardware are not read as errors of the memory model.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace tauvta::hw {

struct Bitstream {
  const char* name;
  const char* config;         // the -model= value of its records, e.g. pynq_1x16_i8w8a32_15_15_18_17
  const char* measured_from;  // UTC dates, inclusive (YYYY-MM-DD): when its records were measured
  const char* measured_to;
  const char* timing;         // a JSON object of the TIMING values that differ
  const char* evidence;       // what shows each value, with the records it comes from
};

// The bitstream a board record of `model` measured at `timestamp` (Unix seconds) ran; null when
// it ran the design the presets model.
const Bitstream* bitstream_of(const std::string& model, double timestamp);

// A config VTA's boards ran (the -model= name of its records) and what shows it.
struct BoardConfig {
  const char* model;
  const char* evidence;
};

// The board config of `model`'s target and widths whose GEMM core has the shape
// batch x block_in -> block_out (null when no known board has one). A record whose tensors
// are blocked for another shape than its -model= config (TopHub's 4x8 logs hold dense tasks
// blocked 1x16) ran on such a board: TVM tensorizes a task with its environment's GEMM shape, so
// a program of 1x16 blocks runs only on a 1x16 core. The known board configs are declared once,
// each with the evidence that boards ran it.
const BoardConfig* board_config_with_shape(const std::string& model, int batch, int block_in, int block_out);

// The TIMING values of `b` as JSON, and the whole entry for reports.
nlohmann::json bitstream_timing(const Bitstream& b);
nlohmann::json to_json(const Bitstream& b);

}  // namespace tauvta::hw
