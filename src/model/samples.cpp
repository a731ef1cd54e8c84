#include "model/samples.h"

#include <cstring>
#include <random>

#include <fmt/format.h>

#include "common/error.h"
#include "io/sample_files.h"
#include "io/tensor_files.h"

namespace tauvta::model {

using graph::DType;
using graph::Shape;
using graph::Tensor;

Tensor idx_batch(const Tensor& images, int64_t first, int64_t count) {
  return io::idx_images_to_nchw(images, 1.0f / 255.0f, first, count);
}

Tensor concat_batch(const std::vector<const Tensor*>& parts) {
  if (parts.empty()) throw InternalError("concat_batch: nothing to concatenate");
  Shape s = parts[0]->shape();
  int64_t n = 0;
  for (const Tensor* t : parts) {
    if (t->dtype() != parts[0]->dtype() || t->rank() != parts[0]->rank() ||
        !std::equal(t->shape().begin() + 1, t->shape().end(), s.begin() + 1)) {
      throw Error(fmt::format("cannot stack {}{} with {}{}", graph::dtype_name(t->dtype()),
                              graph::shape_string(t->shape()), graph::dtype_name(parts[0]->dtype()),
                              graph::shape_string(s)));
    }
    n += t->shape()[0];
  }
  s[0] = n;
  Tensor out(parts[0]->dtype(), s);
  size_t off = 0;
  for (const Tensor* t : parts) {
    if (t->byte_size()) std::memcpy(out.raw() + off, t->raw(), t->byte_size());
    off += t->byte_size();
  }
  return out;
}

namespace {

// The first `count` rows of a [N, ...] tensor.
Tensor first_rows(const Tensor& t, int64_t first, int64_t count) {
  Shape s = t.shape();
  const size_t row = t.byte_size() / size_t(std::max<int64_t>(s[0], 1));
  s[0] = count;
  Tensor out(t.dtype(), s);
  // An input with a zero dimension has empty rows (and a null data pointer, which memcpy must not get).
  if (count > 0 && row > 0) std::memcpy(out.raw(), t.raw() + size_t(first) * row, size_t(count) * row);
  return out;
}

// A file's tensor as a batch [n, sample...] of float32 for the input's per-sample shape.
Tensor as_batch(const Tensor& t, const Shape& sample, const std::string& where) {
  Tensor f = t.dtype() == DType::kFloat32 ? t : t.cast(DType::kFloat32);
  const bool sample_known = std::none_of(sample.begin(), sample.end(), [](int64_t d) { return d < 0; });
  if (sample_known && f.shape() == sample) {
    Shape s = sample;
    s.insert(s.begin(), 1);
    return f.reshaped(s);
  }
  if (f.rank() == int64_t(sample.size()) + 1) {
    bool match = true;
    for (size_t i = 0; i < sample.size(); ++i) match &= sample[i] < 0 || sample[i] == f.shape()[i + 1];
    if (match) return f;
  }
  throw Error(fmt::format("{}: shape {} is neither one sample {} nor a batch of them", where,
                          graph::shape_string(t.shape()), graph::shape_string(sample)));
}

}  // namespace

SampleSet load_samples(const graph::Graph& g, const std::filesystem::path& path, int64_t limit, int64_t batch,
                       int64_t synthetic) {
  if (g.inputs.size() != 1) {
    throw Error(fmt::format("sample inputs: model '{}' has {} inputs; files and synthetic data serve "
                            "models with one input",
                            g.name, g.inputs.size()));
  }
  const std::string& input = g.inputs[0];
  const graph::ValueInfo* info = g.info(input);
  if (info == nullptr || !info->known_shape || info->shape.empty()) {
    throw Error(fmt::format("sample inputs: the shape of input '{}' is not known", input));
  }
  const Shape sample(info->shape.begin() + 1, info->shape.end());
  batch = std::max<int64_t>(batch, 1);
  SampleSet set;
  Tensor all;
  if (path.empty()) {
    if (std::any_of(sample.begin(), sample.end(), [](int64_t d) { return d < 0; })) {
      throw Error(fmt::format("synthetic inputs: input '{}' has unknown dimensions {}", input,
                              graph::shape_string(info->shape)));
    }
    Shape s = sample;
    s.insert(s.begin(), std::min(synthetic, limit));
    all = Tensor(DType::kFloat32, s);
    std::mt19937 rng(0);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float& v : all.floats()) v = normal(rng);
    set.source = "synthetic N(0,1)";
    set.warnings.push_back(fmt::format(
        "no calibration data given: calibrating on {} synthetic N(0,1) samples; binary points chosen from "
        "them may not suit real inputs (pass --calibrate with .npy files or an IDX image file)",
        s[0]));
  } else if (std::filesystem::is_directory(path) || path.extension() == ".npy") {
    std::vector<Tensor> parts;
    if (std::filesystem::is_directory(path)) {
      for (const io::NpyFile& f : io::load_npy_dir(path)) parts.push_back(as_batch(f.tensor, sample, f.path.string()));
    } else {
      parts.push_back(as_batch(io::read_npy(path), sample, path.string()));
    }
    std::vector<const Tensor*> ptrs;
    for (const Tensor& t : parts) ptrs.push_back(&t);
    all = concat_batch(ptrs);
    set.source = path.string();
  } else {
    const Tensor images = io::read_idx(path);
    if (images.rank() != 3) {
      throw Error(fmt::format("{}: IDX file holds {}, not images [N, rows, cols]", path.string(),
                              graph::shape_string(images.shape())));
    }
    const Shape want = {1, images.shape()[1], images.shape()[2]};
    if (sample.size() != 3 || (sample[0] != 1 && sample[0] >= 0) || sample[1] != want[1] || sample[2] != want[2]) {
      throw Error(fmt::format("{}: images of {}x{} do not fit input '{}' {}", path.string(), want[1], want[2],
                              input, graph::shape_string(info->shape)));
    }
    all = idx_batch(images, 0, std::min(images.shape()[0], limit));
    set.source = path.string();
  }
  const int64_t total = std::min(all.shape()[0], limit);
  for (int64_t b = 0; b < total; b += batch) {
    set.batches.push_back({{input, first_rows(all, b, std::min(batch, total - b))}});
  }
  set.samples = total;
  return set;
}

}  // namespace tauvta::model
