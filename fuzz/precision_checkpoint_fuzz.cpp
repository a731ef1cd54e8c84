// Precision-tuning checkpoints (precision::read_checkpoint, what `tauvta precision tune` resumes
// from): JSON, the header compared with the run's (default config, OTune defaults, the start
// formats below), then the evaluations. Seeds carry the matching header, so mutations reach the
// evaluation parser.
#include <nlohmann/json.hpp>

#include "fuzz_target.h"
#include "hw/hw_config.h"
#include "precision/tuner.h"

TAUVTA_FUZZ_TARGET(precision_checkpoint) {
  using namespace tauvta;
  static const precision::Formats start = {{"input", 4}, {"conv1", 3}, {"output", 5}};
  static const nlohmann::json header = precision::checkpoint_header(hw::HwConfig{}, start, {});
  const fuzz::TempFile in(data, size, ".checkpoint.json");
  const std::vector<precision::Evaluation> evals = precision::read_checkpoint(in.path(), header, 0.0);
  for (const precision::Evaluation& e : evals) (void)e.max_overflow_rate();
}
