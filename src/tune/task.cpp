#include "tune/task.h"

#include <set>
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/error.h"
#include "lower/conv_plan.h"

namespace tauvta::tune {

namespace {

std::string task_name(size_t index, const lower::ConvWorkload& w) {
  return fmt::format("T{} {}", index + 1, w.to_string());
}

}  // namespace

std::vector<TuneTask> extract_tasks(const backend::CompiledNetwork& net) {
  std::vector<TuneTask> tasks;
  std::map<lower::ConvWorkload, size_t> index;
  for (const backend::NetworkLayer& l : net.layers) {
    if (l.placement != backend::Placement::kVta || !l.workload || !l.timing_spec || !backend::is_gemm_op(l.op)) continue;
    const lower::LayerNeeds needs = l.timing_spec->needs(net.config);
    auto it = index.find(*l.workload);
    if (it == index.end()) {
      TuneTask t;
      t.spec = *l.timing_spec;
      t.needs = needs;
      t.layers = {l.name};
      t.layer_specs = {*l.timing_spec};
      t.name = task_name(tasks.size(), t.spec.w);
      index[*l.workload] = tasks.size();
      tasks.push_back(std::move(t));
      continue;
    }
    TuneTask& t = tasks[it->second];
    t.layers.push_back(l.name);
    t.layer_specs.push_back(*l.timing_spec);
    // Keep the spec that needs the most room: its legal schedules are legal for the others.
    if (std::tie(needs.residual, needs.acc_vectors) > std::tie(t.needs.residual, t.needs.acc_vectors)) {
      t.spec = *l.timing_spec;
    }
    t.needs.acc_vectors = std::max(t.needs.acc_vectors, needs.acc_vectors);
    t.needs.residual = t.needs.residual || needs.residual;
  }
  return tasks;
}

TuneTask workload_task(const hw::HwConfig& c, const lower::ConvWorkload& w) {
  (void)lower::conv_geometry(c, w);  // says why the workload cannot run on this config
  TuneTask t;
  t.spec.w = w;
  t.spec.shifts = {8};  // uniform shift, no bias: requantization by ALU immediates
  t.spec.clip_min = 0;
  t.spec.clip_max = (int64_t(1) << (c.out_width() - 1)) - 1;
  t.spec.acc_bits = c.acc_width();
  t.needs = t.spec.needs(c);
  t.name = task_name(0, w);
  return t;
}

namespace {

int64_t parse_int(const std::string& key, const std::string& v) {
  try {
    size_t used = 0;
    const int64_t x = std::stoll(v, &used);
    if (used == v.size()) return x;
  } catch (const std::exception&) {
  }
  throw Error(fmt::format("workload spec: {}={} is not an integer", key, v));
}

std::pair<int64_t, int64_t> parse_pair(const std::string& key, const std::string& v) {
  const size_t x = v.find('x');
  if (x == std::string::npos) {
    const int64_t a = parse_int(key, v);
    return {a, a};
  }
  return {parse_int(key, v.substr(0, x)), parse_int(key, v.substr(x + 1))};
}

}  // namespace

lower::ConvWorkload parse_workload_spec(const std::string& spec) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (at <= spec.size()) {
    const size_t end = std::min(spec.find(',', at), spec.size());
    parts.push_back(spec.substr(at, end - at));
    at = end + 1;
  }
  if (parts.empty() || parts[0].empty() || parts[0].find('=') != std::string::npos) {
    throw Error(fmt::format("workload spec '{}': expected OP,key=value,... (OP: conv2d, dense, group_conv2d, "
                            "conv2d_transpose)",
                            spec));
  }
  lower::ConvWorkload w;
  w.kind = lower::parse_op_kind(parts[0]);
  std::set<std::string> given;
  for (size_t i = 1; i < parts.size(); ++i) {
    const size_t eq = parts[i].find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error(fmt::format("workload spec '{}': '{}' is not key=value", spec, parts[i]));
    }
    const std::string key = parts[i].substr(0, eq), v = parts[i].substr(eq + 1);
    given.insert(key);
    if (key == "n") {
      w.batch = parse_int(key, v);
    } else if (key == "ci") {
      w.in_channels = parse_int(key, v);
    } else if (key == "co") {
      w.out_channels = parse_int(key, v);
    } else if (key == "h") {
      w.height = parse_int(key, v);
    } else if (key == "w") {
      w.width = parse_int(key, v);
    } else if (key == "g") {
      w.groups = parse_int(key, v);
    } else if (key == "k") {
      std::tie(w.kernel_h, w.kernel_w) = parse_pair(key, v);
    } else if (key == "s") {
      std::tie(w.stride_h, w.stride_w) = parse_pair(key, v);
    } else if (key == "d") {
      std::tie(w.dilation_h, w.dilation_w) = parse_pair(key, v);
    } else if (key == "op") {
      std::tie(w.output_pad_h, w.output_pad_w) = parse_pair(key, v);
    } else if (key == "p") {
      w.pad_top = w.pad_left = w.pad_bottom = w.pad_right = parse_int(key, v);
    } else if (key == "T") {
      w.pad_top = parse_int(key, v);
    } else if (key == "L") {
      w.pad_left = parse_int(key, v);
    } else if (key == "B") {
      w.pad_bottom = parse_int(key, v);
    } else if (key == "R") {
      w.pad_right = parse_int(key, v);
    } else {
      throw Error(fmt::format("workload spec '{}': unknown key '{}' (n, ci, h, w, co, k, s, d, p, T, L, B, R, g, op)",
                              spec, key));
    }
  }
  if (w.kind == lower::OpKind::kDense && (w.height != 1 || w.width != 1)) {
    throw Error(fmt::format("workload spec '{}': dense takes no h or w", spec));
  }
  // The sizes that define the work are never filled in silently (a conv2d without h and w would
  // be a 1x1 image); the rest default as documented (n=1, k=1, s=1, d=1, p=0, g=1).
  std::vector<const char*> needed = {"ci", "co"};
  if (w.kind != lower::OpKind::kDense) needed.insert(needed.end(), {"h", "w", "k"});
  for (const char* k : needed) {
    if (!given.count(k)) {
      throw Error(fmt::format("workload spec '{}': {} is missing (a {} needs {})", spec, k, parts[0],
                              w.kind == lower::OpKind::kDense ? "ci and co" : "ci, h, w, co and k"));
    }
  }
  if (w.kind == lower::OpKind::kGroupConv2d && w.groups == 1) {
    throw Error(fmt::format("workload spec '{}': group_conv2d needs g > 1", spec));
  }
  w.validate();
  return w;
}

}  // namespace tauvta::tune
