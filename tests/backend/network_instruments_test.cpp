// The simulator's instruments against an independent count from the integer reference: every
// requantizing node of the quantized graph is re-run alone with its clip opened to the whole
// accumulator range and its output as wide as the accumulator, which gives the value before the
// cast; an element overflows when that value lies past a clip bound that is the output type's
// own limit. Counts, per-channel counts, maps, histograms, statistics and zero maps must agree
// exactly with what the instruments saw on the simulated board. Also: instruments off leave
// outputs and cycles unchanged, the trace buffer reports what it dropped, and bad specs fail.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "backend/compile_network.h"
#include "backend/network_accuracy.h"
#include "backend/network_instruments.h"
#include "backend/network_runner.h"
#include "common/error.h"
#include "cpu/int_executor.h"
#include "io/tensor_files.h"
#include "model/pipeline.h"
#include "model/samples.h"
#include "../model/pipeline_test_util.h"

namespace {

using namespace tauvta;
using tauvta::testing::fashion_mnist;
using tauvta::testing::source_path;

struct CompiledVgg {
  model::LoadedModel m;
  backend::CompiledNetwork net;
};

// VGG-7 with activation binary points from a low percentile, so that the casts saturate.
CompiledVgg make_setup(const std::string& preset, graph::CalibStatistic stat, double percentile, int64_t batch) {
  model::LoadOptions o;
  o.quantize = true;
  o.config = hw::HwConfig::load(source_path("configs/" + preset + ".json"));
  o.calibrate = fashion_mnist("train-images-idx3-ubyte.gz");
  o.calib_samples = 64;
  o.calib_stat = stat;
  o.percentile = percentile;
  CompiledVgg s{model::load_model(source_path("models/vgg7_fmnist.onnx"), o), {}};
  backend::CompileOptions co;
  co.batch = batch;
  s.net = backend::compile_network(s.m.graph(), o.config, co);
  return s;
}

// What the instruments should have seen for one layer, counted on the integer reference.
struct Expected {
  uint64_t elements = 0, overflows = 0, zeros = 0;
  std::vector<uint64_t> overflow_map, zero_map, channel_overflows;
  sim::IntHistogram pre, out;
  int64_t pre_min = INT64_MAX, pre_max = INT64_MIN, out_min = INT64_MAX, out_max = INT64_MIN;
  int64_t sum = 0;
};

std::map<size_t, Expected> independent_count(const backend::CompiledNetwork& net, const cpu::TensorMap& in,
                                             const sim::InstrumentSettings& st) {
  // Every value of an integer-reference run.
  std::map<std::string, graph::Tensor> values = in;
  cpu::run_int(net.graph, in, [&](const graph::Node& n, const std::vector<const graph::Tensor*>& outs) {
    for (size_t i = 0; i < outs.size(); ++i) {
      if (outs[i]) values[n.outputs[i]] = *outs[i];
    }
  });
  const int bits = net.config.out_width();
  const int64_t qmin = -(int64_t(1) << (bits - 1)), qmax = (int64_t(1) << (bits - 1)) - 1;
  std::map<size_t, Expected> out;
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const backend::NetworkLayer& l = net.layers[i];
    if (l.placement != backend::Placement::kVta || l.program_layer < 0) continue;
    const graph::Node* np = net.graph.producer(l.outputs.at(0));
    if (!np) throw InternalError("no producer of " + l.outputs[0]);
    const graph::Node& n = *np;
    const std::vector<int64_t> got = values.at(l.outputs[0]).to_int64();
    std::vector<int64_t> pre = got;
    bool clips_at_max = false, clips_at_min = false;
    if (n.attrs.count("clip_min")) {
      // The node alone, its clip opened and its output as wide as the accumulator.
      graph::Graph one = backend::cpu_part_graph(net.graph, n);
      graph::Node& w = one.nodes.at(0);
      // A 64-bit accumulator's (W16) output opens to 32 bits, the widest the reference writes:
      // a value before the cast beyond that would differ from the instruments' and fail.
      const int64_t wide = std::min<int64_t>(w.attr_int("acc_bits"), 32);
      w.attrs["out_bits"] = wide;
      w.attrs["clip_min"] = -(int64_t(1) << (wide - 1));
      w.attrs["clip_max"] = (int64_t(1) << (wide - 1)) - 1;
      cpu::TensorMap x;
      for (const std::string& v : n.inputs) {
        if (!v.empty() && !net.graph.initializers.count(v)) x[v] = values.at(v);
      }
      pre = cpu::run_int(one, x).at(n.outputs[0]).to_int64();
      clips_at_max = n.attr_int("clip_max") == qmax;
      clips_at_min = n.attr_int("clip_min") == qmin;
    }
    const graph::Shape& shape = values.at(l.outputs[0]).shape();
    const int64_t C = shape.at(1), plane = int64_t(got.size()) / (shape[0] * C), image = C * plane;
    Expected e;
    e.overflow_map.assign(size_t(image), 0);
    e.zero_map.assign(size_t(image), 0);
    e.channel_overflows.assign(size_t(C), 0);
    const int g = st.histogram_guard_bits;
    e.pre = sim::IntHistogram(qmin * (int64_t(1) << g), (qmax + 1) * (int64_t(1) << g), st.histogram_bins);
    e.out = sim::IntHistogram(qmin, qmax + 1, int(std::min<int64_t>(st.histogram_bins, qmax - qmin + 1)));
    for (size_t k = 0; k < got.size(); ++k) {
      const int64_t v = pre[k], o = got[k];
      const bool overflow = (clips_at_max && v > qmax) || (clips_at_min && v < qmin);
      const size_t at = k % size_t(image);
      ++e.elements;
      if (overflow) {
        ++e.overflows;
        ++e.overflow_map[at];
        ++e.channel_overflows[at / size_t(plane)];
      }
      if (std::abs(o) <= st.zero_threshold) {
        ++e.zeros;
        ++e.zero_map[at];
      }
      e.pre.add(v);
      e.out.add(o);
      e.pre_min = std::min(e.pre_min, v);
      e.pre_max = std::max(e.pre_max, v);
      e.out_min = std::min(e.out_min, o);
      e.out_max = std::max(e.out_max, o);
      e.sum += o;
    }
    out[i] = std::move(e);
  }
  return out;
}

void expect_counts_agree(const backend::NetworkInstruments& got, const std::map<size_t, Expected>& want,
                         uint64_t* total_overflows) {
  for (const auto& [i, e] : want) {
    const sim::LayerInstruments* li = got.layer(i);
    ASSERT_NE(li, nullptr) << got.network().layers[i].name;
    const sim::LayerObservation& o = li->observation();
    const std::string name = got.network().layers[i].name;
    EXPECT_EQ(o.elements, e.elements) << name;
    EXPECT_EQ(o.overflows, e.overflows) << name;
    EXPECT_EQ(o.overflow_map, e.overflow_map) << name;
    EXPECT_EQ(o.channel_overflows, e.channel_overflows) << name;
    EXPECT_EQ(o.zeros, e.zeros) << name;
    EXPECT_EQ(o.zero_map, e.zero_map) << name;
    EXPECT_EQ(o.pre_cast.counts, e.pre.counts) << name;
    EXPECT_EQ(o.pre_cast.below, e.pre.below) << name;
    EXPECT_EQ(o.pre_cast.above, e.pre.above) << name;
    EXPECT_EQ(o.output.counts, e.out.counts) << name;
    EXPECT_EQ(o.pre_min, e.pre_min) << name;
    EXPECT_EQ(o.pre_max, e.pre_max) << name;
    EXPECT_EQ(o.out_min, e.out_min) << name;
    EXPECT_EQ(o.out_max, e.out_max) << name;
    EXPECT_EQ(o.out_sum, e.sum) << name;
    EXPECT_EQ(o.channel_elements() * o.channel_overflows.size(), o.elements) << name;
    *total_overflows += o.overflows;
  }
}

backend::InstrumentRequest all_layers(const std::string& spec = "all") {
  backend::InstrumentRequest r;
  r.specs.push_back(backend::parse_instrument_spec(spec));
  return r;
}

cpu::TensorMap images(const graph::Graph& g, int64_t first, int64_t count) {
  const graph::Tensor t = io::read_idx(fashion_mnist("t10k-images-idx3-ubyte.gz"));
  return {{g.inputs.at(0), model::idx_batch(t, first, count)}};
}

TEST(NetworkInstruments, CountsAgreeWithTheIntegerReferenceWhenCastsSaturate) {
  for (const std::string preset : {"pynq", "pynq_w4a4", "pynq_w16"}) {
    SCOPED_TRACE(preset);
    CompiledVgg s = make_setup(preset, graph::CalibStatistic::kPercentile, 90.0, 8);
    backend::NetworkRunner runner(s.net), overflow_only(s.net);
    backend::InstrumentRequest req = all_layers();
    req.settings.zero_threshold = 1;
    runner.enable_instruments(req);
    overflow_only.enable_instruments(all_layers("overflow"));  // its own, cheaper path
    uint64_t overflows = 0;
    std::map<size_t, Expected> want;
    for (int64_t first : {0, 8}) {  // two runs accumulate
      const cpu::TensorMap in = images(s.net.graph, first, 8);
      const std::map<size_t, Expected> w = independent_count(s.net, in, req.settings);
      for (const auto& [i, e] : w) {
        if (!want.count(i)) {
          want[i] = e;
          continue;
        }
        Expected& a = want[i];
        a.elements += e.elements;
        a.overflows += e.overflows;
        a.zeros += e.zeros;
        for (size_t k = 0; k < a.overflow_map.size(); ++k) a.overflow_map[k] += e.overflow_map[k];
        for (size_t k = 0; k < a.zero_map.size(); ++k) a.zero_map[k] += e.zero_map[k];
        for (size_t k = 0; k < a.channel_overflows.size(); ++k) a.channel_overflows[k] += e.channel_overflows[k];
        a.pre.merge(e.pre);
        a.out.merge(e.out);
        a.pre_min = std::min(a.pre_min, e.pre_min);
        a.pre_max = std::max(a.pre_max, e.pre_max);
        a.out_min = std::min(a.out_min, e.out_min);
        a.out_max = std::max(a.out_max, e.out_max);
        a.sum += e.sum;
      }
      backend::NetworkRunOptions ro;
      ro.image_base = first;
      runner.run(in, ro);
      overflow_only.run(in, ro);
    }
    for (const auto& [i, e] : want) {
      const sim::LayerObservation& o = overflow_only.instruments()->layer(i)->observation();
      EXPECT_EQ(o.elements, e.elements) << i;
      EXPECT_EQ(o.overflows, e.overflows) << i;
      EXPECT_EQ(o.overflow_map, e.overflow_map) << i;
      EXPECT_EQ(o.channel_overflows, e.channel_overflows) << i;
    }
    expect_counts_agree(*runner.instruments(), want, &overflows);
    EXPECT_GT(overflows, 0u) << "the 90th-percentile binary points should make some casts saturate";
    EXPECT_EQ(runner.instruments()->images(), 16);
  }
}

TEST(NetworkInstruments, OffLeavesOutputsAndCyclesUnchangedAndOnChangesNothingEither) {
  CompiledVgg s = make_setup("pynq", graph::CalibStatistic::kPercentile, 99.0, 4);
  const cpu::TensorMap in = images(s.net.graph, 20, 4);
  backend::NetworkRunner plain(s.net), observed(s.net);
  observed.enable_instruments(all_layers());
  const backend::NetworkRun a = plain.run(in), b = observed.run(in);
  for (const auto& [name, t] : a.outputs) EXPECT_TRUE(t == b.outputs.at(name)) << name;
  EXPECT_EQ(a.total.cycles, b.total.cycles);
  EXPECT_EQ(a.total.insns, b.total.insns);
  // Switched off again: no instruments, same figures.
  observed.enable_instruments({});
  EXPECT_EQ(observed.instruments(), nullptr);
  const backend::NetworkRun c = observed.run(in);
  EXPECT_EQ(c.total.cycles, a.total.cycles);
}

TEST(NetworkInstruments, SelectedLayersOnlyAndAccuracyRunsMergeAcrossBoards) {
  CompiledVgg s = make_setup("pynq", graph::CalibStatistic::kPercentile, 90.0, 8);
  // Pick the second convolution by one of its graph nodes.
  std::string conv;
  size_t conv_index = 0, convs = 0;
  for (size_t i = 0; i < s.net.layers.size(); ++i) {
    if (s.net.layers[i].op == "conv2d" && ++convs == 2) {
      conv = s.net.layers[i].nodes.at(0);
      conv_index = i;
    }
  }
  ASSERT_FALSE(conv.empty());
  backend::InstrumentRequest req = all_layers("overflow,histogram:" + conv);
  const graph::Tensor imgs = io::read_idx(fashion_mnist("t10k-images-idx3-ubyte.gz"));
  const graph::Tensor labels = io::read_idx(fashion_mnist("t10k-labels-idx1-ubyte.gz"));
  backend::NetworkAccuracyOptions o;
  o.begin = 100;
  o.limit = 21;  // a padded last batch: its zero images must not be counted
  o.threads = 2;
  o.instruments = &req;
  const backend::NetworkAccuracy two = backend::evaluate_network_accuracy(s.net, imgs, labels, o);
  o.threads = 1;
  const backend::NetworkAccuracy one = backend::evaluate_network_accuracy(s.net, imgs, labels, o);
  EXPECT_EQ(two.correct, one.correct);
  EXPECT_EQ(two.predictions, one.predictions);
  ASSERT_TRUE(two.instruments && one.instruments);
  EXPECT_EQ(two.instruments->images(), 21);
  for (size_t i = 0; i < s.net.layers.size(); ++i) {
    EXPECT_EQ(two.instruments->layer(i) != nullptr, i == conv_index) << s.net.layers[i].name;
  }
  const sim::LayerObservation& a = two.instruments->layer(conv_index)->observation();
  const sim::LayerObservation& b = one.instruments->layer(conv_index)->observation();
  EXPECT_EQ(a.elements, b.elements);
  EXPECT_EQ(a.overflow_map, b.overflow_map);
  EXPECT_EQ(a.pre_cast.counts, b.pre_cast.counts);
  // Exactly the 21 real images, none of the padding.
  const sim::OutputMap& m = two.instruments->layer(conv_index)->map();
  EXPECT_EQ(a.elements, uint64_t(21 * m.c * m.h * m.w));
  EXPECT_GT(a.overflows, 0u);
}

TEST(NetworkInstruments, TraceBufferSaysWhatItDropped) {
  CompiledVgg s = make_setup("pynq", graph::CalibStatistic::kPercentile, 90.0, 2);
  backend::NetworkRunner runner(s.net);
  backend::InstrumentRequest req = all_layers("overflow,trace");
  req.settings.trace_capacity = 100;
  runner.enable_instruments(req);
  runner.run(images(s.net.graph, 0, 2));
  const backend::NetworkInstruments& ni = *runner.instruments();
  EXPECT_EQ(ni.trace().events().size(), 100u);
  uint64_t elements = 0, overflows = 0;
  for (size_t i = 0; i < s.net.layers.size(); ++i) {
    if (const sim::LayerInstruments* li = ni.layer(i)) {
      elements += li->observation().elements;
      overflows += li->observation().overflows;
    }
  }
  // Every observed element is one value event, every overflow one overflow event.
  EXPECT_EQ(ni.trace().events().size() + ni.trace().dropped_total(), elements + overflows);
  EXPECT_NE(ni.summary_table().find("dropped"), std::string::npos);
  const auto dir = tauvta::testing::fresh_dir("instruments");
  ni.write(dir, false);
  for (const char* f : {"instruments.json", "layers.csv", "channels.csv", "histograms.csv", "trace.csv"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  }
  EXPECT_THROW(ni.write(dir, false), Error);  // nothing is overwritten without --force
  ni.write(dir, true);
}

TEST(NetworkInstruments, BadSpecsAreOneLineErrors) {
  auto msg = [](const std::string& spec) {
    try {
      backend::parse_instrument_spec(spec);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(msg("overflw").find("unknown instrument 'overflw'"), std::string::npos);
  EXPECT_NE(msg("overflow:").find("no layer after ':'"), std::string::npos);
  CompiledVgg s = make_setup("pynq", graph::CalibStatistic::kMax, 99.99, 1);
  backend::NetworkRunner runner(s.net);
  try {
    runner.enable_instruments(all_layers("overflow:no_such_layer"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no layer 'no_such_layer'"), std::string::npos) << e.what();
  }
  try {
    runner.enable_instruments(all_layers("overflow:/softmax/Softmax"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not run on the accelerator"), std::string::npos) << e.what();
  }
}

}  // namespace
