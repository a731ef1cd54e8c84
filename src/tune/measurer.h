// Measurement of candidate schedules: each is lowered (no weights) and timed by the timing model
// on a pool of worker threads, each with its own ProgramTimer, so a batch uses every core. A
// candidate that is illegal or fails to lower or time becomes a result with AutoTVM's error_no,
// never an exception. Functional verification (verify_schedule) runs the candidate bit-exact
// against the integer reference on random data.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hw/hw_config.h"
#include "lower/conv_lowering.h"
#include "lower/tuning_record.h"

namespace tauvta::tune {

// AutoTVM's MeasureErrorNo values, declared with the tuning records.
using lower::kCompileDeviceError;
using lower::kInstantiationError;
using lower::kNoError;
using lower::kRunTimeout;
using lower::kRuntimeDeviceError;
using lower::kWrongAnswer;

struct Measurement {
  uint64_t cycles = 0;
  double seconds = 0;  // at the config's clock
  double gops = 0;
  uint64_t insns = 0;
  // The candidate's GEMM and ALU micro-ops alone (sim::RunReport::compute_floor_cycles) and the
  // GOPS they allow: the same for every schedule of a task, the ceiling tuning works against.
  uint64_t floor_cycles = 0;
  double ceiling_gops = 0;
  int error_no = kNoError;
  std::string error;
  double wall_seconds = 0;  // lowering and timing, on the worker
  bool ok() const { return error_no == kNoError; }
};

class Measurer {
 public:
  // threads <= 0: every core.
  Measurer(const hw::HwConfig& c, int threads);
  ~Measurer();
  Measurer(const Measurer&) = delete;
  Measurer& operator=(const Measurer&) = delete;

  int threads() const;
  const hw::HwConfig& config() const;
  // One result per schedule, in order. A candidate still running past `cycle_limit` cycles is
  // stopped there and recorded as AutoTVM's RUN_TIMEOUT: it cannot beat a best of that many
  // cycles, and the slowest candidates are the costliest to time.
  std::vector<Measurement> measure(const lower::ConvLayerSpec& spec, std::span<const lower::Schedule> schedules,
                                   uint64_t cycle_limit = UINT64_MAX);

 private:
  struct Pool;
  std::unique_ptr<Pool> pool_;
};

// Runs `s` functionally on random data of `seed` (a bias when the task's layer has per-channel
// vectors) and compares with the integer reference; returns the first mismatch or error, empty
// when bit-exact. A fused add's epilogue is not part of the check (the network tests cover it).
std::string verify_schedule(const hw::HwConfig& c, const lower::ConvLayerSpec& spec, const lower::Schedule& s,
                            uint64_t seed);

}  // namespace tauvta::tune
