#include "cli/network_args.h"

#include <filesystem>

#include "common/source_dir.h"

namespace tauvta::cli {

void add_network_args(CLI::App* cmd, backend::NetworkRequest& a) {
  cmd->add_option("--tuning-log", a.tuning_log,
                  "AutoTVM/TopHub JSON-lines records: the best record per matching workload sets its schedule");
  cmd->add_option_function<int64_t>(
         "--batch", [&a](const int64_t& n) { a.batch = n; },
         "Batch size the program is compiled for (default: the batch the model's inputs declare; 1 when symbolic)")
      ->check(CLI::Range(1, 4096));
}

std::string default_model_path() {
  const std::filesystem::path here = "models/vgg7_fmnist.onnx";
  if (std::filesystem::exists(here)) return here.string();
  return (source_dir() / "models" / "vgg7_fmnist.onnx").string();
}

}  // namespace tauvta::cli
