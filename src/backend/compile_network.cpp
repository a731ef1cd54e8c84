#include "backend/compile_network.h"

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "backend/layer_specs.h"
#include "common/elapsed.h"
#include "common/error.h"
#include "graph/shape_rules.h"
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

bool is_gemm_op(const std::string& op) {
  const std::string base = op.substr(0, op.find('+'));
  return base == "conv2d" || base == "group_conv2d" || base == "conv2d_transpose" || base == "dense";
}

size_t CompiledNetwork::vta_layers() const {
  size_t n = 0;
  for (const NetworkLayer& l : layers) n += l.placement == Placement::kVta && l.program_layer >= 0;
  return n;
}


graph::Graph with_batch(const graph::Graph& g, int64_t batch) {
  graph::Graph out = g;
  for (auto& [name, v] : out.values) {
    if (v.known_shape && !v.shape.empty() && v.shape[0] < 0) v.shape[0] = batch;
  }
  // Values whose first dimension is not the batch itself: a Reshape that merges the batch into
  // rows ([B, T, K] -> [-1, K], graph::fuse_patterns' token-wise dense layers) and the QGemm
  // reading those rows. Their shapes are derived again from their now known inputs.
  for (const graph::Node& n : out.nodes) {
    const graph::ValueInfo* in = out.info(n.input(0));
    if (n.outputs.empty() || in == nullptr || !in->known_shape) continue;
    graph::ValueInfo* o = out.values.count(n.outputs[0]) ? &out.values.at(n.outputs[0]) : nullptr;
    if (o == nullptr || !o->known_shape) continue;
    if (n.op_type == "Reshape" && out.is_initializer(n.input(1))) {
      // The Reshape shape rule itself (0 copies a dimension, -1 takes the rest).
      const graph::Tensor& target = out.initializers.at(n.input(1));
      const graph::ValueInfo target_info{n.input(1), target.dtype(), target.shape(), true, {}};
      const graph::InferArgs args{n, {in, &target_info}, {nullptr, &target}};
      o->shape = graph::find_tensor_rule("Reshape")(args).at(0).shape;
    } else if (n.op_type == "QGemm" && out.is_initializer(n.input(1)) && !in->shape.empty()) {
      graph::Shape s = in->shape;
      s.back() = out.initializers.at(n.input(1)).shape()[0];
      o->shape = s;
    }
  }
  return out;
}

namespace {

class NetworkCompiler {
 public:
  NetworkCompiler(const graph::Graph& g, const hw::HwConfig& c, const CompileOptions& o)
      : g_(net_.graph), source_(g), c_(c), options_(o), pb_(c) {}

  CompiledNetwork run() {
    const auto t0 = SteadyClock::now();
    net_.config = c_;
    net_.graph = with_batch(source_, options_.batch);
    find_views();
    for (const graph::Node& n : g_.nodes) place(n);
    buffers_.clear();
    net_.program = pb_.finish();
    net_.compile_seconds = seconds_since(t0);
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
    if (fused_.count(n.name)) return;  // computed by the layer it was fused into
    NetworkLayer l = base_layer(n);
    if (!n.outputs.empty() && net_.views.count(n.outputs[0])) {
      l.op = "view";
      l.placement = Placement::kVta;
      l.reason = "a reshape of the blocked tensor, folded into the next dense layer's weight order";
      net_.layers.push_back(std::move(l));
      return;
    }
    const auto t0 = SteadyClock::now();
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
    lower_seconds_ += seconds_since(t0);
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

  // A convolution with few input channels whose input the host produces anyway reads a copy
  // with the kernel folded into the channels when that needs fewer GEMM micro-ops (and, folded
  // over rows and columns, its bias in spare lanes; backend/input_fold.h); returns the value to
  // read.
  std::string maybe_fold_input(const graph::Node& n, ConvLayer& cl) {
    const graph::Node* producer = g_.producer(n.input(0));
    bool on_host = producer == nullptr;
    for (const NetworkLayer& l : net_.layers) {
      if (producer && l.name == producer->name) on_host = l.placement == Placement::kCpu;
    }
    if (!on_host) return n.input(0);
    std::optional<InputFold> f = choose_input_fold(c_, cl.spec.w, n.input(0));
    if (!f) return n.input(0);
    f->constants = bias_lane_constants(c_, cl.spec, *f);
    if (std::string why = apply_input_fold(c_, cl.spec, *f); !why.empty()) throw InternalError("input fold: " + why);
    const std::string name = fold_value_name(*f);
    if (!net_.folds.count(name)) {
      net_.folds[name] = *f;
      graph::ValueInfo& vi = net_.graph.info_mut(name);
      vi = *g_.info(f->source);
      vi.name = name;
      vi.shape = {vi.shape[0], cl.spec.w.in_channels, cl.spec.w.height, cl.spec.w.width};
    }
    return name;
  }

  // The QAdd to fuse after convolution `n`, with cl.spec.add filled in: `n`'s output feeds only
  // that add, the add's other operand (same shape) exists before `n` runs, and the add fits the
  // convolution's epilogue. Otherwise nullptr (the add stays its own layer).
  const graph::Node* fuse_residual_add(const graph::Node& n, ConvLayer& cl) {
    const std::vector<const graph::Node*> users = g_.consumers(n.outputs[0]);
    if (users.size() != 1 || users[0]->op_type != "QAdd") return nullptr;
    if (std::find(g_.outputs.begin(), g_.outputs.end(), n.outputs[0]) != g_.outputs.end()) return nullptr;
    const graph::Node& add = *users[0];
    const bool conv_is_lhs = add.input(0) == n.outputs[0];
    const std::string& other = conv_is_lhs ? add.input(1) : add.input(0);
    if (other == n.outputs[0]) return nullptr;
    if (const graph::Node* p = g_.producer(other); p != nullptr) {
      bool placed = false;
      for (const NetworkLayer& done : net_.layers) {
        placed = placed || std::find(done.nodes.begin(), done.nodes.end(), p->name) != done.nodes.end();
      }
      if (!placed) return nullptr;
    }
    lower::AddSpec a;
    try {
      a = add_spec(g_, add, c_);
    } catch (const Error&) {
      return nullptr;
    }
    if (!lower::add_problem(c_, a).empty()) return nullptr;
    const std::optional<lower::FusedAdd> fa = fused_add_of(a, conv_is_lhs);
    if (!fa) return nullptr;
    const lower::FusedAdd& f = *fa;
    if (!lower::fused_add_problem(c_, cl.spec, f).empty()) return nullptr;
    cl.spec.add = f;
    // The fused tiles must still fit: when even the smallest tiles on one thread do not, no
    // schedule does, and the add stays separate.
    lower::Schedule smallest;
    for (lower::Split* sp : {&smallest.tile_b, &smallest.tile_h, &smallest.tile_w, &smallest.tile_ci, &smallest.tile_co}) {
      *sp = lower::Split{-1, 1};
    }
    const lower::ConvGeometry geo = lower::conv_geometry(c_, cl.spec.w);
    if (!lower::schedule_problem(c_, cl.spec.w, geo, smallest, cl.spec.needs(c_), nullptr).empty()) {
      cl.spec.add.reset();
      return nullptr;
    }
    return &add;
  }

  // Lowers `n` onto the accelerator and fills `l`; returns the reason when it cannot.
  std::string try_accelerator(const graph::Node& n, NetworkLayer& l) {
    const std::string& op = n.op_type;
    if (is_conv_family(op)) {
      ConvLayer cl = conv_family_layer(g_, n, c_, net_.views);
      std::string input = n.input(0);
      if (op == "QConv") input = maybe_fold_input(n, cl);
      const graph::Node* add = op == "QConv" ? fuse_residual_add(n, cl) : nullptr;
      if (add) {
        // A tuned schedule that only the fused residual tile makes illegal wins over the fusion.
        if (auto it = options_.schedules.find(cl.spec.w); it != options_.schedules.end()) {
          const lower::ConvGeometry geo = lower::conv_geometry(c_, cl.spec.w);
          const lower::LayerNeeds plain{cl.spec.acc_vectors(c_), false};
          if (!lower::schedule_problem(c_, cl.spec.w, geo, it->second.schedule, cl.spec.needs(c_), nullptr).empty() &&
              lower::schedule_problem(c_, cl.spec.w, geo, it->second.schedule, plain, nullptr).empty()) {
            cl.spec.add.reset();
            add = nullptr;
          }
        }
      }
      const lower::LayerNeeds pieces = cl.spec.needs(c_);
      lower::Schedule s;
      l.schedule_source = "default heuristic";
      bool chosen = false;
      if (auto it = options_.schedules.find(cl.spec.w); it != options_.schedules.end()) {
        try {
          (void)lower::resolve_schedule(c_, cl.spec.w, it->second.schedule, pieces);
          s = it->second.schedule;
          l.schedule_source = it->second.source;
          chosen = true;
        } catch (const Error& e) {
          // A tuned schedule can be illegal for this layer when its per-channel shift vectors
          // need ACC space the tuning run did not reserve: say so and use the heuristic.
          l.schedule_source = fmt::format("default heuristic ({} is illegal here: {})", it->second.source, e.what());
        }
      }
      if (!chosen && pieces.residual) {
        // The unfused layer's heuristic choice when the residual tile still fits beside it:
        // layers that share a workload then share one heuristic search.
        const lower::Schedule plain = lower::default_schedule(c_, cl.spec.w, lower::LayerNeeds{pieces.acc_vectors, false});
        const lower::ConvGeometry geo = lower::conv_geometry(c_, cl.spec.w);
        if (lower::schedule_problem(c_, cl.spec.w, geo, plain, pieces, nullptr).empty()) {
          s = plain;
          chosen = true;
        }
      }
      if (!chosen) s = lower::default_schedule(c_, cl.spec.w, pieces);
      const runtime::DramBuffer& in = dram(input, c_.block_in());
      const std::string other = add ? (add->input(0) == n.outputs[0] ? add->input(1) : add->input(0)) : "";
      const runtime::DramBuffer* residual = add ? &dram(other, c_.block_in()) : nullptr;
      const runtime::DramBuffer& out = dram(add ? add->outputs[0] : n.outputs[0], c_.block_out());
      lowering_started_ = true;
      l.program_layer = pb_.begin_layer(n.name);
      lower::lower_conv(pb_, cl.spec, s, in, out, residual);
      if (input != n.input(0)) {
        l.inputs = {input};
        const InputFold& f = net_.folds.at(input);
        cl.reason += fmt::format(" (kernel {} folded into the {} input channels on the host{})", f.rows() ? "rows and columns" : "columns",
                                 cl.spec.w.in_channels,
                                 f.constants.empty() ? "" : fmt::format(", bias in {} constant lanes", f.constants.size()));
      }
      if (add) {
        fused_.insert(add->name);
        l.nodes.push_back(add->name);
        l.inputs.push_back(other);
        l.outputs = {add->outputs[0]};
        cl.op += "+add";
        cl.reason += fmt::format("; the residual add '{}' (+ its clip) fused: the other operand joins the "
                                 "accumulators through a scaled identity tile",
                                 add->name);
      }
      l.op = cl.op;
      l.placement = Placement::kVta;
      l.reason = cl.reason;
      l.workload = cl.spec.w;
      l.schedule = s;
      l.timing_spec = cl.spec;
      l.timing_spec->weights = {};
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
  std::set<std::string> fused_;  // graph nodes computed inside another node's layer
};

}  // namespace

CompiledNetwork compile_network(const graph::Graph& quantized, const hw::HwConfig& config,
                                const CompileOptions& options) {
  return NetworkCompiler(quantized, config, options).run();
}

}  // namespace tauvta::backend
