// Top-1 accuracy of a compiled classifier on the simulated accelerator, batch by batch, with the
// integer reference run on the same images for a bit-exactness check and the float reference
// for the quantization gap. The per-layer figures of the last batch come back for the report.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "backend/network.h"
#include "backend/network_instruments.h"
#include "backend/network_runner.h"
#include "graph/graph.h"

namespace tauvta::backend {

struct NetworkAccuracyOptions {
  int64_t begin = 0;   // first image
  int64_t limit = -1;  // N images from `begin`; < 0: all the rest
  int threads = 1;     // simulated boards running batches in parallel (each its own runner)
  // Instruments every board carries; what they observed over the images comes back merged.
  const InstrumentRequest* instruments = nullptr;
  bool check_reference = true;  // also run the integer reference and compare outputs exactly
  const graph::Graph* float_graph = nullptr;  // also measure the float reference's accuracy
  bool check_hazards = false;
  bool rtl = false;  // boards run their programs on the generated accelerator too (NetworkRunner)
  std::function<void(int64_t done, int64_t total)> progress;
};

struct NetworkAccuracy {
  int64_t images = 0;
  int64_t correct = 0, int_correct = 0, float_correct = 0;
  double accuracy = 0, int_accuracy = 0, float_accuracy = 0;
  int64_t mismatched_images = 0;  // accelerator outputs differing from the integer reference
  NetworkRun last_batch;          // per-layer figures of one batch
  double seconds = 0;
  std::vector<int64_t> predictions;  // per image, from `begin`
  std::unique_ptr<NetworkInstruments> instruments;  // set when options.instruments was
};

// images: IDX uint8 [N, rows, cols] fed as pixels / 255; labels uint8 [N]. Batches have the
// compiled batch size; a last partial batch is padded with zero images that are not counted.
NetworkAccuracy evaluate_network_accuracy(const CompiledNetwork& net, const graph::Tensor& images,
                                          const graph::Tensor& labels, const NetworkAccuracyOptions& o);

}  // namespace tauvta::backend
