// Per-layer formats and their tuning: Qx.y notation; formats given to quantization are the ones
// the graph gets (and calibration's own formats reproduce the calibrated graph exactly); the
// evaluator's host-side overflow count for the input; OTune's loop moves exactly the layers over
// the threshold, one bit per step, ends with every layer under it and keeps the best step; a run
// stopped early resumes from its checkpoint without evaluating anything twice; the search only
// keeps moves that raise accuracy.
#include <fstream>

#include <gtest/gtest.h>

#include "backend/artifact.h"
#include "common/error.h"
#include "io/tensor_files.h"
#include "model/pipeline.h"
#include "precision/evaluator.h"
#include "precision/formats.h"
#include "precision/tuner.h"
#include "../model/pipeline_test_util.h"

namespace {

using namespace tauvta;
using tauvta::testing::fashion_mnist;
using tauvta::testing::source_path;

model::LoadedModel vgg7(const std::string& preset) {
  model::LoadOptions o;
  o.quantize = true;
  o.config = hw::HwConfig::load(source_path("configs/" + preset + ".json"));
  o.calibrate = fashion_mnist("train-images-idx3-ubyte.gz");
  o.calib_samples = 64;
  return model::load_model(source_path("models/vgg7_fmnist.onnx"), o);
}

struct Data {
  graph::Tensor images = io::read_idx(fashion_mnist("t10k-images-idx3-ubyte.gz"));
  graph::Tensor labels = io::read_idx(fashion_mnist("t10k-labels-idx1-ubyte.gz"));
};

TEST(PrecisionFormats, QNotation) {
  EXPECT_EQ(precision::q_name(16, 15), "Q0.15");
  EXPECT_EQ(precision::q_name(8, 4), "Q3.4");
  EXPECT_EQ(precision::q_name(8, 9), "Q-2.9");
  EXPECT_EQ(precision::parse_q("Q3.4", 8, "x"), 4);
  EXPECT_EQ(precision::parse_q("q0.15", 16, "x"), 15);
  EXPECT_EQ(precision::parse_q("-3", 8, "x"), -3);
  EXPECT_EQ(precision::parse_q(precision::q_name(4, 6), 4, "x"), 6);
  try {
    precision::parse_q("Q3.3", 8, "conv1");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("conv1: Q3.3 has 1 + 3 + 3 = 7 bits, the config's word is 8 bits"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(precision::parse_q("Qx", 8, "x"), Error);
}

TEST(PrecisionFormats, GivenFormatsAreTheGraphsAndCalibratedOnesReproduceIt) {
  const model::LoadedModel m = vgg7("pynq");
  // Calibration's own choice given back: the same graph, attribute for attribute.
  const graph::QuantizeResult same = model::requantize(m, m.quant.activation_formats);
  ASSERT_EQ(same.graph.nodes.size(), m.quant.graph.nodes.size());
  for (size_t i = 0; i < same.graph.nodes.size(); ++i) {
    EXPECT_EQ(same.graph.nodes[i].attrs, m.quant.graph.nodes[i].attrs) << same.graph.nodes[i].name;
  }
  // One layer moved: its output format, its own shift and its consumer's shift follow.
  const std::vector<precision::FormatSlot> slots = precision::format_slots(m.quant, nullptr);
  ASSERT_GE(slots.size(), 3u);
  const precision::FormatSlot& s = slots[1];  // the first convolution's output
  precision::Formats f = m.quant.activation_formats;
  f[s.value] = s.frac - 2;
  const graph::QuantizeResult moved = model::requantize(m, f);
  EXPECT_EQ(moved.graph.info(s.int_value)->quant.frac_bits, s.frac - 2);
  for (size_t i = 0; i < moved.graph.nodes.size(); ++i) {
    const graph::Node& a = m.quant.graph.nodes[i];
    const graph::Node& b = moved.graph.nodes[i];
    if (a.name == s.node) {
      EXPECT_EQ(b.attr_int("shift"), a.attr_int("shift") + 2) << a.name;
    }
    if (!a.inputs.empty() && a.inputs[0] == s.int_value && a.attrs.count("shift")) {
      EXPECT_EQ(b.attr_int("shift"), a.attr_int("shift") - 2) << a.name;
    }
  }
  precision::Formats bad{{"no_such_value", 3}};
  EXPECT_THROW(model::requantize(m, bad), Error);
}

TEST(PrecisionFormats, FormatsFileNamesLayersByValueOrNode) {
  const model::LoadedModel m = vgg7("pynq");
  const std::vector<precision::FormatSlot> slots = precision::format_slots(m.quant, nullptr);
  ASSERT_GE(slots.size(), 3u);
  const std::string path = ::testing::TempDir() + "tauvta_formats_file.txt";
  auto write = [&](const std::string& text) {
    std::ofstream(path) << text;
    return path;
  };
  // A value name, a node name (a fused layer's first operator), a bare frac_bits, comments.
  const precision::Formats f = precision::read_formats_file(
      write("# formats\n\n  input=Q0.7  # the image\n" + slots[1].node + "=Q2.5\n" + slots[2].value + " = 3\n"), slots, 8);
  EXPECT_EQ(f, (precision::Formats{{"input", 7}, {slots[1].value, 5}, {slots[2].value, 3}}));
  EXPECT_EQ(slots[1].node, "/features/features.0/Conv");  // the name `precision show` and ONNX give the layer
  auto error_of = [&](const std::string& text) {
    try {
      precision::read_formats_file(write(text), slots, 8);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("input=Q0.7\nconv9=Q1.6\n"), path + ":2: no layer or value 'conv9' with a format (see tauvta precision show)");
  EXPECT_EQ(error_of(slots[1].node + "=Q1.6\n" + slots[1].value + "=Q2.5\n"),
            path + ":2: '" + slots[1].value + "' was already given a format on line 1");
  EXPECT_NE(error_of("input=Q0.6\n").find(path + ":1: input: Q0.6 has 1 + 0 + 6 = 7 bits"), std::string::npos);
  EXPECT_EQ(error_of("just words\n"), path + ":1: 'just words' is not LAYER=Qx.y");
  EXPECT_THROW(precision::read_formats_file(path + ".missing", slots, 8), Error);
}

TEST(PrecisionEvaluator, InputOverflowCountedOnTheHost) {
  const model::LoadedModel m = vgg7("pynq");
  Data d;
  precision::EvaluatorSettings es;
  es.batch = 25;
  const precision::PrecisionEvaluator ev(m, hw::HwConfig{}, d.images, d.labels, es);
  precision::Formats f{{"input", 7}};  // Q0.7: 1.0 rounds to 128 > 127
  const precision::Evaluation e = ev.evaluate(f, 10, 50);
  // Independently: a pixel of 255 is the only one that reaches 128 (254 / 255 * 128 = 127.5 - eps).
  int64_t full = 0;
  const int64_t per = 28 * 28;
  for (int64_t i = 10 * per; i < 60 * per; ++i) full += d.images.raw()[i] == 255;
  EXPECT_DOUBLE_EQ(e.overflow_rate.at("input"), double(full) / double(50 * per));
  EXPECT_EQ(e.images, 50);
}

TEST(PrecisionTune, OTuneMovesOverflowingLayersUntilAllAreUnderAndResumes) {
  const model::LoadedModel m = vgg7("pynq");
  Data d;
  precision::EvaluatorSettings es;
  es.batch = 25;
  const precision::PrecisionEvaluator ev(m, hw::HwConfig{}, d.images, d.labels, es);
  const precision::Formats start = precision::uniform_formats(ev.slots(), 7);
  precision::PrecisionTuneOptions o;
  o.threshold = 0.0;
  o.tune_count = 50;
  const precision::PrecisionTuneResult r = precision::tune_precision(ev, start, o);
  ASSERT_GE(r.steps.size(), 3u);
  EXPECT_EQ(r.steps.back().eval.max_overflow_rate(), 0.0) << r.stop_reason;
  for (size_t i = 1; i < r.steps.size(); ++i) {
    const precision::Evaluation& prev = r.steps[i - 1].eval;
    for (const auto& [v, f] : r.steps[i].eval.formats) {
      const bool over = prev.overflow_rate.count(v) && prev.overflow_rate.at(v) > o.threshold;
      EXPECT_EQ(f, prev.formats.at(v) - (over ? 1 : 0)) << "step " << i << " " << v;
    }
  }
  for (const precision::TuneStep& s : r.steps) EXPECT_LE(s.eval.accuracy, r.steps[r.best].eval.accuracy);
  EXPECT_GT(r.steps[r.best].eval.accuracy, r.steps.front().eval.accuracy);

  // Stopped after two evaluations, then resumed: nothing is evaluated twice, same answer.
  const auto dir = tauvta::testing::fresh_dir("precision_resume");
  o.checkpoint = dir / "checkpoint.json";
  o.limit = 2;
  const precision::PrecisionTuneResult part = precision::tune_precision(ev, start, o);
  EXPECT_EQ(part.evaluations, 2);
  o.limit = 64;
  const precision::PrecisionTuneResult rest = precision::tune_precision(ev, start, o);
  EXPECT_EQ(rest.replayed, 2);
  EXPECT_EQ(rest.evaluations, int(r.steps.size()) - 2);
  ASSERT_EQ(rest.steps.size(), r.steps.size());
  EXPECT_EQ(rest.best, r.best);
  for (size_t i = 0; i < r.steps.size(); ++i) {
    EXPECT_EQ(rest.steps[i].eval.formats, r.steps[i].eval.formats);
    EXPECT_EQ(rest.steps[i].eval.correct, r.steps[i].eval.correct);
  }
  // A checkpoint made with other settings is refused, not silently mixed in.
  o.threshold = 0.5;
  EXPECT_THROW(precision::tune_precision(ev, start, o), Error);
}

TEST(PrecisionTune, SearchKeepsOnlyImprovingMovesAndTheTunedNetworkIsAnArtifact) {
  const model::LoadedModel m = vgg7("pynq_w4a4");
  const hw::HwConfig c = hw::HwConfig::load(source_path("configs/pynq_w4a4.json"));
  Data d;
  precision::EvaluatorSettings es;
  es.batch = 25;
  const precision::PrecisionEvaluator ev(m, c, d.images, d.labels, es);
  precision::PrecisionTuneOptions o;
  o.mode = precision::TuneMode::kSearch;
  o.tune_count = 50;
  o.limit = 6;
  o.radius = 1;
  const precision::PrecisionTuneResult r = precision::tune_precision(ev, precision::formats_of(ev.slots()), o);
  EXPECT_EQ(r.steps.size(), 6u);
  double best = r.steps[0].eval.accuracy;
  size_t best_i = 0;
  for (size_t i = 1; i < r.steps.size(); ++i) {
    if (r.steps[i].eval.accuracy > best) {
      best = r.steps[i].eval.accuracy;
      best_i = i;
    }
  }
  EXPECT_EQ(r.best, best_i);
  // With a minimum gain a move must beat the best so far by more than it (here: by two images).
  o.min_gain = 1.5 / 50;
  const precision::PrecisionTuneResult g = precision::tune_precision(ev, precision::formats_of(ev.slots()), o);
  size_t kept = 0;
  for (size_t i = 1; i < g.steps.size(); ++i) {
    if (g.steps[i].eval.accuracy > g.steps[kept].eval.accuracy + o.min_gain) kept = i;
  }
  EXPECT_EQ(g.best, kept);
  // The tuned network saved and loaded runs like any artifact, with the tuned formats.
  const auto dir = tauvta::testing::fresh_dir("precision_artifact");
  backend::save_network(ev.compile(r.steps[r.best].eval.formats), dir / "tuned.tauvta", false);
  const backend::CompiledNetwork net = backend::load_network(dir / "tuned.tauvta");
  for (const precision::FormatSlot& s : precision::format_slots(net)) {
    if (r.steps[r.best].eval.formats.count(s.value)) {
      EXPECT_EQ(s.frac, r.steps[r.best].eval.formats.at(s.value)) << s.value;
    }
  }
}

}  // namespace
