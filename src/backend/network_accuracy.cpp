#include "backend/network_accuracy.h"

#include <chrono>

#include <fmt/format.h>

#include "common/error.h"
#include "cpu/float_executor.h"
#include "cpu/int_executor.h"
#include "model/accuracy.h"
#include "model/samples.h"

namespace tauvta::backend {

NetworkAccuracy evaluate_network_accuracy(const CompiledNetwork& net, const graph::Tensor& images,
                                          const graph::Tensor& labels, const NetworkAccuracyOptions& o) {
  if (images.rank() != 3) throw Error(fmt::format("images: expected IDX [N, rows, cols], got {}", graph::shape_string(images.shape())));
  if (labels.rank() != 1 || labels.shape()[0] != images.shape()[0]) {
    throw Error(fmt::format("labels: {} labels for {} images", labels.rank() == 1 ? labels.shape()[0] : -1, images.shape()[0]));
  }
  if (net.graph.inputs.size() != 1 || net.graph.outputs.empty()) throw Error("accuracy needs a model with one input");
  const std::string input = net.graph.inputs[0];
  const graph::ValueInfo* vi = net.graph.info(input);
  if (!vi || vi->shape.size() != 4 || vi->shape[2] != images.shape()[1] || vi->shape[3] != images.shape()[2]) {
    throw Error(fmt::format("the model's input {} does not take {}x{} images", vi ? graph::shape_string(vi->shape) : "?",
                            images.shape()[1], images.shape()[2]));
  }
  const int64_t batch = vi->shape[0];
  const int64_t total = o.limit >= 0 ? std::min(o.limit, images.shape()[0]) : images.shape()[0];
  const std::vector<int64_t> label = labels.to_int64();
  NetworkRunner runner(net);
  std::unique_ptr<cpu::IntExecutor> ref;
  if (o.check_reference) ref = std::make_unique<cpu::IntExecutor>(net.graph);
  NetworkRunOptions ro;
  ro.check_hazards = o.check_hazards;
  NetworkAccuracy r;
  const auto t0 = std::chrono::steady_clock::now();
  for (int64_t first = 0; first < total; first += batch) {
    const int64_t n = std::min(batch, total - first);
    graph::Tensor x = model::idx_batch(images, first, n);
    if (n < batch) {  // pad the last batch with zero images
      graph::Tensor padded(graph::DType::kFloat32, {batch, x.shape()[1], x.shape()[2], x.shape()[3]});
      std::copy(x.floats().begin(), x.floats().end(), padded.floats().begin());
      x = std::move(padded);
    }
    cpu::TensorMap in{{input, x}};
    NetworkRun run = runner.run(in, ro);
    const graph::Tensor& out = run.outputs.at(net.graph.outputs[0]);
    const std::vector<int64_t> pred = model::argmax_rows(out);
    std::vector<int64_t> int_pred, float_pred;
    if (ref) {
      const cpu::TensorMap want = ref->run(in);
      const graph::Tensor& w = want.at(net.graph.outputs[0]);
      int_pred = model::argmax_rows(w);
      const std::vector<float> a = out.to_float(), b = w.to_float();
      const int64_t row = out.size() / batch;
      for (int64_t i = 0; i < n; ++i) {
        if (!std::equal(a.begin() + i * row, a.begin() + (i + 1) * row, b.begin() + i * row)) ++r.mismatched_images;
      }
    }
    if (o.float_graph) float_pred = model::argmax_rows(cpu::run_float(*o.float_graph, in).at(o.float_graph->outputs[0]));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t y = label[size_t(first + i)];
      r.correct += pred[size_t(i)] == y;
      if (!int_pred.empty()) r.int_correct += int_pred[size_t(i)] == y;
      if (!float_pred.empty()) r.float_correct += float_pred[size_t(i)] == y;
    }
    r.images += n;
    r.last_batch = std::move(run);
    if (o.progress) o.progress(r.images, total);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.images > 0) {
    r.accuracy = double(r.correct) / double(r.images);
    r.int_accuracy = double(r.int_correct) / double(r.images);
    r.float_accuracy = double(r.float_correct) / double(r.images);
  }
  return r;
}

}  // namespace tauvta::backend
