#include "dse/design_space.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "common/error.h"
#include "dse/design_mapping.h"
#include "fpga/clock_model.h"
#include "rtl/datapath_shape.h"

namespace tauvta::dse {

const char* knob_name(Knob k) {
  switch (k) {
    case Knob::kBatch: return "batch";
    case Knob::kBlockIn: return "block_in";
    case Knob::kBlockOut: return "block_out";
    case Knob::kAccWidth: return "acc_width";
    case Knob::kInpBuf: return "log_inp_buff";
    case Knob::kWgtBuf: return "log_wgt_buff";
    case Knob::kAccBuf: return "log_acc_buff";
    case Knob::kUopBuf: return "log_uop_buff";
    case Knob::kBusWidth: return "bus_bits";
    case Knob::kAluLanes: return "alu_lanes";
    case Knob::kAccPorts: return "acc_ports";
    case Knob::kAluMul: return "alu_mul";
    case Knob::kBinding: return "binding";
    case Knob::kDspLimit: return "dsp_limit";
    case Knob::kHlsMhz: return "hls_mhz";
    case Knob::kImplMhz: return "impl_mhz";
    case Knob::kPipeline: return "pipeline";
    case Knob::kDataflow: return "dataflow";
    case Knob::kInline: return "inline";
    case Knob::kArrayType: return "array_type";
    case Knob::kArrayDim: return "array_dim";
    case Knob::kArrayFactor: return "array_factor";
    case Knob::kSynStrategy: return "syn_strategy";
    case Knob::kImplStrategy: return "impl_strategy";
    case Knob::kCount: break;
  }
  return "?";
}

namespace {

std::vector<int> range(int from, int to, int step) {
  std::vector<int> v;
  for (int x = from; x <= to; x += step) v.push_back(x);
  return v;
}

// The PS port's data width: Zynq-7000's HP/ACP ports are 64 bits, Zynq UltraScale+'s HPC 128.
int port_bits(const fpga::Device& d) { return d.family == fpga::Family::kXc7 ? 64 : 128; }

using K = Knob;

}  // namespace

DesignSpace::DesignSpace(const SpaceOptions& o) : options_(o) {
  if (o.precision != 1 && o.precision != 2 && o.precision != 4 && o.precision != 8) {
    throw Error(fmt::format("design space: precision {} is not one of 1, 2, 4, 8", o.precision));
  }
  if (o.workload_batch < 1) throw Error(fmt::format("design space: batch {} is below 1", o.workload_batch));
  if (!o.device) throw Error("design space: no device");
  auto set = [&](K k, std::vector<int> v) { values_[size_t(k)] = std::move(v); };
  set(K::kBatch, {1, 2, 4});
  set(K::kBlockIn, {8, 16, 32, 64});
  set(K::kBlockOut, {8, 16, 32, 64});
  set(K::kAccWidth, {16, 32});
  const int shrink = buffer_shrink();
  set(K::kInpBuf, {15 - shrink, 16 - shrink, 17 - shrink});
  set(K::kWgtBuf, {17 - shrink, 18 - shrink, 19 - shrink});
  set(K::kAccBuf, {16, 17, 18});
  set(K::kUopBuf, {14, 15});
  set(K::kBusWidth, {64, 128});
  set(K::kAluLanes, {0, 8, 16, 32});
  set(K::kAccPorts, {1, 2});
  set(K::kAluMul, {0, 1});
  set(K::kBinding, {0, 1, 2});
  set(K::kDspLimit, {0, 1});
  set(K::kHlsMhz, range(100, 500, 20));
  set(K::kImplMhz, range(100, 500, 20));
  set(K::kPipeline, {1, 0});
  set(K::kDataflow, {1, 0});
  set(K::kInline, {1, 0});
  set(K::kArrayType, {0, 1, 2, 3, 4});
  set(K::kArrayDim, {1, 2});
  set(K::kArrayFactor, {2, 4, 8, 16, 32});
  set(K::kSynStrategy, range(0, 7, 1));
  set(K::kImplStrategy, range(0, 31, 1));

  auto v = [](const DesignSpace& s, const Design& d, K k) { return s.value(d, k); };
  constraints_ = {
      {"batch-above-workload", K::kBatch,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         return v(s, d, K::kBatch) > s.options().workload_batch ? "BATCH above the workload's batch idles lanes"
                                                                 : nullptr;
       }},
      {"accumulator-too-narrow", K::kAccWidth,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         return v(s, d, K::kAccWidth) < 2 * s.precision() + 8
                    ? "the accumulator cannot hold 256 products of this precision"
                    : nullptr;
       }},
      {"not-encodable", K::kUopBuf,
       [](const DesignSpace& s, const Design& d) -> const char* {
         return encodable(architecture(s, d)) ? nullptr
                                              : "a buffer depth the ISA's fields cannot address (or under one element)";
       }},
      {"bus-wider-than-port", K::kBusWidth,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         return v(s, d, K::kBusWidth) > port_bits(s.device()) ? "wider than the PS port" : nullptr;
       }},
      {"lanes-not-below-vector", K::kAluLanes,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         const int lanes = v(s, d, K::kAluLanes);
         return lanes != 0 && lanes >= v(s, d, K::kBatch) * v(s, d, K::kBlockOut)
                    ? "as many lanes as the vector: the same as complete unrolling"
                    : nullptr;
       }},
      {"mul-unused", K::kAluMul,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         return v(s, d, K::kAluMul) == 1 ? "the compiler emits no MUL: its DSPs would idle" : nullptr;
       }},
      {"binding-as-auto", K::kBinding,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         const int b = v(s, d, K::kBinding);
         const bool auto_dsp = rtl::auto_binds_to_dsp(s.precision(), s.precision());
         return (b == 1 && auto_dsp) || (b == 2 && !auto_dsp) ? "the same binding as auto" : nullptr;
       }},
      {"dsp-limit-unneeded", K::kDspLimit,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         if (v(s, d, K::kDspLimit) == 0) return nullptr;
         const int b = v(s, d, K::kBinding);
         const bool in_dsp = b == 1 || (b == 0 && rtl::auto_binds_to_dsp(s.precision(), s.precision()));
         const double products = double(v(s, d, K::kBatch)) * v(s, d, K::kBlockIn) * v(s, d, K::kBlockOut);
         return !in_dsp || products <= dsp_product_limit(s.device()) ? "every product already fits the DSPs"
                                                                     : nullptr;
       }},
      {"impl-not-hls", K::kImplMhz,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         return v(s, d, K::kImplMhz) != v(s, d, K::kHlsMhz)
                    ? "implemented at another clock than HLS scheduled for: above it fails timing, below it "
                      "keeps pipeline registers it does not need"
                    : nullptr;
       }},
      {"clock-above-block-ram", K::kImplMhz,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         return v(s, d, K::kImplMhz) > block_ram_fmax_mhz(s.device()) ? "above the block RAMs' maximum clock"
                                                                      : nullptr;
       }},
      {"pipeline-off-dominated", K::kPipeline,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         return v(s, d, K::kPipeline) == 0
                    ? "without pipelining the datapath loses only the tree registers HLS adds when the clock "
                      "needs them: at a clock that needs none it is the same hardware, slower; at one that "
                      "needs them it misses the clock"
                    : nullptr;
       }},
      {"dataflow-off-dominated", K::kDataflow,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         return v(s, d, K::kDataflow) == 0 ? "serial modules: never faster, no resource saved" : nullptr;
       }},
      {"inline-off-dominated", K::kInline,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         return v(s, d, K::kInline) == 0 ? "a handshake per instruction: never faster, no resource saved" : nullptr;
       }},
      {"array-block-as-cyclic", K::kArrayType,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         const int t = v(s, d, K::kArrayType);
         return t == 2 || t == 4 ? "block and cyclic split the buffer into the same memories" : nullptr;
       }},
      {"array-unused-options", K::kArrayFactor,
       [v](const DesignSpace& s, const Design& d) -> const char* {
         return v(s, d, K::kArrayType) == 0 && (d[size_t(K::kArrayDim)] != 0 || d[size_t(K::kArrayFactor)] != 0)
                    ? "dim and factor without a partition or reshape"
                    : nullptr;
       }},
      {"array-no-saving", K::kArrayFactor,
       [](const DesignSpace& s, const Design& d) -> const char* {
         if (s.value(d, K::kArrayType) == 0) return nullptr;
         return array_option_saves(s, d) ? nullptr
                                         : "the partition or reshape needs no fewer block RAMs, and the ALU's "
                                           "run-time addresses keep its II";
       }},
      {"strategy-without-reports", K::kImplStrategy,
       [](const DesignSpace&, const Design& d) -> const char* {
         return d[size_t(K::kSynStrategy)] != 0 || d[size_t(K::kImplStrategy)] != 0
                    ? "Vivado strategies have no physical model: only implementation reports value them"
                    : nullptr;
       }},
  };
}

double DesignSpace::raw_size() const {
  double n = 1;
  for (const auto& v : values_) n *= double(v.size());
  return n;
}

std::optional<std::string> DesignSpace::violation(const Design& d) const {
  for (int k = 0; k < kNumKnobs; ++k) {
    if (d[size_t(k)] >= values_[size_t(k)].size()) {
      return fmt::format("{}: value index {} out of range", knob_name(Knob(k)), d[size_t(k)]);
    }
  }
  for (const Constraint& c : constraints_) {
    if (const char* why = c.why(*this, d)) return fmt::format("{}: {}", c.name, why);
  }
  return std::nullopt;
}

void DesignSpace::enumerate(const std::function<bool(const Design&)>& visit) const {
  // Constraints grouped by the knob after which they can be checked.
  std::array<std::vector<const Constraint*>, kNumKnobs> at;
  for (const Constraint& c : constraints_) at[size_t(c.last)].push_back(&c);
  Design d{};
  bool stop = false;
  std::function<void(int)> walk = [&](int k) {
    if (k == kNumKnobs) {
      stop = !visit(d);
      return;
    }
    for (size_t i = 0; i < values_[size_t(k)].size() && !stop; ++i) {
      d[size_t(k)] = uint8_t(i);
      bool ok = true;
      for (const Constraint* c : at[size_t(k)]) {
        if (c->why(*this, d)) {
          ok = false;
          break;
        }
      }
      if (ok) walk(k + 1);
    }
    d[size_t(k)] = 0;
  };
  walk(0);
}

std::vector<Design> DesignSpace::pruned() const {
  std::vector<Design> out;
  enumerate([&](const Design& d) {
    out.push_back(d);
    return true;
  });
  return out;
}

std::optional<uint8_t> DesignSpace::index_of(Knob k, int value) const {
  const auto& v = values_[size_t(k)];
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == value) return uint8_t(i);
  }
  return std::nullopt;
}

Design DesignSpace::default_design() const {
  Design d{};
  auto set = [&](K k, int value) {
    if (auto i = index_of(k, value)) d[size_t(k)] = *i;
  };
  set(K::kBlockIn, 16);
  set(K::kBlockOut, 16);
  set(K::kAccWidth, 32);
  // VTA's buffer sizes (15, 18, 17, 15), or the nearest ones the ISA can address at this
  // precision (narrower elements make the buffers deeper than the instruction fields reach).
  const int shrink = buffer_shrink();
  int best = 1 << 30;
  const Design base = d;
  each_buffers(base, [&](const Design& t) {
    const int dist = std::abs(value(t, K::kInpBuf) - (15 - shrink)) + std::abs(value(t, K::kWgtBuf) - (18 - shrink)) +
                     std::abs(value(t, K::kAccBuf) - 17) + std::abs(value(t, K::kUopBuf) - 15);
    if (dist < best && encodable(architecture(*this, t))) {
      best = dist;
      d = t;
    }
  });
  set(K::kBusWidth, port_bits(device()));
  const int mhz = std::clamp(int(device().target_mhz) / 20 * 20, 100, 500);
  set(K::kHlsMhz, mhz);
  set(K::kImplMhz, mhz);
  const double products = 16.0 * 16.0;
  if (precision() == 8 && products > dsp_product_limit(device())) set(K::kDspLimit, 1);
  return d;
}

int DesignSpace::buffer_shrink() const { return 3 - int(std::lround(std::log2(precision()))); }

void DesignSpace::each_buffers(const Design& base, const std::function<void(const Design&)>& visit) const {
  Design t = base;
  for (uint8_t i = 0; i < values(K::kInpBuf).size(); ++i) {
    for (uint8_t w = 0; w < values(K::kWgtBuf).size(); ++w) {
      for (uint8_t a = 0; a < values(K::kAccBuf).size(); ++a) {
        for (uint8_t u = 0; u < values(K::kUopBuf).size(); ++u) {
          t[size_t(K::kInpBuf)] = i;
          t[size_t(K::kWgtBuf)] = w;
          t[size_t(K::kAccBuf)] = a;
          t[size_t(K::kUopBuf)] = u;
          visit(t);
        }
      }
    }
  }
}

hw::HwConfig DesignSpace::task_host(const Design& d) const {
  hw::HwConfig host = architecture(*this, d);
  int most = -1;
  each_buffers(d, [&](const Design& t) {
    const hw::HwConfig c = architecture(*this, t);
    const int total = c.log_inp_buff_size + c.log_wgt_buff_size + c.log_acc_buff_size + c.log_uop_buff_size;
    if (total >= most && encodable(c)) {  // ties: the larger input, then weight, then ACC buffer
      most = total;
      host = c;
    }
  });
  return host;
}

std::string DesignSpace::key(const Design& d) const {
  std::string s = fmt::format("p{}", precision());
  for (int k = 0; k < kNumKnobs; ++k) s += fmt::format("_{}", value(d, Knob(k)));
  return s;
}

std::vector<std::string> DesignSpace::feature_names() {
  std::vector<std::string> n;
  for (int k = 0; k < kNumKnobs; ++k) n.push_back(knob_name(Knob(k)));
  return n;
}

std::vector<float> DesignSpace::features(const Design& d) const {
  std::vector<float> f(kNumKnobs);
  for (int k = 0; k < kNumKnobs; ++k) f[size_t(k)] = float(value(d, Knob(k)));
  return f;
}

}  // namespace tauvta::dse
