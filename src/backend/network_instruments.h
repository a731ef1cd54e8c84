// The simulator's instruments over a whole compiled network: which accelerator layers are
// observed and by what (selective tracing, chosen at run time without recompiling), one shared
// trace buffer, accumulation over any number of runs (a dataset) and threads, and the files a
// user plots: instruments.json, per-layer/per-channel/histogram/trace CSVs and .npy maps.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "backend/network.h"
#include "lower/loaded_program.h"
#include "sim/instruments.h"

namespace tauvta::backend {

// "overflow,histogram" or "overflow,histogram:LAYER,LAYER" (a layer by its name, one of its
// graph nodes, its output value or its number in the layer table); kinds: overflow, histogram,
// sparsity, stats, trace, all.
struct InstrumentSpec {
  sim::InstrumentSelection what;
  std::vector<std::string> layers;  // empty: every accelerator layer
};
InstrumentSpec parse_instrument_spec(const std::string& spec);  // throws naming the bad part

struct InstrumentRequest {
  std::vector<InstrumentSpec> specs;  // a layer gets the union of the specs naming it
  sim::InstrumentSettings settings;
  bool empty() const { return specs.empty(); }
};

class NetworkInstruments {
 public:
  // Instruments for the layers `request` names, their output regions at `program`'s addresses.
  // Throws naming a layer that does not exist or does not run on the accelerator.
  NetworkInstruments(const CompiledNetwork& net, const lower::LoadedProgram& program,
                     const InstrumentRequest& request);

  // A deep copy (its layers trace into the copy's buffer).
  NetworkInstruments(const NetworkInstruments& other);
  NetworkInstruments& operator=(const NetworkInstruments&) = delete;

  // The instruments of network layer `i`, or null when it is not observed.
  sim::LayerInstruments* layer(size_t i);
  const sim::LayerInstruments* layer(size_t i) const;
  // The dataset image number of batch position 0 in the next run and how many positions hold
  // real images.
  void set_image_base(int64_t image, int64_t valid);
  // Adds what another set (same network and request, e.g. another thread's) observed.
  void merge(const NetworkInstruments& other);
  void count_images(int64_t n) { images_ += n; }

  const sim::TraceBuffer& trace() const { return trace_; }
  int64_t images() const { return images_; }
  const CompiledNetwork& network() const { return net_; }
  const InstrumentRequest& request() const { return request_; }

  nlohmann::json to_json() const;
  // A table per observed layer: elements, overflow rate, output range, mean, std, sparsity.
  std::string summary_table() const;
  // DIR/instruments.json, layers.csv, channels.csv, histograms.csv, trace.csv and
  // DIR/maps/NN_<layer>.{overflow,zeros}.npy; refuses to replace files unless `force`.
  void write(const std::filesystem::path& dir, bool force) const;

 private:
  const CompiledNetwork& net_;
  InstrumentRequest request_;
  sim::TraceBuffer trace_;
  std::vector<std::unique_ptr<sim::LayerInstruments>> layers_;  // parallel to net.layers
  int64_t images_ = 0;
};

// Which network layer a user's name means (name, node, output value, or number); -1 if none.
int64_t find_network_layer(const CompiledNetwork& net, const std::string& name);

}  // namespace tauvta::backend
