#include "backend/network_accuracy.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "cpu/float_executor.h"
#include "cpu/int_executor.h"
#include "model/accuracy.h"
#include "model/samples.h"

namespace tauvta::backend {

namespace {

// What one board (thread) accumulates over the batches it runs.
struct BoardResult {
  int64_t correct = 0, int_correct = 0, float_correct = 0, mismatched = 0, images = 0;
  NetworkRun last;
  int64_t last_first = -1;
  std::unique_ptr<NetworkRunner> runner;
};

}  // namespace

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
  if (o.begin < 0 || o.begin > images.shape()[0]) {
    throw Error(fmt::format("first image {} is outside the {} images", o.begin, images.shape()[0]));
  }
  const int64_t batch = vi->shape[0];
  const int64_t avail = images.shape()[0] - o.begin;
  const int64_t total = o.limit >= 0 ? std::min(o.limit, avail) : avail;
  const std::vector<int64_t> label = labels.to_int64();
  const int64_t batches = (total + batch - 1) / batch;
  const int threads = int(std::max<int64_t>(1, std::min<int64_t>(o.threads, batches)));

  NetworkAccuracy r;
  r.predictions.assign(size_t(total), -1);
  std::vector<BoardResult> boards(static_cast<size_t>(threads));
  for (BoardResult& b : boards) {
    b.runner = std::make_unique<NetworkRunner>(net, 1, o.rtl);
    if (o.instruments) b.runner->enable_instruments(*o.instruments);
  }
  std::atomic<int64_t> next{0};
  std::mutex progress_mutex;
  int64_t done = 0;
  std::exception_ptr failure;
  const auto t0 = std::chrono::steady_clock::now();
  auto work = [&](BoardResult& b) {
    try {
      std::unique_ptr<cpu::IntExecutor> ref;
      if (o.check_reference) ref = std::make_unique<cpu::IntExecutor>(net.graph);
      NetworkRunOptions ro;
      ro.check_hazards = o.check_hazards;
      for (int64_t k = next++; k < batches; k = next++) {
        const int64_t first = k * batch, n = std::min(batch, total - first);
        graph::Tensor x = model::idx_batch(images, o.begin + first, n);
        if (n < batch) {  // pad the last batch with zero images
          graph::Tensor padded(graph::DType::kFloat32, {batch, x.shape()[1], x.shape()[2], x.shape()[3]});
          std::copy(x.floats().begin(), x.floats().end(), padded.floats().begin());
          x = std::move(padded);
        }
        cpu::TensorMap in{{input, x}};
        ro.image_base = o.begin + first;
        ro.valid_images = n;
        NetworkRun run = b.runner->run(in, ro);
        const graph::Tensor& out = run.outputs.at(net.graph.outputs[0]);
        const std::vector<int64_t> pred = model::argmax_rows(out);
        std::vector<int64_t> int_pred, float_pred;
        if (ref) {
          const cpu::TensorMap want = ref->run(in);
          const graph::Tensor& w = want.at(net.graph.outputs[0]);
          int_pred = model::argmax_rows(w);
          const std::vector<float> a = out.to_float(), bv = w.to_float();
          const int64_t row = out.size() / batch;
          for (int64_t i = 0; i < n; ++i) {
            if (!std::equal(a.begin() + i * row, a.begin() + (i + 1) * row, bv.begin() + i * row)) ++b.mismatched;
          }
        }
        if (o.float_graph) float_pred = model::argmax_rows(cpu::run_float(*o.float_graph, in).at(o.float_graph->outputs[0]));
        for (int64_t i = 0; i < n; ++i) {
          const int64_t y = label[size_t(o.begin + first + i)];
          r.predictions[size_t(first + i)] = pred[size_t(i)];
          b.correct += pred[size_t(i)] == y;
          if (!int_pred.empty()) b.int_correct += int_pred[size_t(i)] == y;
          if (!float_pred.empty()) b.float_correct += float_pred[size_t(i)] == y;
        }
        b.images += n;
        if (first > b.last_first) {
          b.last = std::move(run);
          b.last_first = first;
        }
        std::lock_guard<std::mutex> lock(progress_mutex);
        done += n;
        if (o.progress) o.progress(done, total);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      if (!failure) failure = std::current_exception();
      next = batches;  // the other boards stop after their batch
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, std::ref(boards[size_t(t)]));
  work(boards[0]);
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  int64_t last_first = -1;
  for (BoardResult& b : boards) {
    r.correct += b.correct;
    r.int_correct += b.int_correct;
    r.float_correct += b.float_correct;
    r.mismatched_images += b.mismatched;
    r.images += b.images;
    if (b.last_first > last_first) {
      last_first = b.last_first;
      r.last_batch = std::move(b.last);
    }
  }
  if (o.instruments) {
    // The first board's instruments reference its runner: rebuild them over the network so the
    // result outlives the boards, then add every board's observations.
    const NetworkInstruments* first = boards[0].runner->instruments();
    r.instruments = std::make_unique<NetworkInstruments>(*first);
    for (size_t t = 1; t < boards.size(); ++t) r.instruments->merge(*boards[t].runner->instruments());
  }
  if (r.images > 0) {
    r.accuracy = double(r.correct) / double(r.images);
    r.int_accuracy = double(r.int_correct) / double(r.images);
    r.float_accuracy = double(r.float_correct) / double(r.images);
  }
  return r;
}

}  // namespace tauvta::backend
