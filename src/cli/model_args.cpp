#include "cli/model_args.h"

namespace tauvta::cli {

void add_model_args(CLI::App* cmd, model::ModelSource& a, bool model_required) {
  CLI::Option* model = cmd->add_option("model", a.model, "ONNX model file (or a compiled .tauvta where accepted)");
  if (model_required) model->required();
  cmd->add_option("--config", a.config, "Hardware config JSON whose widths --int targets (default: built-in pynq)");
  cmd->add_option("--calibrate", a.calibrate,
                  "Calibration data: a directory of .npy files, a .npy file or an IDX image file "
                  "(default: synthetic inputs, with a warning)");
  cmd->add_option("--calib-stat", a.calib_stat, "Activation binary points from: max, percentile or mse")
      ->check(CLI::IsMember({"max", "percentile", "mse"}));
  cmd->add_option("--percentile", a.percentile, "Percentile of |x| for --calib-stat percentile (default 99.99)");
  cmd->add_option("--weight-stat", a.weight_stat, "Weight binary points from: max or mse (default mse)")
      ->check(CLI::IsMember({"max", "mse"}));
  cmd->add_flag("--per-channel", a.per_channel, "One weight binary point (and shift) per output channel");
  cmd->add_option("--calib-samples", a.calib_samples, "Calibration samples used at most (default 512)");
  cmd->add_option("--dump-passes", a.dump_passes, "Write the graph after each pass to DIR/NN-<pass>.txt");
  cmd->add_flag("--force", a.force, "Overwrite existing output files");
  cmd->add_option("--max-tensor-mib", a.max_tensor_mib,
                  "Refuse models whose tensors would exceed this many MiB (default 4096)");
}

}  // namespace tauvta::cli
