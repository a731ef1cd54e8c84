// The .tauvta artifact: a compiled network saved and loaded runs exactly as the original, and
// every kind of bad file is a one-line error naming the file and the problem.
#include <fstream>

#include <gtest/gtest.h>

#include "backend/artifact.h"
#include "backend/compile_network.h"
#include "backend/network_runner.h"
#include "common/error.h"
#include "io/tensor_files.h"
#include "model/pipeline.h"
#include "model/samples.h"
#include "../model/pipeline_test_util.h"

namespace {

using namespace tauvta;
using tauvta::testing::fashion_mnist;
using tauvta::testing::fresh_dir;
using tauvta::testing::source_path;

struct Fixture {
  model::LoadedModel m;
  backend::CompiledNetwork net;
  cpu::TensorMap in;
};

const Fixture& vgg7() {
  static const Fixture f = [] {
    Fixture x;
    model::LoadOptions o;
    o.quantize = true;
    o.calibrate = fashion_mnist("train-images-idx3-ubyte.gz");
    o.calib_samples = 64;
    x.m = model::load_model(source_path("models/vgg7_fmnist.onnx"), o);
    backend::CompileOptions co;
    co.batch = 3;
    x.net = backend::compile_network(x.m.quant.graph, o.config, co);
    x.in[x.m.quant.graph.inputs[0]] = model::idx_batch(io::read_idx(fashion_mnist("t10k-images-idx3-ubyte.gz")), 20, 3);
    return x;
  }();
  return f;
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    backend::deserialize_network(bytes, "m.tauvta");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Artifact, RoundTripRunsIdentically) {
  const Fixture& f = vgg7();
  const auto dir = fresh_dir("artifact");
  backend::save_network(f.net, dir / "m.tauvta", false);
  EXPECT_TRUE(backend::is_network_artifact(dir / "m.tauvta"));
  EXPECT_FALSE(backend::is_network_artifact(source_path("models/vgg7_fmnist.onnx")));
  const backend::CompiledNetwork back = backend::load_network(dir / "m.tauvta");
  EXPECT_EQ(back.layers.size(), f.net.layers.size());
  EXPECT_EQ(back.program.num_insns(), f.net.program.num_insns());
  for (size_t i = 0; i < back.layers.size(); ++i) {
    EXPECT_EQ(back.layers[i].schedule, f.net.layers[i].schedule) << back.layers[i].name;
    EXPECT_EQ(back.layers[i].reason, f.net.layers[i].reason);
  }
  backend::NetworkRunner a(f.net), b(back);
  const backend::NetworkRun ra = a.run(f.in), rb = b.run(f.in);
  ASSERT_EQ(ra.outputs.size(), rb.outputs.size());
  for (const auto& [k, t] : ra.outputs) EXPECT_TRUE(t == rb.outputs.at(k)) << k;
  EXPECT_EQ(ra.total.cycles, rb.total.cycles);
  // Saving again is the same bytes, and never overwrites without force.
  EXPECT_EQ(backend::serialize_network(back), backend::serialize_network(f.net));
  EXPECT_THROW(backend::save_network(f.net, dir / "m.tauvta", false), Error);
}

TEST(Artifact, BadFilesAreClearErrors) {
  const std::vector<uint8_t> good = backend::serialize_network(vgg7().net);
  EXPECT_EQ(error_of({'n', 'o', 'p', 'e'}), "m.tauvta: not a tauvta compiled network (no TAUVTA header)");
  std::vector<uint8_t> v = good;
  v[8] = 7;  // format version 7
  EXPECT_EQ(error_of(v),
            "m.tauvta: written by artifact format version 7, this tauvta reads version 1: compile the model again");
  v = good;
  v.resize(v.size() / 2);
  EXPECT_NE(error_of(v).find("m.tauvta: truncated artifact"), std::string::npos) << error_of(v);
  v = good;
  v[v.size() / 2] ^= 0x40;
  EXPECT_EQ(error_of(v), "m.tauvta: corrupted artifact: checksum mismatch");
  v = good;
  v.push_back(0);
  EXPECT_NE(error_of(v).find("m.tauvta: corrupted artifact"), std::string::npos) << error_of(v);
  // Every truncation point is an error, never a crash.
  for (size_t cut = 0; cut < good.size(); cut += good.size() / 97 + 1) {
    const std::vector<uint8_t> t(good.begin(), good.begin() + int64_t(cut));
    EXPECT_NE(error_of(t), "no error") << cut;
  }
}

}  // namespace
