// tauvta precision set's patching: moving binary points in a compiled network rewrites only ALU
// immediates and constants at the sites lowering recorded, and the result is byte-identical to a
// fresh compile of the model quantized at the same formats (VGG-7; ResNet-18 with its fused
// residual adds when scripts/make-models has built it). A change that would need other
// instructions is refused naming the layer and leaves the network as it was; the patch survives
// an artifact round trip.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "backend/artifact.h"
#include "backend/compile_network.h"
#include "backend/network_formats.h"
#include "backend/network_runner.h"
#include "common/error.h"
#include "io/tensor_files.h"
#include "model/pipeline.h"
#include "model/samples.h"
#include "../model/pipeline_test_util.h"

namespace {

using namespace tauvta;
using tauvta::testing::fashion_mnist;
using tauvta::testing::source_path;

backend::CompiledNetwork compile_at(const model::LoadedModel& m, const hw::HwConfig& c, const std::map<std::string, int>& formats,
                                    int64_t batch) {
  const graph::QuantizeResult q = model::requantize(m, formats);
  backend::CompileOptions co;
  co.batch = batch;
  backend::CompiledNetwork net = backend::compile_network(q.graph, c, co);
  backend::attach_quant_source(net, m.float_graph, q, m.quant_options);
  return net;
}

std::vector<uint8_t> bytes_of(backend::CompiledNetwork net) {
  net.compile_seconds = 0;
  net.lower_seconds = 0;
  return backend::serialize_network(net);
}

// The first part of two networks that differs (for the failure message).
std::string first_difference(const backend::CompiledNetwork& a, const backend::CompiledNetwork& b) {
  if (a.graph.nodes.size() != b.graph.nodes.size()) return "node count";
  for (size_t i = 0; i < a.graph.nodes.size(); ++i) {
    if (a.graph.nodes[i].attrs != b.graph.nodes[i].attrs) return "attributes of " + a.graph.nodes[i].name;
    if (a.graph.nodes[i].inputs != b.graph.nodes[i].inputs) return "inputs of " + a.graph.nodes[i].name;
  }
  for (const auto& [k, t] : a.graph.initializers) {
    if (!b.graph.initializers.count(k) || !(b.graph.initializers.at(k) == t)) return "initializer " + k;
  }
  for (const auto& [k, v] : a.graph.values) {
    if (!b.graph.values.count(k) || !(b.graph.values.at(k).quant == v.quant) || b.graph.values.at(k).shape != v.shape) return "value info " + k;
  }
  if (a.program.streams.size() != b.program.streams.size()) return "stream count";
  for (size_t s = 0; s < a.program.streams.size(); ++s) {
    const auto &x = a.program.streams[s].insns, &y = b.program.streams[s].insns;
    if (x.size() != y.size()) return "stream " + std::to_string(s) + " length";
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].imm != y[i].imm || x[i].opcode != y[i].opcode) return "stream " + std::to_string(s) + " insn " + std::to_string(i);
    }
  }
  if (a.program.constants.size() != b.program.constants.size()) return "constant chunks";
  for (size_t c = 0; c < a.program.constants.size(); ++c) {
    if (a.program.constants[c].bytes != b.program.constants[c].bytes) return "constant chunk " + std::to_string(c);
  }
  for (size_t p = 0; p < a.cpu_parts.size(); ++p) {
    if (a.cpu_parts[p].nodes.at(0).attrs != b.cpu_parts[p].nodes.at(0).attrs) return "cpu part " + std::to_string(p);
  }
  if (a.quant_source->options.formats != b.quant_source->options.formats) return "formats";
  return "elsewhere (manifest)";
}

// Applies `moves` (slot index, bits) one at a time; a move the sites cannot take must be refused
// without changing anything. Returns the layers patched; the result must equal a fresh compile.
std::set<std::string> expect_patch_equals_fresh_compile(const model::LoadedModel& m, const hw::HwConfig& c,
                                                        const std::vector<std::pair<size_t, int>>& moves, int64_t batch,
                                                        bool refusals_allowed) {
  backend::CompiledNetwork net = compile_at(m, c, m.quant.activation_formats, batch);
  std::vector<std::string> keys;
  for (const auto& [k, f] : m.quant.activation_formats) keys.push_back(k);
  std::map<std::string, int> all = m.quant.activation_formats;
  std::set<std::string> patched;
  for (const auto& [i, d] : moves) {
    const std::string& k = keys.at(i % keys.size());
    const std::vector<uint8_t> before = bytes_of(net);
    try {
      const backend::FormatPatch p = backend::set_formats(net, {{k, all[k] + d}});
      all[k] += d;
      patched.insert(p.patched_layers.begin(), p.patched_layers.end());
    } catch (const Error& e) {
      EXPECT_TRUE(refusals_allowed) << e.what();
      EXPECT_NE(std::string(e.what()).find("lowered again"), std::string::npos) << e.what();
      EXPECT_TRUE(bytes_of(net) == before) << "a refused change altered the network";
    }
  }
  EXPECT_FALSE(patched.empty());
  const backend::CompiledNetwork fresh = compile_at(m, c, all, batch);
  EXPECT_TRUE(bytes_of(net) == bytes_of(fresh)) << "the patched network differs from a fresh compile at the same formats: "
                                                << first_difference(net, fresh);
  // And it survives an artifact round trip.
  const backend::CompiledNetwork back = backend::deserialize_network(backend::serialize_network(net), "patched");
  EXPECT_TRUE(bytes_of(back) == bytes_of(fresh));
  return patched;
}

TEST(FormatPatch, Vgg7PatchedEqualsFreshCompile) {
  model::LoadOptions o;
  o.quantize = true;
  o.calibrate = fashion_mnist("train-images-idx3-ubyte.gz");
  o.calib_samples = 64;
  for (const std::string preset : {"pynq", "pynq_w4a4"}) {
    SCOPED_TRACE(preset);
    o.config = hw::HwConfig::load(source_path("configs/" + preset + ".json"));
    const model::LoadedModel m = model::load_model(source_path("models/vgg7_fmnist.onnx"), o);
    expect_patch_equals_fresh_compile(m, o.config, {{1, -1}, {3, 1}, {5, 2}, {7, -1}}, 2, false);
    expect_patch_equals_fresh_compile(m, o.config, {{0, 1}}, 1, false);  // the input: CPU Quantize and the first conv
  }
}

TEST(FormatPatch, ResNet18FusedAddsPatchedEqualsFreshCompile) {
  const auto model = std::filesystem::path(TAUVTA_SOURCE_DIR) / "build/models/resnet18.onnx";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "run scripts/make-models first";
  model::LoadOptions o;
  o.quantize = true;
  o.calib_samples = 4;
  o.calibrate = std::filesystem::path(TAUVTA_SOURCE_DIR) / "build/models/resnet18_input.npy";
  const model::LoadedModel m = model::load_model(model, o);
  // Residual blocks whose add shift is 0 have no rounding ADD or SHR to patch: those moves are
  // refused; the others must patch fused layers exactly.
  std::vector<std::pair<size_t, int>> moves;
  for (size_t i = 0; i < m.quant.activation_formats.size(); i += 2) moves.push_back({i, i % 4 == 0 ? 1 : -1});
  const std::set<std::string> patched = expect_patch_equals_fresh_compile(m, o.config, moves, 1, true);
  bool fused = false;
  const backend::CompiledNetwork net = compile_at(m, o.config, m.quant.activation_formats, 1);
  for (const backend::NetworkLayer& l : net.layers) fused = fused || (patched.count(l.name) && l.op.find("+add") != std::string::npos);
  EXPECT_TRUE(fused) << "no fused conv+add layer was patched";
}

TEST(FormatPatch, ChangesNeedingOtherInstructionsAreRefusedAndLeaveTheNetwork) {
  model::LoadOptions o;
  o.quantize = true;
  o.calibrate = fashion_mnist("train-images-idx3-ubyte.gz");
  o.calib_samples = 64;
  const model::LoadedModel m = model::load_model(source_path("models/vgg7_fmnist.onnx"), o);
  backend::CompiledNetwork net = compile_at(m, o.config, m.quant.activation_formats, 1);
  const std::vector<uint8_t> before = bytes_of(net);
  const std::string conv1 = "/features/features.1/Relu_output_0";
  ASSERT_TRUE(m.quant.activation_formats.count(conv1));
  // 12 bits coarser: the shift grows past SHR's 15 and needs a second SHR.
  try {
    backend::set_formats(net, {{conv1, m.quant.activation_formats.at(conv1) - 12}});
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs the layer lowered again"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/features/features.0/Conv"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(bytes_of(net) == before);
  EXPECT_THROW(backend::set_formats(net, {{"no_such_value", 3}}), Error);
  backend::CompiledNetwork bare = backend::compile_network(m.quant.graph, o.config);
  EXPECT_THROW(backend::set_formats(bare, {{conv1, 3}}), Error);  // no float graph to quantize again
}

}  // namespace
