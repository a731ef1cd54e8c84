// Sample inputs kept as files: a directory of .npy files (one sample or batch each, for
// calibration and `tauvta run`), and IDX image files turned into float NCHW batches.
#pragma once

#include <filesystem>
#include <vector>

#include "graph/tensor.h"

namespace tauvta::io {

struct NpyFile {
  std::filesystem::path path;
  graph::Tensor tensor;
};

// The regular files ending in .npy directly inside `dir`, in natural order (x2.npy before
// x10.npy). Throws tauvta::Error when `dir` is not a directory or holds no .npy file.
std::vector<std::filesystem::path> list_npy_files(const std::filesystem::path& dir);

// list_npy_files, each read with read_npy.
std::vector<NpyFile> load_npy_dir(const std::filesystem::path& dir);

// IDX images (uint8 [N, rows, cols], as read_idx returns them) -> float32 [N, 1, rows, cols],
// each pixel multiplied by `scale` (1/255 maps to [0, 1], what models/train_vgg7.py trains on).
// `first` and `count` pick a slice of the images (count < 0: to the end).
graph::Tensor idx_images_to_nchw(const graph::Tensor& images, float scale, int64_t first = 0,
                                 int64_t count = -1);

}  // namespace tauvta::io
