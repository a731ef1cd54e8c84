#include "io/sample_files.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "io/tensor_files.h"

namespace tauvta::io {

namespace fs = std::filesystem;
using graph::Tensor;

namespace {

// Natural order: runs of digits compare by value, everything else byte by byte.
bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = a[i] >= '0' && a[i] <= '9', db = b[j] >= '0' && b[j] <= '9';
    if (da && db) {
      size_t ie = i, je = j;
      while (ie < a.size() && a[ie] >= '0' && a[ie] <= '9') ++ie;
      while (je < b.size() && b[je] >= '0' && b[je] <= '9') ++je;
      std::string_view na(a.data() + i, ie - i), nb(b.data() + j, je - j);
      while (na.size() > 1 && na[0] == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb[0] == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // equal up to leading zeros: any strict order will do
}

}  // namespace

std::vector<fs::path> list_npy_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw Error(fmt::format("{}: not a directory (expected a directory of .npy files)", dir.string()));
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".npy" && e.is_regular_file()) files.push_back(e.path());
  }
  if (ec) throw Error(fmt::format("{}: cannot list the directory: {}", dir.string(), ec.message()));
  if (files.empty()) throw Error(fmt::format("{}: the directory holds no .npy files", dir.string()));
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return natural_less(a.filename().string(), b.filename().string());
  });
  return files;
}

std::vector<NpyFile> load_npy_dir(const fs::path& dir) {
  std::vector<NpyFile> out;
  for (const fs::path& p : list_npy_files(dir)) out.push_back({p, read_npy(p)});
  return out;
}

Tensor idx_images_to_nchw(const Tensor& images, float scale, int64_t first, int64_t count) {
  if (images.dtype() != graph::DType::kUInt8 || images.rank() != 3) {
    throw Error(fmt::format("IDX images must be uint8 [N, rows, cols]; got {}{}",
                            graph::dtype_name(images.dtype()), graph::shape_string(images.shape())));
  }
  const int64_t n = images.shape()[0], rows = images.shape()[1], cols = images.shape()[2];
  if (count < 0) count = n - first;
  if (first < 0 || first > n || count > n - first) {
    throw Error(fmt::format("images [{}, {}) requested from a file of {} images", first, first + count, n));
  }
  Tensor out(graph::DType::kFloat32, {count, 1, rows, cols});
  const uint8_t* src = images.raw() + first * rows * cols;
  float* dst = out.data<float>();
  for (int64_t i = 0; i < count * rows * cols; ++i) dst[i] = float(src[i]) * scale;
  return out;
}

}  // namespace tauvta::io
