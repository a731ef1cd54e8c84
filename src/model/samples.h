// Sample inputs for a graph: calibration data and `tauvta run` inputs from .npy files, IDX image
// files (pixels / 255 in NCHW, as models/train_vgg7.py trains on), or synthetic values, split into
// batches that match the graph inputs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cpu/float_executor.h"
#include "graph/graph.h"

namespace tauvta::model {

struct SampleSet {
  std::vector<cpu::TensorMap> batches;
  int64_t samples = 0;
  std::string source;                 // "synthetic N(0,1)", or the path
  std::vector<std::string> warnings;  // synthetic data
};

// Batches of at most `batch` samples, `limit` samples in all, from `path` (a directory of .npy
// files, one .npy file, or an IDX image file) for a graph with one input; `path` empty:
// `synthetic` samples drawn from N(0, 1) with a fixed seed, and a warning. A .npy file holds one
// sample (the input's shape without the batch dimension, or with batch 1) or a batch.
SampleSet load_samples(const graph::Graph& g, const std::filesystem::path& path, int64_t limit, int64_t batch,
                       int64_t synthetic = 16);

// IDX images [N, rows, cols] uint8 -> a float input batch [count, 1, rows, cols] (pixels / 255).
graph::Tensor idx_batch(const graph::Tensor& images, int64_t first, int64_t count);

// Concatenates tensors of shape [n_i, ...] along the first dimension.
graph::Tensor concat_batch(const std::vector<const graph::Tensor*>& parts);

}  // namespace tauvta::model
