// The trained VGG-7 on the first 1000 Fashion-MNIST test images: the int8 integer reference
// (calibrated on training images) stays within 1 point of the float reference's top-1 accuracy.
#include <gtest/gtest.h>

#include "io/tensor_files.h"
#include "model/accuracy.h"
#include "model/pipeline.h"
#include "pipeline_test_util.h"

namespace {

using namespace tauvta;
using tauvta::testing::fashion_mnist;
using tauvta::testing::source_path;

TEST(AccuracyVgg7, Int8WithinOnePointOfFloat) {
  const graph::Tensor images = io::read_idx(fashion_mnist("t10k-images-idx3-ubyte.gz"));
  const graph::Tensor labels = io::read_idx(fashion_mnist("t10k-labels-idx1-ubyte.gz"));
  model::LoadOptions o;
  const model::LoadedModel f = model::load_model(source_path("models/vgg7_fmnist.onnx"), o);
  o.quantize = true;
  o.calibrate = fashion_mnist("train-images-idx3-ubyte.gz");
  const model::LoadedModel q = model::load_model(source_path("models/vgg7_fmnist.onnx"), o);

  model::AccuracyOptions ao;
  ao.limit = 1000;
  const model::AccuracyResult rf = model::evaluate_accuracy(f.graph(), images, labels, ao);
  ao.integer = true;
  ao.int_options.threads = 2;
  const model::AccuracyResult rq = model::evaluate_accuracy(q.graph(), images, labels, ao);
  EXPECT_EQ(rf.images, 1000);
  EXPECT_EQ(rq.images, 1000);
  EXPECT_GT(rf.accuracy, 0.85);
  EXPECT_NEAR(rq.accuracy, rf.accuracy, 0.01) << "float " << rf.accuracy << ", int8 " << rq.accuracy;
  std::cout << "VGG-7, first 1000 test images: float " << rf.accuracy << ", int8 " << rq.accuracy << "\n";
}

TEST(AccuracyVgg7, ArgmaxAndLabelChecks) {
  const graph::Tensor t = graph::Tensor::from_floats({2, 3}, {0.1f, 0.7f, 0.2f, 5.0f, -1.0f, 5.0f});
  EXPECT_EQ(model::argmax_rows(t), (std::vector<int64_t>{1, 0}));  // ties: the first
}

}  // namespace
