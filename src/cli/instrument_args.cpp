#include "cli/instrument_args.h"

namespace tauvta::cli {

void add_instrument_args(CLI::App* cmd, backend::InstrumentOptions& a) {
  cmd->add_option("--instrument", a.specs,
                  "Accelerator: observe the cast of every (or the named) layer: KINDS[:LAYER,...] with KINDS from "
                  "overflow, histogram, sparsity, stats, trace, all; repeatable");
  cmd->add_option("--trace-out", a.trace_out, "Write the instruments' JSON, CSVs and .npy maps to DIR");
  cmd->add_option("--hist-bins", a.settings.histogram_bins, "Histogram bins (default 64)")->check(CLI::Range(1, 65536));
  cmd->add_option("--zero-threshold", a.settings.zero_threshold, "Sparsity: |output| at most this counts as zero (default 0)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--trace-capacity", a.settings.trace_capacity, "Events the shared trace buffer keeps (default 65536)");
}

}  // namespace tauvta::cli
