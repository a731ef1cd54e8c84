// Tuning records in AutoTVM's JSON-lines log format, as TVM's TopHub logs for VTA write them:
//   {"input": [TARGET, TASK, ARGS, {}], "config": {"index": I, "entity": [[knob, kind, value]...]},
//    "result": [[seconds...], error_no, all_cost, timestamp], ...}
// for the tasks conv2d_packed.vta, dense_packed.vta, group_conv2d_packed.vta and
// conv2d_transpose_packed.vta. TARGET names the hardware ("... -model=pynq_1x16_i8w8a32_15_15_18_17"),
// ARGS the workload in VTA's blocked shapes (data [N/BATCH, C/BLOCK_IN, H, W, BATCH, BLOCK_IN]),
// which this module turns into the unblocked ConvWorkload the compiler keys schedules by. The
// measured seconds are kept as they are: they rank records of one workload, and they are an
// independent check of the timing model, never an input to it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "hw/hw_config.h"
#include "lower/schedule.h"
#include "lower/workload.h"

namespace tauvta::lower {

// AutoTVM's MeasureErrorNo values tauvta writes or reads (result[1] of a record).
enum MeasureErrorNo : int {
  kNoError = 0,
  kInstantiationError = 1,  // the knobs are illegal for the workload
  kCompileDeviceError = 3,  // lowering failed
  kRuntimeDeviceError = 4,  // the timing model or simulator failed
  kWrongAnswer = 5,         // the functional run differs from the integer reference: never apply it
  kRunTimeout = 7,          // timing stopped: already slower than the best so far
};

struct TuningRecord {
  std::string target;   // the whole target string
  std::string model;    // its -model= value: the VTA config name, e.g. pynq_1x16_i8w8a32_15_15_18_17
  ConvWorkload workload;  // workload.kind is the task
  Schedule schedule;
  int64_t config_index = -1;
  std::vector<double> costs;  // measured seconds (empty for a failed measurement)
  int64_t error_no = 0;       // 0: measured successfully
  double timestamp = 0;
  int64_t line = 0;           // 1-based line in its log (0 when not from a file)
  // The blocking of the record's tensors (data BATCH and BLOCK_IN, kernel BLOCK_OUT): the knobs
  // count blocks of these.
  int64_t block_batch = 1, block_in = 1, block_out = 1;
};

// The record's hardware name without a target prefix ("1x16_i8w8a32_15_15_18_17"): what
// HwConfig::name() returns for the config it was tuned on.
std::string record_config_name(const TuningRecord& r);

// Whether the record's tensors are blocked as `c` blocks them (otherwise its knobs count other
// blocks and do not apply to `c`).
bool record_blocking_matches(const TuningRecord& r, const hw::HwConfig& c);

// The record's knobs as they apply on `c`: tile sizes rescaled to c's blocks when the record's
// tensors are blocked otherwise (TopHub has a dense blocked 1x16 under a 4x8 target; the tile
// keeps its size in elements), then outer factors derived as AutoTVM does
// (with_derived_outers). `notes` says what changed. Throws naming the knob when a tile does not
// rescale to whole blocks.
Schedule record_schedule(const TuningRecord& r, const hw::HwConfig& c, std::vector<std::string>* notes);

// What TVM's VTA template for a record's task ran on the board, when it is not the operator as
// tauvta lowers it; nullopt otherwise. conv2d_transpose_packed (TVM's
// vta/python/vta/top/vta_conv2d_transpose.py) dilates the input by the stride (stride - 1 zeros
// between elements), pads it by kernel - 1 - pad (plus the output padding) and runs a stride-1
// convolution over it: the same output, but stride_h * stride_w times the multiply-accumulates of
// tauvta's per-phase lowering, and the dilated input to load. The record's knobs tile that
// convolution's output, which is the operator's.
std::optional<ConvWorkload> tvm_template_workload(const ConvWorkload& w);
// The record as its template ran (a note in `notes` for each change): the workload of
// tvm_template_workload when it differs, and one batch block per tile (TVM's templates compute
// every batch block in its own pass; time it with the weight tile reloaded per batch block,
// ConvLayerSpec::weights_per_batch_block). What `op --record` and `op --log` time against its
// board time.
TuningRecord record_as_run(const TuningRecord& r, std::vector<std::string>* notes);

// Mean measured seconds; +infinity for a failed or empty measurement (never the best).
double record_seconds(const TuningRecord& r);

// Parses one record. Returns nullopt for a well-formed record of another target or task (TopHub
// logs mix in arm_cpu records); throws tauvta::Error naming `source`:`line` and the field for a
// malformed VTA record.
std::optional<TuningRecord> parse_tuning_record(const nlohmann::json& j, const std::string& source,
                                                int64_t line);

struct TuningLog {
  std::vector<TuningRecord> records;  // the VTA records, in file order
  int64_t other_records = 0;          // records of other targets or tasks, skipped
  int64_t comment_lines = 0;          // '#' lines
};

// Reads a log; throws naming the file and line of the first malformed line.
TuningLog read_tuning_log(const std::filesystem::path& path);

// Writes one record in the same format (the tuner's log; TVM reads it back): target
// "ext_dev -device=vta -keys=cpu -model=<target>_<config name>", the task and its blocked args.
// A workload whose channels are not whole blocks is written with its blocked sizes rounded up
// and its exact sizes in an extra "tauvta_workload" key (TVM ignores it; parse_tuning_record
// reads it back).
nlohmann::json tuning_record_json(const hw::HwConfig& c, const ConvWorkload& w, const Schedule& s,
                                  const std::vector<double>& costs, int64_t error_no = 0,
                                  double timestamp = 0, int64_t config_index = -1);

}  // namespace tauvta::lower
