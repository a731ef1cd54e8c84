// The model pipeline on the committed VGG-7: pass dumps, calibration sources (IDX, .npy
// directory, synthetic with a warning), the quantized graph's agreement with the float one, and
// batches above 1.
#include <gtest/gtest.h>

#include <fstream>

#include "common/error.h"
#include "cpu/float_executor.h"
#include "cpu/int_executor.h"
#include "io/tensor_files.h"
#include "model/compare.h"
#include "model/pipeline.h"
#include "model/samples.h"
#include "pipeline_test_util.h"

namespace {

using namespace tauvta;
using tauvta::testing::fashion_mnist;
using tauvta::testing::fresh_dir;
using tauvta::testing::source_path;

const std::filesystem::path kModel = source_path("models/vgg7_fmnist.onnx");

model::LoadOptions int8_from_train_images(int64_t samples = 256) {
  model::LoadOptions o;
  o.quantize = true;
  o.calibrate = fashion_mnist("train-images-idx3-ubyte.gz");
  o.calib_samples = samples;
  return o;
}

TEST(PipelineVgg7, DumpsEveryPassAndRefusesToOverwrite) {
  const auto dir = fresh_dir("pipeline_dump");
  model::LoadOptions o;
  o.quantize = true;  // no calibration data: synthetic, with a warning
  o.dump_dir = dir;
  const model::LoadedModel m = model::load_model(kModel, o);
  for (const char* f : {"01-import.txt", "02-shape_inference.txt", "03-fold_constants.txt", "04-fold_batch_norm.txt",
                        "05-fuse_patterns.txt", "06-remove_dead_nodes.txt", "07-quantize.txt"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  }
  std::ifstream in(dir / "07-quantize.txt");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, graph::print_graph(m.quant.graph));
  EXPECT_NE(text.find("= QConv("), std::string::npos);
  ASSERT_FALSE(m.warnings.empty());
  EXPECT_NE(m.warnings[0].find("no calibration data given: calibrating on 16 synthetic N(0,1) samples"),
            std::string::npos)
      << m.warnings[0];
  EXPECT_EQ(m.calib_samples, 16);
  std::vector<std::string> names;
  for (const model::PassTiming& t : m.timings) names.push_back(t.pass);
  EXPECT_EQ(names, (std::vector<std::string>{"import", "shape_inference", "fold_constants", "fold_batch_norm",
                                             "fuse_patterns", "remove_dead_nodes", "calibrate", "quantize"}));
  try {
    model::load_model(kModel, o);
    FAIL() << "expected the dump to refuse overwriting";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "01-import.txt").string() + ": file exists; pass --force to overwrite it");
  }
  o.force = true;
  EXPECT_NO_THROW(model::load_model(kModel, o));
  std::filesystem::remove_all(dir);
}

TEST(PipelineVgg7, Int8AgreesWithFloatLayerByLayer) {
  const model::LoadedModel m = model::load_model(kModel, int8_from_train_images());
  ASSERT_TRUE(m.quantized);
  EXPECT_EQ(m.calib_samples, 256);
  EXPECT_TRUE(m.warnings.empty()) << m.warnings[0];
  // 100 test images: the integer reference's class agrees with the float one almost everywhere.
  const graph::Tensor images = io::read_idx(fashion_mnist("t10k-images-idx3-ubyte.gz"));
  const cpu::TensorMap in = {{"input", model::idx_batch(images, 0, 100)}};
  cpu::TensorMap f, q;
  const model::Comparison c = model::compare_with_float(m, in, f, q);
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].rows, 100);
  EXPECT_GE(c.outputs[0].top1_agree, 97);
  EXPECT_GT(c.outputs[0].cosine, 0.995);
  // Every convolution and dense layer is reported, each close to its float value.
  int qlayers = 0;
  for (const model::LayerComparison& l : c.layers) {
    if (l.op == "QConv" || l.op == "QGemm") {
      ++qlayers;
      EXPECT_GT(l.cosine, 0.99) << l.value;
      EXPECT_EQ(l.bits, 8) << l.value;
    }
  }
  EXPECT_EQ(qlayers, 8);
}

TEST(PipelineVgg7, FloatReferenceMatchesTorchOnTheCommittedInput) {
  const model::LoadedModel m = model::load_model(kModel, model::LoadOptions{});
  const cpu::TensorMap out =
      cpu::run_float(m.graph(), {{"input", io::read_npy(source_path("models/vgg7_fmnist_input.npy"))}});
  const graph::Tensor torch_out = io::read_npy(source_path("models/vgg7_fmnist_output.npy"));
  EXPECT_GT(model::cosine_similarity(torch_out.floats(), out.at("output").floats()), 0.9999);
}

TEST(PipelineVgg7, BatchesGiveTheSameResultsAsSingleImages) {
  const model::LoadedModel m = model::load_model(kModel, int8_from_train_images(64));
  const graph::Tensor images = io::read_idx(fashion_mnist("t10k-images-idx3-ubyte.gz"));
  const cpu::TensorMap batch = {{"input", model::idx_batch(images, 0, 5)}};
  cpu::IntRunOptions two_threads;
  two_threads.threads = 2;
  const std::vector<float> all = cpu::run_int(m.graph(), batch, {}, two_threads).at("output").to_float();
  ASSERT_EQ(all.size(), 50u);
  for (int64_t i = 0; i < 5; ++i) {
    const std::vector<float> one = cpu::run_int(m.graph(), {{"input", model::idx_batch(images, i, 1)}}).at("output").to_float();
    for (size_t k = 0; k < 10; ++k) EXPECT_EQ(one[k], all[size_t(i) * 10 + k]) << i << " " << k;
  }
}

TEST(PipelineVgg7, CalibratesFromANpyDirectory) {
  const auto dir = fresh_dir("calib_npy");
  const graph::Tensor images = io::read_idx(fashion_mnist("train-images-idx3-ubyte.gz"));
  io::write_npy(dir / "a.npy", model::idx_batch(images, 0, 5), false);                         // a batch
  io::write_npy(dir / "b.npy", model::idx_batch(images, 5, 1).reshaped({1, 28, 28}), false);  // one sample
  model::LoadOptions o;
  o.quantize = true;
  o.calibrate = dir;
  const model::LoadedModel m = model::load_model(kModel, o);
  EXPECT_EQ(m.calib_samples, 6);
  EXPECT_EQ(m.calib_source, dir.string());
  io::write_npy(dir / "c.npy", graph::Tensor(graph::DType::kFloat32, {3, 3}), false);
  try {
    model::load_model(kModel, o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "c.npy").string() + ": shape [3,3] is neither one sample [1,28,28] nor a batch of them");
  }
  std::filesystem::remove_all(dir);
}

TEST(PipelineVgg7, FixedBatchWhenAsked) {
  model::LoadOptions o;
  o.batch = 4;
  const model::LoadedModel m = model::load_model(kModel, o);
  EXPECT_EQ(m.float_graph.info("input")->shape, (graph::Shape{4, 1, 28, 28}));
  EXPECT_EQ(m.float_graph.info("output")->shape, (graph::Shape{4, 10}));
}

}  // namespace
