// `tauvta precision` as calls (precision/precision_run.h): `show` lists every layer's format of
// a model (quantized for a config) or of a compiled artifact; `set` patches formats into an
// artifact; `tune` runs OTune's loop or the format search on the simulated accelerator with a
// checkpoint after every evaluation, then writes the best network as DIR/tuned.tauvta with its
// per-checkpoint tables (OTune's Table 4, Fig. 10, 11).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "backend/artifact.h"
#include "backend/network_accuracy.h"
#include "backend/network_formats.h"
#include "common/file_io.h"
#include "hw/config_file.h"
#include "report/html_file.h"
#include "precision/precision_run.h"
#include "common/error.h"
#include "io/tensor_files.h"
#include "precision/evaluator.h"
#include "precision/formats.h"
#include "precision/overflow_maps.h"
#include "precision/tuner.h"

namespace tauvta::precision {
namespace {

using nlohmann::json;

// One row per slot: its number, value, op, format and where it is computed. A value only a fused
// layer computes (a convolution's output inside its residual add) is never written, but it is
// computed on the accelerator: "vta (fused)".
json slots_json(const std::vector<FormatSlot>& slots, const backend::CompiledNetwork& net) {
  json rows = json::array();
  for (const FormatSlot& s : slots) {
    std::string on = "cpu";
    if (s.network_layer >= 0) {
      on = backend::placement_name(net.layers[size_t(s.network_layer)].placement);
    } else {
      for (const backend::NetworkLayer& l : net.layers) {
        if (l.placement == backend::Placement::kVta && std::find(l.nodes.begin(), l.nodes.end(), s.node) != l.nodes.end()) on = "vta (fused)";
      }
    }
    rows.push_back({{"index", rows.size()}, {"value", s.value}, {"node", s.node}, {"op", s.op}, {"bits", s.bits},
                    {"format", q_name(s.bits, s.frac)}, {"frac_bits", s.frac}, {"on", on}});
  }
  return rows;
}

}  // namespace

json show_formats(const model::ModelSource& a, std::ostream& out) {
  json j;
  if (backend::is_network_artifact(a.model)) {
    const backend::CompiledNetwork net = backend::load_network(a.model);
    out << fmt::format("{}: {} ({}-bit words)\n", a.model, net.config.name(), net.config.inp_width());
    j = {{"model", a.model}, {"config", net.config.to_json()}, {"slots", slots_json(format_slots(net), net)}};
  } else {
    model::LoadOptions o = model::load_options(a, true);
    const model::LoadedModel m = model::load_source(a, o);
    const backend::CompiledNetwork net = backend::compile_network(m.quant.graph, o.config);
    out << fmt::format("{}: quantized for {} ({}-bit words)\n", a.model, o.config.name(), o.config.inp_width());
    j = {{"model", a.model}, {"config", o.config.to_json()}, {"slots", slots_json(format_slots(m.quant, &net), net)}};
  }
  out << fmt::format("{:<4} {:<44} {:<12} {:<8} {:>6} {:<4}\n", "#", "value", "op", "format", "frac", "on");
  for (const json& r : j["slots"]) {
    out << fmt::format("{:<4} {:<44} {:<12} {:<8} {:>6} {:<4}\n", r["index"].get<int>(), r["value"].get<std::string>(),
                       r["op"].get<std::string>(), r["format"].get<std::string>(), r["frac_bits"].get<int>(),
                       r["on"].get<std::string>());
  }
  return j;
}

namespace {

// The format key (float value name) a user's LAYER means: the value itself, the node writing it or
// the network layer writing it.
std::string format_key(const backend::CompiledNetwork& net, const std::map<std::string, int>& formats, const std::string& name) {
  if (formats.count(name)) return name;
  std::vector<std::string> outputs;
  if (const graph::Node* n = net.graph.node(name)) outputs = n->outputs;
  if (outputs.empty()) {
    const int64_t l = backend::find_network_layer(net, name);
    if (l >= 0) outputs = net.layers[size_t(l)].outputs;
  }
  for (const std::string& o : outputs) {
    if (formats.count(o)) return o;
    if (o.size() > 2 && o.ends_with("_q") && formats.count(o.substr(0, o.size() - 2))) return o.substr(0, o.size() - 2);
  }
  throw Error(fmt::format("no layer or value '{}' with a format in the network (see tauvta precision show)", name));
}

}  // namespace

json set_formats_in_artifact(const FormatSetRequest& a, std::ostream& out) {
  if (a.out.empty() && !a.force) {
    throw Error(fmt::format("precision set: give -o OUT.tauvta, or --force to patch {} in place", a.artifact));
  }
  if (!backend::is_network_artifact(a.artifact)) throw Error(fmt::format("{}: not a compiled network (.tauvta)", a.artifact));
  const std::string target = a.out.empty() ? a.artifact : a.out;
  if (!a.out.empty()) check_can_write(a.out, a.force);
  backend::CompiledNetwork net = backend::load_network(a.artifact);
  const std::map<std::string, int> formats = backend::network_formats(net);
  const int bits = net.config.inp_width();
  std::map<std::string, int> changes;
  for (const std::string& c : a.changes) {
    const size_t eq = c.rfind('=');
    if (eq == std::string::npos || eq == 0) throw Error(fmt::format("precision set: '{}' is not LAYER=Qx.y", c));
    const std::string key = format_key(net, formats, c.substr(0, eq));
    changes[key] = parse_q(c.substr(eq + 1), bits, c.substr(0, eq));
  }
  const backend::FormatPatch p = backend::set_formats(net, changes);
  for (const auto& [k, f] : changes) {
    out << fmt::format("{}: {} -> {}\n", k, q_name(bits, formats.at(k)), q_name(bits, f));
  }
  out << fmt::format("patched {} accelerator layer(s) in place (immediates and constants, no re-lowering){}{}\n",
                           p.patched_layers.size(), p.patched_layers.empty() ? "" : ": ",
                           fmt::join(p.patched_layers, ", "));
  if (!p.cpu_layers.empty()) out << fmt::format("updated {} CPU layer(s): {}\n", p.cpu_layers.size(), fmt::join(p.cpu_layers, ", "));
  backend::save_network(net, target, true);
  out << fmt::format("wrote {}\n", target);
  json changed = json::object();
  for (const auto& [k, f] : changes) {
    changed[k] = {{"from", q_name(bits, formats.at(k))}, {"to", q_name(bits, f)}};
  }
  return {{"artifact", target}, {"changes", changed}, {"patched_layers", p.patched_layers}, {"cpu_layers", p.cpu_layers}};
}

namespace {

// OTune's Table 4: one row per layer, one column per step.
std::string checkpoint_table(const PrecisionTuneResult& r, const std::vector<FormatSlot>& slots, int bits) {
  std::string s = fmt::format("{:<36}", "layer \\ step");
  for (const auto& st : r.steps) s += fmt::format(" {:>16}", st.index == int(r.best) ? fmt::format("*{}", st.index) : std::to_string(st.index));
  s += "\n";
  for (const FormatSlot& sl : slots) {
    std::string name = sl.value.size() > 36 ? "..." + sl.value.substr(sl.value.size() - 33) : sl.value;
    s += fmt::format("{:<36}", name);
    for (const auto& st : r.steps) {
      auto rate = st.eval.overflow_rate.find(sl.value);
      s += fmt::format(" {:>16}", fmt::format("{} {}", q_name(bits, st.eval.formats.at(sl.value)),
                                               rate == st.eval.overflow_rate.end() ? std::string("-") : fmt::format("{:.1e}", rate->second)));
    }
    s += "\n";
  }
  s += fmt::format("{:<36}", "accuracy (tuning split)");
  for (const auto& st : r.steps) s += fmt::format(" {:>16.4f}", st.eval.accuracy);
  return s + "\n";
}

// The case study's tables in Markdown: per-step formats (OTune's Table 4), overflow rates (its
// Fig. 10) and tuning-split accuracy (its Fig. 11), then the held-out comparison with float.
std::string markdown_tables(const PrecisionTuneRequest& a, const hw::HwConfig& c, const PrecisionTuneResult& r,
                            const std::vector<FormatSlot>& slots, const backend::NetworkAccuracy& start,
                            const backend::NetworkAccuracy& tuned) {
  const int bits = c.inp_width();
  // "/features/features.7/Relu_output_0" -> "features.7/Relu": the tables stay narrow.
  auto short_name = [](const std::string& v) {
    std::string s = v;
    const size_t slash = s.find('/', 1);
    if (s.size() > 1 && s[0] == '/' && slash != std::string::npos) s = s.substr(slash + 1);
    const size_t suffix = s.rfind("_output_0");
    if (suffix != std::string::npos && suffix + 9 == s.size()) s = s.substr(0, suffix);
    return s;
  };
  std::string head = "| layer |", rule = "|---|";
  for (const auto& st : r.steps) {
    head += fmt::format(" {}{} |", st.index, st.index == int(r.best) ? " (best)" : "");
    rule += "---|";
  }
  std::string md = fmt::format("### {} ({}), {} from {} formats\n\n", c.name(), a.mode == "otune" ? "OTune loop" : "format search",
                               a.model.model, a.start);
  md += fmt::format("Tuning split: images [0, {}); stopped: {}.\n\nFormats per step (Table 4):\n\n{}\n{}\n", a.tune_images,
                    r.stop_reason, head, rule);
  for (const FormatSlot& s : slots) {
    md += fmt::format("| {} |", short_name(s.value));
    for (const auto& st : r.steps) md += fmt::format(" {} |", q_name(bits, st.eval.formats.at(s.value)));
    md += "\n";
  }
  md += fmt::format("\nOverflow rate per layer and step (Fig. 10):\n\n{}\n{}\n", head, rule);
  for (const FormatSlot& s : slots) {
    md += fmt::format("| {} |", short_name(s.value));
    for (const auto& st : r.steps) {
      auto it = st.eval.overflow_rate.find(s.value);
      md += it == st.eval.overflow_rate.end() ? std::string(" - |") : fmt::format(" {:.2e} |", it->second);
    }
    md += "\n";
  }
  md += "| **tuning-split accuracy** (Fig. 11) |";
  for (const auto& st : r.steps) md += fmt::format(" {:.4f} |", st.eval.accuracy);
  md += fmt::format("\n\nHeld-out images [{}, {}): float {:.4f}; start formats {:.4f} ({:+.2f} points); tuned (step {}) "
                    "{:.4f} ({:+.2f} points); the accelerator's outputs equal the integer reference's on every image.\n\n",
                    a.tune_images, a.tune_images + tuned.images, tuned.float_accuracy, start.accuracy,
                    100 * (start.accuracy - tuned.float_accuracy), r.best, tuned.accuracy,
                    100 * (tuned.accuracy - tuned.float_accuracy));
  return md;
}

}  // namespace

json tune_formats(const PrecisionTuneRequest& a, std::ostream& out) {
  if (a.out.empty()) throw Error("precision tune: --out DIR is required");
  const std::filesystem::path dir(a.out);
  const std::filesystem::path tuned = dir / "tuned.tauvta";
  // A rerun resumes from DIR's checkpoint (which the tuner refuses when its settings differ): the
  // outputs in DIR are this run's own, written again from the same steps.
  const bool resuming = std::filesystem::exists(dir / "checkpoint.json");
  const bool replace = a.model.force || resuming;
  check_can_write(tuned, replace);
  check_can_write(dir / "result.json", replace);
  check_can_write(dir / "steps.csv", replace);
  check_can_write(dir / "layers.csv", replace);
  check_can_write(a.html, a.model.force);
  const graph::Tensor images = io::read_idx(a.images), labels = io::read_idx(a.labels);
  if (images.rank() != 3 || labels.rank() != 1 || labels.shape()[0] != images.shape()[0]) {
    throw Error(fmt::format("{} / {}: expected IDX images [N, rows, cols] and N labels", a.images, a.labels));
  }
  const int64_t n = images.shape()[0];
  if (a.tune_images < 1 || a.tune_images >= n) {
    throw Error(fmt::format("--tune-images {}: the dataset has {} images; the rest are the held-out split", a.tune_images, n));
  }
  const int64_t holdout = a.holdout < 0 ? n - a.tune_images : std::min(a.holdout, n - a.tune_images);

  model::LoadOptions lo = model::load_options(a.model, true);
  const model::LoadedModel m = model::load_source(a.model, lo);
  EvaluatorSettings es;
  es.batch = a.batch;
  es.boards = a.boards > 0 ? a.boards : int(std::max(1u, std::thread::hardware_concurrency()));
  const PrecisionEvaluator ev(m, lo.config, images, labels, es);
  const int bits = lo.config.inp_width();
  Formats start;
  if (a.start == "q0") {
    start = uniform_formats(ev.slots(), bits - 1);
  } else if (a.start == "calibrated") {
    start = formats_of(ev.slots());
  } else if (std::filesystem::is_regular_file(a.start)) {
    start = formats_of(ev.slots());  // layers the file does not name keep their calibrated format
    for (const auto& [value, frac] : read_formats_file(a.start, ev.slots(), bits)) start[value] = frac;
  } else {
    throw Error(fmt::format("--start '{}': expected calibrated, q0 or a formats file (LAYER=Qx.y lines)", a.start));
  }
  std::filesystem::create_directories(dir);
  PrecisionTuneOptions to;
  to.mode = parse_tune_mode(a.mode);
  to.threshold = a.threshold;
  to.limit = a.limit;
  to.radius = a.radius;
  to.min_gain = a.min_gain;
  to.tune_begin = 0;
  to.tune_count = a.tune_images;
  to.checkpoint = dir / "checkpoint.json";
  if (a.progress) {
    to.progress = a.progress;
  } else if (!a.quiet) {
    to.progress = [](const std::string& s) { std::cerr << s << "\n"; };
  }
  out << fmt::format("precision tune ({}) of {} for {} ({}-bit words) from {} formats: tuning split images "
                           "[0, {}), held-out [{}, {}), {} board(s)\n",
                           a.mode, a.model.model, lo.config.name(), bits, a.start, a.tune_images, a.tune_images,
                           a.tune_images + holdout, es.boards);
  const PrecisionTuneResult r = tune_precision(ev, start, to);
  const TuneStep& best = r.steps.at(r.best);
  out << "\n" << checkpoint_table(r, ev.slots(), bits);
  out << fmt::format("stopped: {}; {} evaluation(s) run, {} read back from the checkpoint; best step {}\n",
                           r.stop_reason, r.evaluations, r.replayed, r.best);

  // The held-out split, through the simulator with the integer-reference check and the float model.
  const backend::InstrumentRequest overflow_request = overflow_everywhere();
  // The instruments refer to the network they observed, so the networks outlive the runs.
  const backend::CompiledNetwork tuned_net = ev.compile(best.eval.formats);
  const backend::CompiledNetwork start_net = ev.compile(r.steps.front().eval.formats);
  auto holdout_run = [&](const backend::CompiledNetwork& net, bool with_float) {
    backend::NetworkAccuracyOptions o;
    o.begin = a.tune_images;
    o.limit = holdout;
    o.threads = es.boards;
    if (with_float) o.float_graph = &m.float_graph;
    o.instruments = &overflow_request;  // where each layer overflows, for the report's maps
    backend::NetworkAccuracy acc = backend::evaluate_network_accuracy(net, images, labels, o);
    if (acc.mismatched_images != 0) {
      throw Error(fmt::format("{} held-out images' accelerator outputs differ from the integer reference", acc.mismatched_images));
    }
    return acc;
  };
  const backend::NetworkAccuracy tuned_acc = holdout_run(tuned_net, true);
  const backend::NetworkAccuracy start_acc = holdout_run(start_net, false);
  out << fmt::format("\nheld-out split ({} images)          accuracy\n", tuned_acc.images);
  out << fmt::format("  float model                       {:.4f}\n", tuned_acc.float_accuracy);
  out << fmt::format("  start formats ({})          {:.4f}  ({:+.2f} points vs float)\n", a.start, start_acc.accuracy,
                           100 * (start_acc.accuracy - tuned_acc.float_accuracy));
  out << fmt::format("  tuned formats (step {})           {:.4f}  ({:+.2f} points vs float)\n", r.best, tuned_acc.accuracy,
                           100 * (tuned_acc.accuracy - tuned_acc.float_accuracy));

  backend::save_network(tuned_net, tuned, replace);
  std::string steps = "step,action,accuracy,correct,images,max_overflow_rate,seconds\n";
  std::string layers = "step,value,op,format,frac_bits,overflow_rate,pre_cast_max\n";
  json js = json::array();
  for (const TuneStep& s : r.steps) {
    steps += fmt::format("{},\"{}\",{:.6f},{},{},{:.9g},{:.3f}\n", s.index, s.action, s.eval.accuracy, s.eval.correct,
                         s.eval.images, s.eval.max_overflow_rate(), s.eval.seconds);
    for (const FormatSlot& sl : ev.slots()) {
      const int f = s.eval.formats.at(sl.value);
      auto rate = s.eval.overflow_rate.find(sl.value);
      auto top = s.eval.pre_cast_max.find(sl.value);
      layers += fmt::format("{},{},{},{},{},{},{}\n", s.index, sl.value, sl.op, q_name(bits, f), f,
                            rate == s.eval.overflow_rate.end() ? "" : fmt::format("{:.9g}", rate->second),
                            top == s.eval.pre_cast_max.end() ? "" : std::to_string(top->second));
    }
    json j = evaluation_json(s.eval, ev.slots(), bits);
    j["step"] = s.index;
    j["action"] = s.action;
    js.push_back(std::move(j));
  }
  json result = model::source_report(a.model, lo, m);
  result["mode"] = a.mode;
  result["start"] = a.start;
  result["threshold"] = a.threshold;
  result["limit"] = a.limit;
  result["radius"] = a.radius;
  result["min_gain"] = a.min_gain;
  result["tuning_split"] = {0, a.tune_images};
  result["holdout_split"] = {a.tune_images, a.tune_images + holdout};
  result["steps"] = js;
  result["best_step"] = r.best;
  result["stop_reason"] = r.stop_reason;
  result["holdout"] = {{"images", tuned_acc.images}, {"float", tuned_acc.float_accuracy}, {"start", start_acc.accuracy},
                       {"tuned", tuned_acc.accuracy}, {"integer_reference_identical", tuned_acc.mismatched_images == 0}};
  result["overflow"] = {
      {"images", tuned_acc.images},
      {"start", overflow_maps_json(*start_acc.instruments, ev.slots(), r.steps.front().eval.formats)},
      {"tuned", overflow_maps_json(*tuned_acc.instruments, ev.slots(), best.eval.formats)}};
  write_text(dir / "result.json", result.dump(2) + "\n", replace);
  write_text(dir / "tables.md", markdown_tables(a, lo.config, r, ev.slots(), start_acc, tuned_acc), true);
  write_text(dir / "steps.csv", steps, replace);
  write_text(dir / "layers.csv", layers, replace);
  out << fmt::format("wrote {} (run it with tauvta run / tauvta accuracy), result.json, steps.csv, layers.csv, "
                           "checkpoint.json in {}/\n", tuned.string(), dir.string());
  if (!a.html.empty()) {
    report::Page page;
    page.kind = report::PageKind::kPrecision;
    page.title = fmt::format("tauvta precision tune ({}): {} on {}", a.mode, a.model.model, lo.config.name());
    page.config = lo.config.to_json();
    page.report = result;
    page.extra = {{"bits", bits}};
    report::write_html_report(a.html, std::move(page), a.model.force);
    out << fmt::format("html: {}\n", a.html);
  }
  return result;
}

}  // namespace tauvta::precision
