#include "backend/network_runner.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "backend/layer_specs.h"
#include "backend/rtl_driver.h"
#include "common/elapsed.h"
#include "common/error.h"
#include "lower/tensor_layout.h"

namespace tauvta::backend {

namespace {

const DramValue* form(const CompiledNetwork& net, const std::string& value, int block) {
  auto it = net.dram_values.find(value);
  if (it == net.dram_values.end()) return nullptr;
  for (const DramValue& d : it->second) {
    if (d.block == block) return &d;
  }
  return nullptr;
}

}  // namespace

NetworkRunner::NetworkRunner(const CompiledNetwork& net, int cpu_threads, bool rtl) : net_(net) {
  const uint64_t dram = net.program.image_bytes + (uint64_t(64) << 20);
  if (rtl) {
    auto driver = std::make_unique<RtlDriver>(net.config, dram);
    rtl_ = driver.get();
    device_ = std::make_unique<runtime::Device>(std::move(driver));
  } else {
    device_ = std::make_unique<runtime::Device>(net.config, dram);
  }
  program_ = std::make_unique<lower::LoadedProgram>(*device_, net.program);
  cpu::IntRunOptions o;
  o.threads = cpu_threads;
  for (const graph::Graph& part : net.cpu_parts) cpu_.push_back(std::make_unique<cpu::IntExecutor>(part, o));
}

NetworkRunner::~NetworkRunner() = default;

NetworkInstruments* NetworkRunner::enable_instruments(const InstrumentRequest& request) {
  instruments_.reset();
  if (!request.empty()) instruments_ = std::make_unique<NetworkInstruments>(net_, *program_, request);
  return instruments_.get();
}

void NetworkRunner::produced_on_host(const std::string& value, graph::Tensor t) {
  host_[value] = std::move(t);
  for (const auto& [derived, f] : net_.folds) {  // folded copies of the old value are stale
    if (f.source == value) valid_.erase(fmt::format("{}@{}", derived, net_.config.block_in()));
  }
  for (auto it = valid_.begin(); it != valid_.end();) {
    it = it->rfind(value + "@", 0) == 0 ? valid_.erase(it) : std::next(it);
  }
}

void NetworkRunner::produced_in_dram(const std::string& value, int block) {
  host_.erase(value);
  for (auto it = valid_.begin(); it != valid_.end();) {
    it = it->rfind(value + "@", 0) == 0 ? valid_.erase(it) : std::next(it);
  }
  valid_.insert(fmt::format("{}@{}", value, block));
}

const graph::Tensor& NetworkRunner::ensure_host(const std::string& value) {
  if (auto it = host_.find(value); it != host_.end()) return it->second;
  if (auto v = net_.views.find(value); v != net_.views.end()) {
    const graph::Tensor& src = ensure_host(v->second);
    const graph::ValueInfo* vi = net_.graph.info(value);
    if (!vi) throw InternalError(fmt::format("view '{}' has no shape", value));
    return host_[value] = src.reshaped(vi->shape);
  }
  auto it = net_.dram_values.find(value);
  if (it != net_.dram_values.end()) {
    for (const DramValue& d : it->second) {
      if (!valid_.count(d.region)) continue;
      const std::vector<int32_t> v =
          lower::unpack_activation(net_.config, d.shape, d.block, program_->read_region(d.region));
      const graph::ValueInfo* vi = net_.graph.info(value);
      graph::Shape shape = vi ? vi->shape : graph::Shape{d.shape.n, d.shape.c, d.shape.h, d.shape.w};
      graph::Tensor t(graph::DType::kInt32, shape);
      if (size_t(t.size()) != v.size()) {
        throw InternalError(fmt::format("value '{}': {} values in DRAM for shape {}", value, v.size(),
                                        graph::shape_string(shape)));
      }
      std::copy(v.begin(), v.end(), t.data<int32_t>());
      return host_[value] = std::move(t);
    }
  }
  throw InternalError(fmt::format("value '{}' is neither on the host nor in DRAM", value));
}

void NetworkRunner::ensure_dram(const std::string& value, int block) {
  const std::string src = net_.views.count(value) ? net_.views.at(value) : value;
  const DramValue* d = form(net_, src, block);
  if (!d) throw InternalError(fmt::format("value '{}' has no DRAM form with {} channels per element", src, block));
  if (valid_.count(d->region)) return;
  if (auto f = net_.folds.find(src); f != net_.folds.end()) {
    const graph::Tensor t = fold_input(ensure_host(f->second.source), f->second);
    const graph::Shape& fs = t.shape();
    if (fs[0] != d->shape.n || fs[1] != d->shape.c || fs[2] != d->shape.h || fs[3] != d->shape.w) {
      throw Error(fmt::format("value '{}': the folded input is {} but its DRAM form holds {}x{}x{}x{}", src, graph::shape_string(fs),
                              d->shape.n, d->shape.c, d->shape.h, d->shape.w));
    }
    program_->write_region(d->region, lower::pack_activation(net_.config, d->shape, d->block, int32_values(t)));
    valid_.insert(d->region);
    return;
  }
  program_->write_region(d->region,
                         lower::pack_activation(net_.config, d->shape, d->block, int32_values(ensure_host(src))));
  valid_.insert(d->region);
}

NetworkRun NetworkRunner::run(const cpu::TensorMap& inputs, const NetworkRunOptions& options) {
  const auto t0 = SteadyClock::now();
  host_.clear();
  valid_.clear();
  for (const std::string& in : net_.graph.inputs) {
    auto it = inputs.find(in);
    if (it == inputs.end()) throw Error(fmt::format("network input '{}' was not given", in));
    const graph::ValueInfo* vi = net_.graph.info(in);
    if (vi && vi->known_shape && it->second.shape() != vi->shape) {
      throw Error(fmt::format("input '{}' has shape {}, the compiled network expects {} (compile "
                              "with --batch to change the batch)",
                              in, graph::shape_string(it->second.shape()), graph::shape_string(vi->shape)));
    }
    host_[in] = it->second;
  }
  NetworkRun out;
  out.layers.resize(net_.layers.size());
  sim::RunOptions ro;
  ro.check_hazards = options.check_hazards;
  ro.portable_kernels = options.portable_kernels;
  const int bi = net_.config.block_in(), bo = net_.config.block_out();
  int64_t batch = 1;
  if (!net_.graph.inputs.empty()) {
    const graph::Shape& s = inputs.at(net_.graph.inputs[0]).shape();
    batch = s.empty() ? 1 : s[0];
  }
  const int64_t valid = options.valid_images < 0 ? batch : std::min(batch, options.valid_images);
  if (instruments_) instruments_->set_image_base(options.image_base, valid);
  for (size_t i = 0; i < net_.layers.size(); ++i) {
    const NetworkLayer& l = net_.layers[i];
    if (l.placement == Placement::kVta) {
      if (l.program_layer < 0) continue;  // a view
      for (const std::string& v : l.inputs) ensure_dram(v, bi);
      ro.instruments = instruments_ ? instruments_->layer(i) : nullptr;
      const rtl::AcceleratorRun rtl_before = rtl_ ? rtl_->rtl_counters() : rtl::AcceleratorRun{};
      out.layers[i].report = program_->run_layer(size_t(l.program_layer), ro);
      out.total.add(out.layers[i].report);
      if (rtl_) {
        for (size_t k = 0; k < rtl_before.counters.size(); ++k) {
          out.layers[i].rtl.counters[k] = rtl_->rtl_counters().counters[k] - rtl_before.counters[k];
        }
        out.layers[i].rtl_cycles = out.layers[i].rtl.cycles();
        out.rtl_cycles += out.layers[i].rtl_cycles;
        out.on_rtl = true;
      }
      for (const std::string& v : l.outputs) produced_in_dram(v, bo);
      continue;
    }
    const auto c0 = SteadyClock::now();
    cpu::TensorMap in;
    for (const std::string& v : l.inputs) in[v] = ensure_host(v);
    cpu::TensorMap res = cpu_.at(size_t(l.cpu_part))->run(in);
    for (auto& [name, t] : res) produced_on_host(name, std::move(t));
    out.layers[i].cpu_seconds = seconds_since(c0);
    out.cpu_seconds += out.layers[i].cpu_seconds;
  }
  for (const std::string& o : net_.graph.outputs) out.outputs[o] = ensure_host(o);
  if (instruments_) instruments_->count_images(valid);
  out.sim_wall_seconds = out.total.sim_wall_seconds;
  out.wall_seconds = seconds_since(t0);
  return out;
}

NetworkRun time_network(const CompiledNetwork& net) {
  const auto t0 = SteadyClock::now();
  lower::ProgramTimer timer(net.config);
  const std::vector<sim::RunReport> per = timer.time_layers(net.program);
  NetworkRun out;
  out.layers.resize(net.layers.size());
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const NetworkLayer& l = net.layers[i];
    if (l.placement != Placement::kVta || l.program_layer < 0) continue;
    out.layers[i].report = per.at(size_t(l.program_layer));
    out.total.add(out.layers[i].report);
  }
  out.sim_wall_seconds = seconds_since(t0);
  out.total.sim_wall_seconds = out.sim_wall_seconds;
  out.wall_seconds = out.sim_wall_seconds;
  return out;
}

}  // namespace tauvta::backend
