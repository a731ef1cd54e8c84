// Tuning per-layer formats on the simulated accelerator. OTune's loop (its Algorithm 1): from
// the given formats, evaluate accuracy and every layer's overflow rate, keep the best objective
// seen (accuracy on the tuning split), move the binary point of every layer whose overflow rate
// is over the threshold one bit towards the integer side, and stop once every layer is under it.
// The search mode does coordinate descent over the slots' binary points for the best tuning-split
// accuracy. Evaluations are memoized by formats and written to a checkpoint after every one, so
// a stopped run replays its steps from the file and continues where it stopped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "precision/evaluator.h"

namespace tauvta::precision {

enum class TuneMode { kOTune, kSearch };
const char* tune_mode_name(TuneMode m);   // "otune", "search"
TuneMode parse_tune_mode(const std::string& s);

struct PrecisionTuneOptions {
  TuneMode mode = TuneMode::kOTune;
  double threshold = 1e-4;  // OTune: stop when every layer's overflow rate is at most this
  int limit = 64;           // evaluations at most (OTune steps, or search candidates)
  int radius = 2;           // search: binary point moves tried per slot, each way
  // Search: a move is kept only when it raises tuning-split accuracy by more than this. Two
  // candidates differ on a few dozen images of the split, so a gain of a handful of images is
  // within its noise and tends not to hold on held-out images.
  double min_gain = 0;
  int64_t tune_begin = 0, tune_count = 2000;  // the tuning (calibration) split of the dataset
  std::filesystem::path checkpoint;           // empty: none
  std::function<void(const std::string&)> progress;
};

struct TuneStep {
  int index = 0;
  std::string action;  // what changed from the step it came from
  Evaluation eval;
  bool replayed = false;  // read back from the checkpoint
};

struct PrecisionTuneResult {
  Formats start;
  std::vector<TuneStep> steps;
  size_t best = 0;                 // index into steps
  std::string stop_reason;
  int evaluations = 0, replayed = 0;
};

PrecisionTuneResult tune_precision(const PrecisionEvaluator& ev, const Formats& start, const PrecisionTuneOptions& o);

nlohmann::json evaluation_json(const Evaluation& e, const std::vector<FormatSlot>& slots, int bits);

// The checkpoint file: the header of the run that wrote it (mode, threshold, radius, min_gain,
// tuning split, config, start formats) and its evaluations. read_checkpoint returns the
// evaluations of a checkpoint whose header matches `header` (and `min_gain`); a checkpoint of
// another run or a malformed file is a tauvta::Error naming the file and the field.
nlohmann::json checkpoint_header(const hw::HwConfig& config, const Formats& start, const PrecisionTuneOptions& o);
std::vector<Evaluation> read_checkpoint(const std::filesystem::path& path, const nlohmann::json& header,
                                        double min_gain);

}  // namespace tauvta::precision
