#include "fpga/implementation_reports.h"

#include "fpga/design_options.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::fpga {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// One CSV record: comma-separated, fields optionally in double quotes ("" inside is a quote).
std::vector<std::string> split_csv(const std::string& line, const std::string& where) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (quoted) throw Error(fmt::format("{}: unterminated quoted field", where));
  out.push_back(trim(cur));
  return out;
}

double number(const std::string& text, const std::string& where, const std::string& column) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used != text.size() || !std::isfinite(v)) throw std::invalid_argument("");
    return v;
  } catch (const std::exception&) {
    throw Error(fmt::format("{}: column {} = '{}' is not a number", where, column, text));
  }
}

bool same_design(const hw::HwConfig& a, const hw::HwConfig& b) {
  return a.log_inp_width == b.log_inp_width && a.log_wgt_width == b.log_wgt_width &&
         a.log_acc_width == b.log_acc_width && a.log_batch == b.log_batch &&
         a.log_block_in == b.log_block_in && a.log_block_out == b.log_block_out &&
         a.log_uop_buff_size == b.log_uop_buff_size && a.log_inp_buff_size == b.log_inp_buff_size &&
         a.log_wgt_buff_size == b.log_wgt_buff_size && a.log_acc_buff_size == b.log_acc_buff_size &&
         a.timing.clock_mhz == b.timing.clock_mhz && a.timing.log_bus_width == b.timing.log_bus_width &&
         a.impl.alu_lanes == b.impl.alu_lanes && a.impl.alu_mul == b.impl.alu_mul;
}

}  // namespace

ImplementationReports ImplementationReports::load(const fs::path& csv) {
  std::ifstream f(csv);
  if (!f) throw Error(fmt::format("{}: cannot open", csv.string()));
  ImplementationReports r;
  r.source_ = csv.string();
  std::string line;
  std::map<std::string, size_t> col;
  size_t line_no = 0;
  std::vector<std::string> header;
  while (std::getline(f, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const std::string where = fmt::format("{}:{}", csv.string(), line_no);
    const std::vector<std::string> fields = split_csv(line, where);
    if (header.empty()) {
      header = fields;
      for (size_t i = 0; i < fields.size(); ++i) col[lower(fields[i])] = i;
      for (const char* need : {"device", "config", "lut", "ff", "dsp"}) {
        if (!col.count(need)) {
          throw Error(fmt::format("{}: the header has no column '{}'", where, need));
        }
      }
      if (!col.count("bram36") && !col.count("bram18")) {
        throw Error(fmt::format("{}: the header has no column BRAM36 or BRAM18", where));
      }
      continue;
    }
    if (fields.size() != header.size()) {
      throw Error(fmt::format("{}: {} fields, the header has {}", where, fields.size(), header.size()));
    }
    auto field = [&](const char* name) -> std::optional<std::string> {
      auto it = col.find(name);
      if (it == col.end() || fields[it->second].empty()) return std::nullopt;
      return fields[it->second];
    };
    auto num = [&](const char* name, double fallback) {
      const auto v = field(name);
      return v ? number(*v, where, name) : fallback;
    };
    ImplementedDesign d;
    d.line = line_no;
    d.device = &find_device(field("device").value_or(""));
    const std::string cfg = field("config").value_or("");
    if (cfg.empty()) throw Error(fmt::format("{}: column config is empty", where));
    try {
      const fs::path p = csv.parent_path() / cfg;
      d.config = cfg.ends_with(".json") ? hw::HwConfig::load(p) : hw::HwConfig::from_name(cfg);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: column config: {}", where, e.what()));
    }
    if (field("clock_mhz")) d.config.timing.clock_mhz = num("clock_mhz", 0);
    // The design as its config's IMPLEMENTATION builds it on the row's device, with the columns
    // that name an implementation choice replacing the config's.
    hw::Implementation impl = d.config.impl;
    if (const auto b = field("binding")) impl.binding = rtl::parse_binding(lower(*b), where);
    if (field("tree_levels")) impl.tree_levels_per_stage = int(num("tree_levels", 0));
    if (field("acc_ports")) impl.acc_read_ports = int(num("acc_ports", 1));
    if (field("dsp_limit")) impl.dsp_limit = int(num("dsp_limit", 0));
    d.config = d.config.with_implementation(impl, where);
    d.options = rtl_options(d.config, *d.device);
    rtl::validate(d.options, where);
    d.resources.lut = num("lut", 0);
    d.resources.ff = num("ff", 0);
    d.resources.dsp = num("dsp", 0);
    d.resources.bram36 = num("bram36", 0) + 0.5 * num("bram18", 0);
    d.resources.uram = num("uram", 0);
    for (ResourceKind k : {ResourceKind::kLut, ResourceKind::kFf, ResourceKind::kDsp,
                           ResourceKind::kBram, ResourceKind::kUram}) {
      if (get(d.resources, k) < 0) {
        throw Error(fmt::format("{}: {} = {} is negative", where, resource_name(k), get(d.resources, k)));
      }
    }
    if (field("fmax_mhz")) {
      d.fmax_mhz = num("fmax_mhz", 0);
    } else if (field("wns_ns")) {
      // Achieved clock from the worst negative slack at the clock the design was built for.
      const double period = 1000.0 / d.config.timing.clock_mhz - num("wns_ns", 0);
      if (!(period > 0)) throw Error(fmt::format("{}: wns_ns gives a period of {} ns", where, period));
      d.fmax_mhz = 1000.0 / period;
    }
    if (d.fmax_mhz < 0) throw Error(fmt::format("{}: fmax_mhz = {} is negative", where, d.fmax_mhz));
    r.designs_.push_back(std::move(d));
  }
  if (header.empty()) throw Error(fmt::format("{}: no header line", csv.string()));
  return r;
}

const ImplementedDesign* ImplementationReports::find(const hw::HwConfig& config,
                                                     const rtl::RtlOptions& options,
                                                     const Device& device) const {
  for (const ImplementedDesign& d : designs_) {
    if (d.device == &device && d.options == options && same_design(d.config, config)) return &d;
  }
  return nullptr;
}

ResourceEstimate from_report(const ImplementedDesign& report, const ResourceEstimate& model,
                             const Device& device, const ModelLimits& limits) {
  ResourceEstimate e = model;
  // Parts keep the model's split, scaled to the report's totals.
  for (int k = 0; k < kNumResourceKinds; ++k) {
    const ResourceKind kind = ResourceKind(k);
    const double m = get(model.total, kind), want = get(report.resources, kind);
    for (Resources& p : e.parts) get(p, kind) = m > 0 ? get(p, kind) * want / m : 0;
    get(e.total, kind) = want;
  }
  if (report.fmax_mhz > 0) {
    e.clock.fmax_mhz = report.fmax_mhz;
    e.clock.period_ns = 1000.0 / report.fmax_mhz;
  }
  judge(e, device, limits);
  return e;
}

std::vector<std::string> correction_feature_names() {
  std::vector<std::string> n;
  // The datapath's netlist features (the resource model's own terms) for the report's family.
  for (const char* m : {"gemm_", "alu_"}) {
    for (int k = 0; k < rtl::kNumNetlistFeatures; ++k) {
      n.push_back(std::string(m) + rtl::feature_name(rtl::NetlistFeature(k)));
    }
  }
  for (const char* b : {"uop", "inp", "wgt", "acc", "out"}) n.push_back(std::string(b) + "_kbits");
  n.insert(n.end(), {"bus_bits", "family", "clock_mhz"});
  return n;
}

std::vector<float> correction_features(const hw::HwConfig& config, const rtl::RtlOptions& options,
                                       const Device& device) {
  const rtl::DatapathShape s = rtl::shape_of(config, options);
  std::vector<float> f;
  for (const rtl::NetlistModule m : {rtl::NetlistModule::kGemm, rtl::NetlistModule::kAlu}) {
    for (double v : rtl::netlist_features(m, config, s, device.family)) f.push_back(float(v));
  }
  for (const rtl::BufferShape& b : s.buffers) f.push_back(float(double(b.bits()) * b.copies / 1024));
  f.push_back(float(1 << config.timing.log_bus_width));
  f.push_back(float(int(device.family)));
  f.push_back(float(config.timing.clock_mhz));
  return f;
}

namespace {

// The quantity the correction learns for target t (0..3 resources, 4 the clock): log of the
// report over the model, with a small floor so zero counts stay finite.
float log_ratio(double report, double model) {
  return float(std::log((report + 1.0) / (model + 1.0)));
}

double target_value(const ResourceEstimate& e, int t) {
  return t < 4 ? get(e.total, ResourceKind(t)) : e.clock.fmax_mhz;
}

}  // namespace

ResourceCorrection ResourceCorrection::train(const ImplementationReports& reports, uint64_t seed) {
  const auto designs = reports.designs();
  if (designs.size() < 3) {
    throw Error(fmt::format("{}: {} report(s); the correction needs at least 3", reports.source(),
                            designs.size()));
  }
  ResourceCorrection c;
  c.trained_on_ = designs.size();
  const std::vector<std::string> names = correction_feature_names();
  std::vector<float> rows;
  std::array<std::vector<float>, kTargets> y;
  for (const ImplementedDesign& d : designs) {
    const std::vector<float> f = correction_features(d.config, d.options, *d.device);
    rows.insert(rows.end(), f.begin(), f.end());
    const ResourceEstimate m = estimate_resources(d.config, d.options, *d.device);
    for (int t = 0; t < kTargets; ++t) {
      const double rep = t < 4 ? get(d.resources, ResourceKind(t)) : d.fmax_mhz;
      // A report without a clock teaches nothing about the clock.
      y[size_t(t)].push_back(t == 4 && d.fmax_mhz <= 0 ? 0.0f : log_ratio(rep, target_value(m, t)));
    }
  }
  ml::CostModelOptions o;
  o.objective = ml::CostObjective::kRegression;
  o.rounds = 60;
  o.max_depth = 3;
  o.eta = 0.3;
  o.seed = seed;
  for (int t = 0; t < kTargets; ++t) {
    const auto& v = y[size_t(t)];
    double mean = 0;
    for (float x : v) mean += x;
    mean /= double(v.size());
    c.constant_[size_t(t)] = float(mean);
    bool varies = false;
    for (float x : v) varies |= std::fabs(x - float(mean)) > 1e-6f;
    if (!varies) {
      c.models_.push_back(nullptr);
      continue;
    }
    auto m = std::make_unique<ml::CostModel>(names, o);
    m->fit(rows, v);
    c.models_.push_back(std::move(m));
  }
  return c;
}

ResourceEstimate ResourceCorrection::apply(const ResourceEstimate& model, const hw::HwConfig& config,
                                           const rtl::RtlOptions& options, const Device& device,
                                           const ModelLimits& limits) const {
  const std::vector<float> f = correction_features(config, options, device);
  ResourceEstimate e = model;
  for (int t = 0; t < kTargets; ++t) {
    const auto& m = models_[size_t(t)];
    const float lr = m ? m->predict(f)[0] : constant_[size_t(t)];
    const double base = target_value(model, t);
    const double corrected = std::max(0.0, (base + 1.0) * std::exp(double(lr)) - 1.0);
    if (t < 4) {
      const ResourceKind kind = ResourceKind(t);
      for (Resources& p : e.parts) get(p, kind) = base > 0 ? get(p, kind) * corrected / base : 0;
      get(e.total, kind) = corrected;
    } else {
      e.clock.fmax_mhz = corrected;
      e.clock.period_ns = corrected > 0 ? 1000.0 / corrected : 0;
    }
  }
  judge(e, device, limits);
  return e;
}

std::vector<ReportCheck> cross_validate(const ImplementationReports& reports, uint64_t seed) {
  std::vector<ReportCheck> out;
  const auto designs = reports.designs();
  for (size_t i = 0; i < designs.size(); ++i) {
    const ImplementedDesign& d = designs[i];
    ReportCheck c;
    c.design = &d;
    c.model = estimate_resources(d.config, d.options, *d.device);
    c.corrected = c.model;
    if (designs.size() >= 4) {
      ImplementationReports others = reports;
      others.designs_.erase(others.designs_.begin() + std::ptrdiff_t(i));
      c.corrected = ResourceCorrection::train(others, seed).apply(c.model, d.config, d.options, *d.device);
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace tauvta::fpga
