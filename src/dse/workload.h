// What the exploration optimizes for: a model (imported, calibrated and quantized once per
// precision) or one convolution workload (--workload SPEC, TVM's task of it). Per design it gives
// the conv/dense tasks the design runs (tune::TuneTask, no weights), each with the number of the
// model's layers that share it: the design's time is the sum of its tasks' cycles times their
// layers. Tasks depend on the precision, accumulator, BATCH and the blocking (input folding,
// channel padding), not on the buffers or the implementation, so they are extracted once per such
// class, from a compile on the class's host config (DesignSpace::task_host: the largest buffers the
// space offers). Thread-safe: workers ask concurrently.
#pragma once

#include <cstdint>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hw/hw_config.h"
#include "lower/conv_lowering.h"
#include "model/pipeline.h"
#include "tune/task.h"

namespace tauvta::dse {

struct WorkloadTask {
  tune::TuneTask task;
  int64_t layers = 1;  // network layers sharing this workload
};

class DseWorkload {
 public:
  // A model: `options` holds the calibration settings (its config's widths are replaced per
  // precision). The file is read now, so a missing or malformed model fails before the search.
  DseWorkload(const std::filesystem::path& model, const model::LoadOptions& options);
  // One workload spec ("conv2d,ci=256,h=14,w=14,co=256,k=3,s=1,p=0").
  explicit DseWorkload(const std::string& spec);

  // A stable identity for the cache: the model's content hash and calibration settings, or the
  // spec.
  const std::string& id() const { return id_; }
  const std::string& label() const { return label_; }  // file name or spec, for tables
  int64_t batch() const { return batch_; }
  bool is_model() const { return !model_path_.empty(); }
  const std::filesystem::path& model_path() const { return model_path_; }

  // The tasks of the designs `host` stands for (its precision, accumulator, batch and blocking),
  // compiled once per host. Throws tauvta::Error naming the layer when the workload cannot be
  // placed whole on such a design.
  std::shared_ptr<const std::vector<WorkloadTask>> tasks(const hw::HwConfig& host);
  // The model quantized at `c`'s widths (loaded on first use).
  std::shared_ptr<const model::LoadedModel> loaded(const hw::HwConfig& c);

 private:
  std::filesystem::path model_path_;
  model::LoadOptions options_;
  std::optional<lower::ConvWorkload> spec_;
  std::string id_, label_;
  int64_t batch_ = 1;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const model::LoadedModel>> models_;
  std::map<std::string, std::shared_ptr<const std::vector<WorkloadTask>>> tasks_;
  std::map<std::string, std::string> task_errors_;
  // Quantization failures by widths, rethrown as they were (graph::ImportedWidthError included).
  std::map<std::string, std::exception_ptr> load_errors_;
};

}  // namespace tauvta::dse
