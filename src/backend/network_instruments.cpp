#include "backend/network_instruments.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "io/tensor_files.h"
#include "lower/tensor_layout.h"

namespace tauvta::backend {

using nlohmann::json;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

// The DRAM form a layer writes its first output in.
const DramValue& output_form(const CompiledNetwork& net, const NetworkLayer& l) {
  const std::string& value = l.outputs.at(0);
  auto it = net.dram_values.find(value);
  if (it != net.dram_values.end()) {
    for (const DramValue& d : it->second) {
      if (d.block == net.config.block_out()) return d;
    }
  }
  throw InternalError(fmt::format("layer '{}': output '{}' has no DRAM form", l.name, value));
}

std::string file_stem(size_t index, const std::string& name) {
  std::string s;
  for (char ch : name) s += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-') ? ch : '_';
  while (!s.empty() && s.front() == '_') s.erase(s.begin());
  return fmt::format("{:02}_{}", index, s);
}

void write_file(const std::filesystem::path& p, const std::string& text, bool force) {
  if (!force && std::filesystem::exists(p)) {
    throw Error(fmt::format("{}: file exists; pass --force to overwrite it", p.string()));
  }
  write_file_atomic(p, text);
}

json histogram_json(const sim::IntHistogram& h) {
  json edges = json::array();
  for (size_t b = 0; b <= h.counts.size(); ++b) edges.push_back(b < h.counts.size() ? h.bin_lo(b) : h.hi);
  return {{"lo", h.lo}, {"hi", h.hi}, {"edges", edges}, {"counts", h.counts}, {"below", h.below}, {"above", h.above}};
}

}  // namespace

InstrumentSpec parse_instrument_spec(const std::string& spec) {
  InstrumentSpec out;
  const size_t colon = spec.find(':');
  const std::string kinds = spec.substr(0, colon);
  for (const std::string& k : split(kinds, ',')) {
    if (k == "overflow") {
      out.what.overflow = true;
    } else if (k == "histogram") {
      out.what.histogram = true;
    } else if (k == "sparsity") {
      out.what.sparsity = true;
    } else if (k == "stats") {
      out.what.stats = true;
    } else if (k == "trace") {
      out.what.trace = true;
    } else if (k == "all") {
      out.what = {true, true, true, true, true};
    } else {
      throw Error(fmt::format("--instrument '{}': unknown instrument '{}' (overflow, histogram, "
                              "sparsity, stats, trace, all)", spec, k));
    }
  }
  if (!out.what.any()) throw Error(fmt::format("--instrument '{}': names no instrument", spec));
  if (colon != std::string::npos) {
    for (const std::string& l : split(spec.substr(colon + 1), ',')) {
      if (!l.empty()) out.layers.push_back(l);
    }
    if (out.layers.empty()) throw Error(fmt::format("--instrument '{}': no layer after ':'", spec));
  }
  return out;
}

int64_t find_network_layer(const CompiledNetwork& net, const std::string& name) {
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const NetworkLayer& l = net.layers[i];
    if (l.name == name) return int64_t(i);
    for (const std::string& n : l.nodes) if (n == name) return int64_t(i);
    for (const std::string& o : l.outputs) if (o == name) return int64_t(i);
  }
  if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) {
    const int64_t k = std::stoll(name);
    if (k >= 0 && k < int64_t(net.layers.size())) return k;
  }
  return -1;
}

NetworkInstruments::NetworkInstruments(const CompiledNetwork& net, const lower::LoadedProgram& program,
                                       const InstrumentRequest& request)
    : net_(net), request_(request), trace_(request.settings.trace_capacity) {
  std::vector<sim::InstrumentSelection> sel(net.layers.size());
  auto observable = [&](size_t i) {
    const NetworkLayer& l = net.layers[i];
    return l.placement == Placement::kVta && l.program_layer >= 0 && !l.outputs.empty();
  };
  for (const InstrumentSpec& s : request.specs) {
    auto add = [&](size_t i) {
      sim::InstrumentSelection& d = sel[i];
      d.overflow |= s.what.overflow;
      d.histogram |= s.what.histogram;
      d.sparsity |= s.what.sparsity;
      d.stats |= s.what.stats;
      d.trace |= s.what.trace;
    };
    if (s.layers.empty()) {
      for (size_t i = 0; i < net.layers.size(); ++i) if (observable(i)) add(i);
      continue;
    }
    for (const std::string& name : s.layers) {
      const int64_t i = find_network_layer(net, name);
      if (i < 0) throw Error(fmt::format("--instrument: no layer '{}' in the network", name));
      if (!observable(size_t(i))) {
        throw Error(fmt::format("--instrument: layer '{}' ({}) does not run on the accelerator: the "
                                "instruments observe the simulated board", name, net.layers[size_t(i)].op));
      }
      add(size_t(i));
    }
  }
  layers_.resize(net.layers.size());
  const uint64_t out_elem = uint64_t(net.config.out_elem_bytes());
  for (size_t i = 0; i < net.layers.size(); ++i) {
    if (!sel[i].any()) continue;
    const NetworkLayer& l = net.layers[i];
    const DramValue& d = output_form(net, l);
    sim::OutputMap m;
    const uint64_t addr = program.region_addr(d.region);
    if (addr % out_elem != 0) throw InternalError("output region is not OUT-element aligned");
    m.first_elem = addr / out_elem;
    m.elems = lower::act_bytes(net.config, d.shape, d.block) / out_elem;
    m.batch = net.config.batch();
    m.block = d.block;
    m.n = d.shape.n;
    m.c = d.shape.c;
    m.h = d.shape.h;
    m.w = d.shape.w;
    layers_[i] = std::make_unique<sim::LayerInstruments>(net.config, uint32_t(i), std::move(m), sel[i],
                                                         request.settings, &trace_);
  }
}

NetworkInstruments::NetworkInstruments(const NetworkInstruments& other)
    : net_(other.net_), request_(other.request_), trace_(other.trace_), images_(other.images_) {
  layers_.resize(other.layers_.size());
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (!other.layers_[i]) continue;
    layers_[i] = std::make_unique<sim::LayerInstruments>(*other.layers_[i]);
    layers_[i]->set_trace(&trace_);
  }
}

sim::LayerInstruments* NetworkInstruments::layer(size_t i) { return i < layers_.size() ? layers_[i].get() : nullptr; }
const sim::LayerInstruments* NetworkInstruments::layer(size_t i) const {
  return i < layers_.size() ? layers_[i].get() : nullptr;
}

void NetworkInstruments::set_image_base(int64_t image, int64_t valid) {
  for (auto& l : layers_) if (l) l->set_image_base(image, valid);
}

void NetworkInstruments::merge(const NetworkInstruments& other) {
  if (other.layers_.size() != layers_.size()) throw InternalError("NetworkInstruments::merge: other network");
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (!layers_[i] != !other.layers_[i]) throw InternalError("NetworkInstruments::merge: other selection");
    if (layers_[i]) layers_[i]->observation().merge(other.layers_[i]->observation());
  }
  trace_.merge(other.trace_);
  images_ += other.images_;
}

json NetworkInstruments::to_json() const {
  json layers = json::array();
  for (size_t i = 0; i < layers_.size(); ++i) {
    const sim::LayerInstruments* li = layers_[i].get();
    if (!li) continue;
    const NetworkLayer& l = net_.layers[i];
    const sim::LayerObservation& o = li->observation();
    const sim::InstrumentSelection& w = li->selection();
    json names = json::array();
    if (w.overflow) names.push_back("overflow");
    if (w.histogram) names.push_back("histogram");
    if (w.sparsity) names.push_back("sparsity");
    if (w.stats) names.push_back("stats");
    if (w.trace) names.push_back("trace");
    json j = {{"index", i}, {"layer", l.name}, {"op", l.op}, {"output", l.outputs.at(0)},
              {"shape", {li->map().n, li->map().c, li->map().h, li->map().w}},
              {"qmin", li->qmin()}, {"qmax", li->qmax()}, {"instruments", names},
              {"elements", o.elements}};
    if (w.overflow) {
      json rates = json::array();
      for (size_t c = 0; c < o.channel_overflows.size(); ++c) {
        rates.push_back(o.channel_elements() ? double(o.channel_overflows[c]) / double(o.channel_elements()) : 0.0);
      }
      j["overflow"] = {{"overflows", o.overflows}, {"rate", o.overflow_rate()},
                       {"channel_overflows", o.channel_overflows}, {"channel_rate", rates}};
    }
    if (w.histogram) j["histogram"] = {{"pre_cast", histogram_json(o.pre_cast)}, {"output", histogram_json(o.output)}};
    if (w.sparsity) j["sparsity"] = {{"threshold", request_.settings.zero_threshold}, {"zeros", o.zeros}, {"rate", o.sparsity()}};
    if (w.stats) {
      j["stats"] = {{"min", o.out_min}, {"max", o.out_max}, {"mean", o.mean()}, {"std", o.stddev()},
                    {"sparsity", o.sparsity()}, {"pre_cast_min", o.pre_min}, {"pre_cast_max", o.pre_max}};
    }
    layers.push_back(std::move(j));
  }
  return {{"config", net_.config.to_json()},
          {"images", images_},
          {"settings", {{"histogram_bins", request_.settings.histogram_bins},
                        {"histogram_guard_bits", request_.settings.histogram_guard_bits},
                        {"zero_threshold", request_.settings.zero_threshold},
                        {"trace_capacity", request_.settings.trace_capacity}}},
          {"layers", layers},
          {"trace", {{"capacity", trace_.capacity()}, {"events", trace_.events().size()},
                     {"dropped", {{"overflow", trace_.dropped(sim::TraceEvent::kOverflow)},
                                  {"value", trace_.dropped(sim::TraceEvent::kValue)}}}}}};
}

std::string NetworkInstruments::summary_table() const {
  std::string s = fmt::format("{:<32} {:>10} {:>12} {:>10} {:>13} {:>9} {:>9} {:>8}\n", "layer (instruments)",
                              "elements", "overflows", "rate", "pre-cast", "mean", "std", "zeros");
  for (size_t i = 0; i < layers_.size(); ++i) {
    const sim::LayerInstruments* li = layers_[i].get();
    if (!li) continue;
    const sim::LayerObservation& o = li->observation();
    std::string name = net_.layers[i].name;
    if (name.size() > 32) name = "..." + name.substr(name.size() - 29);
    s += fmt::format("{:<32} {:>10} {:>12} {:>10.6f} {:>13} {:>9.3f} {:>9.3f} {:>7.1f}%\n", name, o.elements,
                     o.overflows, o.overflow_rate(), fmt::format("[{},{}]", o.pre_min, o.pre_max), o.mean(),
                     o.stddev(), 100.0 * o.sparsity());
  }
  if (trace_.dropped_total() > 0) {
    s += fmt::format("trace buffer full: kept {} events, dropped {} overflow and {} value events (raise "
                     "--trace-capacity)\n",
                     trace_.events().size(), trace_.dropped(sim::TraceEvent::kOverflow),
                     trace_.dropped(sim::TraceEvent::kValue));
  }
  return s;
}

void NetworkInstruments::write(const std::filesystem::path& dir, bool force) const {
  std::filesystem::create_directories(dir / "maps");
  write_file(dir / "instruments.json", to_json().dump(2) + "\n", force);
  std::string layers = "index,layer,op,elements,overflows,overflow_rate,min,max,mean,std,sparsity,pre_cast_min,pre_cast_max\n";
  std::string channels = "index,layer,channel,elements,overflows,overflow_rate\n";
  std::string hist = "index,layer,kind,bin,lo,hi,count\n";
  for (size_t i = 0; i < layers_.size(); ++i) {
    const sim::LayerInstruments* li = layers_[i].get();
    if (!li) continue;
    const sim::LayerObservation& o = li->observation();
    const std::string& name = net_.layers[i].name;
    layers += fmt::format("{},{},{},{},{},{:.9g},{},{},{:.9g},{:.9g},{:.9g},{},{}\n", i, name, net_.layers[i].op,
                          o.elements, o.overflows, o.overflow_rate(), o.out_min, o.out_max, o.mean(), o.stddev(),
                          o.sparsity(), o.pre_min, o.pre_max);
    for (size_t c = 0; c < o.channel_overflows.size(); ++c) {
      const double r = o.channel_elements() ? double(o.channel_overflows[c]) / double(o.channel_elements()) : 0.0;
      channels += fmt::format("{},{},{},{},{},{:.9g}\n", i, name, c, o.channel_elements(), o.channel_overflows[c], r);
    }
    if (li->selection().histogram) {
      for (const auto& [kind, h] : {std::pair<const char*, const sim::IntHistogram*>{"pre_cast", &o.pre_cast},
                                    {"output", &o.output}}) {
        hist += fmt::format("{},{},{},below,,{},{}\n", i, name, kind, h->lo, h->below);
        for (size_t b = 0; b < h->counts.size(); ++b) {
          hist += fmt::format("{},{},{},{},{},{},{}\n", i, name, kind, b, h->bin_lo(b),
                              b + 1 < h->counts.size() ? h->bin_lo(b + 1) : h->hi, h->counts[b]);
        }
        hist += fmt::format("{},{},{},above,{},,{}\n", i, name, kind, h->hi, h->above);
      }
    }
    const graph::Shape shape{li->map().c, li->map().h, li->map().w};
    auto as_tensor = [&](const std::vector<uint64_t>& v) {
      return graph::Tensor::from_int64(graph::DType::kInt64, shape, std::vector<int64_t>(v.begin(), v.end()));
    };
    const std::filesystem::path stem = dir / "maps" / file_stem(i, name);
    if (li->selection().overflow) io::write_npy(stem.string() + ".overflow.npy", as_tensor(o.overflow_map), force);
    if (li->selection().sparsity) io::write_npy(stem.string() + ".zeros.npy", as_tensor(o.zero_map), force);
  }
  write_file(dir / "layers.csv", layers, force);
  write_file(dir / "channels.csv", channels, force);
  write_file(dir / "histograms.csv", hist, force);
  std::string trace = "layer,name,kind,image,index,channel,y,x,pre_cast,output\n";
  for (const sim::TraceEvent& e : trace_.events()) {
    const sim::LayerInstruments* li = layers_.at(e.layer).get();
    const int64_t plane = li->map().h * li->map().w;
    trace += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", e.layer, net_.layers[e.layer].name,
                         e.kind == sim::TraceEvent::kOverflow ? "overflow" : "value", e.image, e.index,
                         e.index / plane, (e.index % plane) / li->map().w, e.index % li->map().w, e.pre, e.out);
  }
  write_file(dir / "trace.csv", trace, force);
}

}  // namespace tauvta::backend
