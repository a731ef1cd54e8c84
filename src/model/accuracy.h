// Top-1 accuracy of a classifier graph (float or quantized) over labelled IDX images, batch by
// batch, with a progress callback.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "cpu/int_executor.h"
#include "graph/graph.h"
#include "graph/tensor.h"

namespace tauvta::model {

struct AccuracyOptions {
  int64_t begin = 0;   // first image
  int64_t limit = -1;  // N images from `begin`; < 0: all the rest
  int64_t batch = 100;
  bool integer = false;  // the graph is quantized: run the integer reference
  cpu::IntRunOptions int_options;
  std::function<void(int64_t done, int64_t total)> progress;
};

struct AccuracyResult {
  int64_t images = 0;
  int64_t correct = 0;
  double accuracy = 0;  // correct / images
  double seconds = 0;   // inference only
};

// images: IDX uint8 [N, rows, cols] (fed as pixels / 255, NCHW); labels: uint8 [N]. The class is
// the argmax over the last axis of the graph's first output.
AccuracyResult evaluate_accuracy(const graph::Graph& g, const graph::Tensor& images, const graph::Tensor& labels,
                                 const AccuracyOptions& options);

// One line flagging an accuracy that says the model does not work as run: at most 1.5 times chance
// (1 / classes; `classes` <= 1: not judged), or more than 10 points below `reference` (the float
// model's, when >= 0). "" when neither.
std::string accuracy_warning(double accuracy, int64_t classes, double reference = -1);
// Classes of a classifier graph: the last dimension of its first output (0 when unknown).
int64_t classifier_classes(const graph::Graph& g);

// Index of the largest value in each row of a [rows, classes] view of `t` (the last axis).
std::vector<int64_t> argmax_rows(const graph::Tensor& t);

}  // namespace tauvta::model
