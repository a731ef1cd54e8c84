#include "backend/compile_network.h"

#include <chrono>
#include <set>

#include <fmt/format.h>

#include "backend/layer_specs.h"
#include "common/error.h"
#include "lower/alu_lowering.h"
#include "lower/conv_lowering.h"
#include "lower/program_builder.h"

namespace tauvta::backend {

const char* placement_name(Placement p) { return p == Placement::kVta ? "vta" : "cpu"; }

graph::Graph cpu_part_graph(const graph::Graph& g, const graph::Node& n) {
  graph::Graph part;
  part.name = n.name;
  part.opset = g.opset;
  for (const std::string& v : n.inputs) {
    if (v.empty()) continue;
    if (g.is_initializer(v)) {
      part.initializers[v] = g.initializers.at(v);
    } else if (std::find(part.inputs.begin(), part.inputs.end(), v) == part.inputs.end()) {
      part.inputs.push_back(v);
    }
    if (const graph::ValueInfo* vi = g.info(v)) part.values[v] = *vi;
  }
  for (const std::string& v : n.outputs) {
    if (v.empty()) continue;
    part.outputs.push_back(v);
    if (const graph::ValueInfo* vi = g.info(v)) part.values[v] = *vi;
  }
  part.nodes.push_back(n);
  return part;
}

size_t CompiledNetwork::vta_layers() const {
  size_t n = 0;
  for (const NetworkLayer& l : layers) n += l.placement == Placement::kVta && l.program_layer >= 0;
  return n;
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

class NetworkCompiler {
 public:
  NetworkCompiler(const graph::Graph& g, const hw::HwConfig& c, const CompileOptions& o)
      : g_(net_.graph), source_(g), c_(c), options_(o), pb_(c) {}

  CompiledNetwork run() {
    const auto t0 = Clock::now();
    net_.config = c_;
    net_.graph = source_;
    for (auto& [name, v] : net_.graph.values) {
      if (v.known_shape && !v.shape.empty() && v.shape[0] < 0) v.shape[0] = options_.batch;
    }
    find_views();
    for (const graph::Node& n : g_.nodes) place(n);
    buffers_.clear();
    net_.program = pb_.finish();
    net_.compile_seconds = since(t0);
    return std::move(net_);
  }

 private:
  // Flatten/Reshape from a 4-D activation to [N, C*H*W] read only by dense layers with constant
  // weights: the dense layer reads the blocked tensor directly, its weights permuted to match.
  void find_views() {
    for (const graph::Node& n : g_.nodes) {
      if ((n.op_type != "Flatten" && n.op_type != "Reshape") || n.outputs.size() != 1) continue;
      const graph::ValueInfo* in = g_.info(n.input(0));
      const graph::ValueInfo* out = g_.info(n.outputs[0]);
      if (!in || !out || !in->known_shape || !out->known_shape || in->shape.size() != 4 ||
          out->shape.size() != 2 || !in->quant.quantized()) {
        continue;
      }
      if (out->shape[0] != in->shape[0] || out->shape[1] != in->shape[1] * in->shape[2] * in->shape[3]) continue;
      const auto readers = g_.consumers(n.outputs[0]);
      bool dense_only = !readers.empty();
      for (const graph::Node* r : readers) {
        dense_only = dense_only && r->op_type == "QGemm" && r->input(0) == n.outputs[0] &&
                     g_.is_initializer(r->input(1));
      }
      if (dense_only) net_.views[n.outputs[0]] = n.input(0);
    }
  }

  const runtime::DramBuffer& dram(const std::string& value, int block) {
    const std::string src = net_.views.count(value) ? net_.views.at(value) : value;
    const std::string region = fmt::format("{}@{}", src, block);
    if (auto it = buffers_.find(region); it != buffers_.end()) return it->second;
    const lower::ActShape s = act_shape(g_, src);
    runtime::DramBuffer b = pb_.alloc(lower::act_bytes(c_, s, block), region);
    net_.dram_values[src].push_back(DramValue{s, block, region});
    return buffers_.emplace(region, std::move(b)).first->second;
  }

  NetworkLayer base_layer(const graph::Node& n) const {
    NetworkLayer l;
    l.name = n.name;
    l.op = n.op_type;
    l.nodes = {n.name};
    for (const std::string& v : n.inputs) {
      if (!v.empty() && !g_.is_initializer(v)) l.inputs.push_back(v);
    }
    for (const std::string& v : n.outputs) {
      if (!v.empty()) l.outputs.push_back(v);
    }
    return l;
  }

  void place(const graph::Node& n) {
    NetworkLayer l = base_layer(n);
    if (!n.outputs.empty() && net_.views.count(n.outputs[0])) {
      l.op = "view";
      l.placement = Placement::kVta;
      l.reason = "a reshape of the blocked tensor, folded into the next dense layer's weight order";
      net_.layers.push_back(std::move(l));
      return;
    }
    const auto t0 = Clock::now();
    std::string why;
    lowering_started_ = false;
    try {
      why = try_accelerator(n, l);
    } catch (const Error& e) {
      // Before a layer's first instruction an error only means "not on the accelerator"; after
      // it the program would be half-written.
      if (lowering_started_) throw;
      why = e.what();
    }
    lower_seconds_ += since(t0);
    net_.lower_seconds = lower_seconds_;
    if (why.empty()) {
      net_.layers.push_back(std::move(l));
      return;
    }
    l.placement = Placement::kCpu;
    l.reason = why;
    l.program_layer = -1;
    l.workload.reset();
    l.schedule.reset();
    l.cpu_part = int64_t(net_.cpu_parts.size());
    net_.cpu_parts.push_back(cpu_part_graph(g_, n));
    net_.layers.push_back(std::move(l));
  }

  // Lowers `n` onto the accelerator and fills `l`; returns the reason when it cannot.
  std::string try_accelerator(const graph::Node& n, NetworkLayer& l) {
    const std::string& op = n.op_type;
    if (op == "QConv" || op == "QGemm" || op == "QAveragePool" || op == "QGlobalAveragePool") {
      ConvLayer cl = op == "QConv"   ? conv_layer(g_, n, c_)
                     : op == "QGemm" ? dense_layer(g_, n, c_, net_.views)
                                     : avg_pool_layer(g_, n, c_);
      const int64_t pieces = lower::shift_vector_pieces(c_, cl.spec.channel_shifts());
      lower::Schedule s;
      if (auto it = options_.schedules.find(cl.spec.w); it != options_.schedules.end()) {
        s = it->second.schedule;
        l.schedule_source = it->second.source;
        (void)lower::resolve_schedule(c_, cl.spec.w, s, pieces);  // names the illegal knob
      } else {
        s = lower::default_schedule(c_, cl.spec.w, pieces);
        l.schedule_source = "default heuristic";
      }
      const runtime::DramBuffer& in = dram(n.input(0), c_.block_in());
      const runtime::DramBuffer& out = dram(n.outputs[0], c_.block_out());
      lowering_started_ = true;
      l.program_layer = pb_.begin_layer(n.name);
      lower::lower_conv(pb_, cl.spec, s, in, out);
      l.op = cl.op;
      l.placement = Placement::kVta;
      l.reason = cl.reason;
      l.workload = cl.spec.w;
      l.schedule = s;
      l.macs = cl.macs;
      return "";
    }
    if (op == "MaxPool") {
      const lower::MaxPoolSpec p = max_pool_spec(g_, n);
      if (std::string why = lower::max_pool_problem(c_, p); !why.empty()) return why;
      const runtime::DramBuffer& in = dram(n.input(0), c_.block_in());
      const runtime::DramBuffer& out = dram(n.outputs[0], c_.block_out());
      lowering_started_ = true;
      l.program_layer = pb_.begin_layer(n.name);
      lower::lower_max_pool(pb_, p, in, out);
      l.op = "max_pool";
      l.placement = Placement::kVta;
      l.reason = "tensor ALU: identity GEMM into the accumulators, MAX per window tap";
      return "";
    }
    if (op == "QAdd") {
      const lower::AddSpec a = add_spec(g_, n, c_);
      if (std::string why = lower::add_problem(c_, a); !why.empty()) return why;
      const runtime::DramBuffer& x = dram(n.input(0), c_.block_in());
      const runtime::DramBuffer& y = dram(n.input(1), c_.block_in());
      const runtime::DramBuffer& out = dram(n.outputs[0], c_.block_out());
      lowering_started_ = true;
      l.program_layer = pb_.begin_layer(n.name);
      lower::lower_add(pb_, a, x, y, out);
      l.op = "add";
      l.placement = Placement::kVta;
      l.reason = "GEMM with scaled identity tiles aligns the binary points; ALU requantizes";
      return "";
    }
    return cpu_reason(n);
  }

  CompiledNetwork net_;
  const graph::Graph& g_;  // net_.graph: the graph with its batch fixed
  const graph::Graph& source_;
  const hw::HwConfig& c_;
  const CompileOptions& options_;
  lower::ProgramBuilder pb_;
  std::map<std::string, runtime::DramBuffer> buffers_;
  double lower_seconds_ = 0;
  bool lowering_started_ = false;
};

}  // namespace

CompiledNetwork compile_network(const graph::Graph& quantized, const hw::HwConfig& config,
                                const CompileOptions& options) {
  return NetworkCompiler(quantized, config, options).run();
}

}  // namespace tauvta::backend
