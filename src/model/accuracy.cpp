#include "model/accuracy.h"

#include <chrono>
#include <memory>

#include <fmt/format.h>

#include "common/error.h"
#include "cpu/float_executor.h"
#include "model/samples.h"

namespace tauvta::model {

std::vector<int64_t> argmax_rows(const graph::Tensor& t) {
  if (t.rank() < 1 || t.shape().back() == 0) {
    throw Error(fmt::format("argmax: output {} has no classes", graph::shape_string(t.shape())));
  }
  const int64_t classes = t.shape().back(), rows = t.size() / classes;
  const std::vector<float> v = t.to_float();
  std::vector<int64_t> out(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    int64_t best = 0;
    for (int64_t c = 1; c < classes; ++c) {
      if (v[size_t(r * classes + c)] > v[size_t(r * classes + best)]) best = c;
    }
    out[size_t(r)] = best;
  }
  return out;
}

AccuracyResult evaluate_accuracy(const graph::Graph& g, const graph::Tensor& images, const graph::Tensor& labels,
                                 const AccuracyOptions& o) {
  if (g.inputs.size() != 1 || g.outputs.empty()) {
    throw Error(fmt::format("accuracy: model '{}' needs one input and an output (has {} inputs)", g.name,
                            g.inputs.size()));
  }
  if (images.rank() != 3 || labels.rank() != 1) {
    throw Error(fmt::format("accuracy: expected IDX images [N, rows, cols] and labels [N], got {} and {}",
                            graph::shape_string(images.shape()), graph::shape_string(labels.shape())));
  }
  // Counts that differ mean files that do not belong together (training images with test labels):
  // a --limit that stays within both would score images against other images' labels.
  if (labels.shape()[0] != images.shape()[0]) {
    throw Error(fmt::format("accuracy: {} labels for {} images: the label file is not the image file's", labels.shape()[0],
                            images.shape()[0]));
  }
  if (o.begin < 0 || o.begin > images.shape()[0]) {
    throw Error(fmt::format("accuracy: first image {} is outside the {} images", o.begin, images.shape()[0]));
  }
  const int64_t rest = images.shape()[0] - o.begin;
  const int64_t total = o.limit < 0 ? rest : std::min(o.limit, rest);
  const std::vector<int64_t> truth = labels.to_int64();
  std::unique_ptr<cpu::IntExecutor> exec;
  if (o.integer) exec = std::make_unique<cpu::IntExecutor>(g, o.int_options);
  AccuracyResult r;
  const auto t0 = std::chrono::steady_clock::now();
  const int64_t batch = std::max<int64_t>(o.batch, 1);
  for (int64_t first = 0; first < total; first += batch) {
    const int64_t n = std::min(batch, total - first);
    const cpu::TensorMap in = {{g.inputs[0], idx_batch(images, o.begin + first, n)}};
    const cpu::TensorMap out = o.integer ? exec->run(in) : cpu::run_float(g, in);
    const std::vector<int64_t> pred = argmax_rows(out.at(g.outputs[0]));
    if (int64_t(pred.size()) != n) {
      throw Error(fmt::format("accuracy: output '{}' has {} rows for a batch of {}", g.outputs[0], pred.size(), n));
    }
    for (int64_t i = 0; i < n; ++i) r.correct += pred[size_t(i)] == truth[size_t(o.begin + first + i)] ? 1 : 0;
    r.images += n;
    if (o.progress) o.progress(r.images, total);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.accuracy = r.images ? double(r.correct) / double(r.images) : 0.0;
  return r;
}

std::string accuracy_warning(double accuracy, int64_t classes, double reference) {
  if (classes > 1 && accuracy <= 1.5 / double(classes)) {
    return fmt::format("warning: top-1 accuracy {:.4f} is at chance level for {} classes ({:.4f}): the model does not "
                       "work as run (precision too narrow, or a wrong calibration or input)",
                       accuracy, classes, 1.0 / double(classes));
  }
  if (reference >= 0 && reference - accuracy > 0.10) {
    return fmt::format("warning: top-1 accuracy {:.4f} is {:.1f} points below the float model's {:.4f}", accuracy,
                       100 * (reference - accuracy), reference);
  }
  return "";
}

int64_t classifier_classes(const graph::Graph& g) {
  if (g.outputs.empty()) return 0;
  const auto* info = g.info(g.outputs[0]);
  if (!info || !info->known_shape || info->shape.empty()) return 0;
  return info->shape.back() > 0 ? info->shape.back() : 0;
}

}  // namespace tauvta::model
