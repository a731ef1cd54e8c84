#include "lower/tuning_record.h"

#include <array>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/json_parse.h"
#include "lower/conv_plan.h"
#include "lower/tensor_layout.h"

namespace tauvta::lower {
namespace {

using nlohmann::json;

// Every parse error names the record and the field.
struct Where {
  const std::string& source;
  int64_t line;
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("{}:{}: {}", source, line, what));
  }
};

int64_t positive(const Where& at, const json& v, const std::string& what) {
  if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > (int64_t(1) << 31)) {
    at.fail(fmt::format("{}: expected a positive integer, got {}", what, v.dump()));
  }
  return v.get<int64_t>();
}

int64_t non_negative(const Where& at, const json& v, const std::string& what) {
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > (int64_t(1) << 31)) {
    at.fail(fmt::format("{}: expected a non-negative integer, got {}", what, v.dump()));
  }
  return v.get<int64_t>();
}

// ["TENSOR", [dims...], "int8"] -> dims.
std::vector<int64_t> tensor_dims(const Where& at, const json& v, const std::string& what, size_t rank) {
  if (!v.is_array() || v.size() != 3 || v[0] != "TENSOR" || !v[1].is_array() || v[1].size() != rank) {
    at.fail(fmt::format("{}: expected [\"TENSOR\", [{} sizes], dtype], got {}", what, rank, v.dump()));
  }
  std::vector<int64_t> d;
  for (size_t i = 0; i < rank; ++i) d.push_back(positive(at, v[1][i], fmt::format("{} dimension {}", what, i)));
  return d;
}

std::pair<int64_t, int64_t> pair_arg(const Where& at, const json& v, const std::string& what, bool allow_zero) {
  if (!v.is_array() || v.size() != 2) at.fail(fmt::format("{}: expected [h, w], got {}", what, v.dump()));
  if (allow_zero) return {non_negative(at, v[0], what), non_negative(at, v[1], what)};
  return {positive(at, v[0], what), positive(at, v[1], what)};
}

// TVM's padding: [top, left, bottom, right] or [h, w].
void padding_arg(const Where& at, const json& v, ConvWorkload& w) {
  if (v.is_array() && v.size() == 2) {
    std::tie(w.pad_top, w.pad_left) = pair_arg(at, v, "padding", true);
    w.pad_bottom = w.pad_top;
    w.pad_right = w.pad_left;
    return;
  }
  if (!v.is_array() || v.size() != 4) at.fail(fmt::format("padding: expected [top, left, bottom, right], got {}", v.dump()));
  w.pad_top = non_negative(at, v[0], "padding");
  w.pad_left = non_negative(at, v[1], "padding");
  w.pad_bottom = non_negative(at, v[2], "padding");
  w.pad_right = non_negative(at, v[3], "padding");
}

// data [N/b, C/bi, H, W, b, bi] and kernel [CO/bo, CIg/bi, KH, KW, bo, bi] (CIg: input channels
// per group) into the unblocked sizes; checks the two agree on the blocking.
std::array<int64_t, 3> conv_tensors(const Where& at, const json& args, ConvWorkload& w, int64_t groups) {
  const std::vector<int64_t> d = tensor_dims(at, args[0], "data", 6);
  const std::vector<int64_t> k = tensor_dims(at, args[1], "kernel", 6);
  if (k[5] != d[5]) at.fail(fmt::format("kernel block_in {} differs from the data's {}", k[5], d[5]));
  w.batch = d[0] * d[4];
  w.in_channels = d[1] * d[5];
  w.height = d[2];
  w.width = d[3];
  w.out_channels = k[0] * k[4];
  w.kernel_h = k[2];
  w.kernel_w = k[3];
  w.groups = groups;
  const int64_t kernel_ci = k[1] * k[5];
  const int64_t expect = w.kind == OpKind::kConv2dTranspose ? w.in_channels : w.in_channels / groups;
  if (kernel_ci != expect || w.in_channels % groups != 0) {
    at.fail(fmt::format("kernel input channels {} do not match the data's {} in {} group(s)", kernel_ci,
                        w.in_channels, groups));
  }
  return {d[4], d[5], k[4]};
}

ConvWorkload workload_of(const Where& at, OpKind kind, const json& args, std::array<int64_t, 3>& blocks) {
  ConvWorkload w;
  w.kind = kind;
  if (!args.is_array()) at.fail("task arguments: not a list");
  const auto need = [&](size_t n) {
    if (args.size() < n) {
      at.fail(fmt::format("{}: {} arguments, expected at least {}", op_kind_task(kind), args.size(), n));
    }
  };
  switch (kind) {
    case OpKind::kDense: {
      need(2);
      const std::vector<int64_t> d = tensor_dims(at, args[0], "data", 4);
      const std::vector<int64_t> k = tensor_dims(at, args[1], "kernel", 4);
      if (k[1] * k[3] != d[1] * d[3]) {
        at.fail(fmt::format("kernel inputs {} differ from the data's {}", k[1] * k[3], d[1] * d[3]));
      }
      w.batch = d[0] * d[2];
      w.in_channels = d[1] * d[3];
      w.out_channels = k[0] * k[2];
      blocks = {d[2], d[3], k[2]};
      break;
    }
    case OpKind::kConv2d:
      need(5);
      blocks = conv_tensors(at, args, w, 1);
      std::tie(w.stride_h, w.stride_w) = pair_arg(at, args[2], "strides", false);
      padding_arg(at, args[3], w);
      std::tie(w.dilation_h, w.dilation_w) = pair_arg(at, args[4], "dilation", false);
      break;
    case OpKind::kGroupConv2d:
      need(6);
      blocks = conv_tensors(at, args, w, positive(at, args[5], "groups"));
      std::tie(w.stride_h, w.stride_w) = pair_arg(at, args[2], "strides", false);
      padding_arg(at, args[3], w);
      std::tie(w.dilation_h, w.dilation_w) = pair_arg(at, args[4], "dilation", false);
      break;
    case OpKind::kConv2dTranspose:
      need(4);
      blocks = conv_tensors(at, args, w, 1);
      std::tie(w.stride_h, w.stride_w) = pair_arg(at, args[2], "strides", false);
      padding_arg(at, args[3], w);
      // [data, kernel, strides, padding, out_dtype, output_padding]; older logs stop at out_dtype.
      if (args.size() >= 6 && !args[5].is_null()) {
        std::tie(w.output_pad_h, w.output_pad_w) = pair_arg(at, args[5], "output_padding", true);
      }
      break;
  }
  try {
    w.validate();
  } catch (const Error& e) {
    at.fail(e.what());
  }
  return w;
}

std::string model_of(const std::string& target) {
  const size_t m = target.find("-model=");
  if (m == std::string::npos) return "";
  const size_t begin = m + 7;
  const size_t end = target.find(' ', begin);
  return target.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

}  // namespace

std::string record_config_name(const TuningRecord& r) {
  // A leading target ("pynq_", "de10nano_", "sim_") is not part of HwConfig::name(), which
  // starts with the batch digit.
  const size_t u = r.model.find('_');
  if (u != std::string::npos && !r.model.empty() && !std::isdigit(static_cast<unsigned char>(r.model[0]))) {
    return r.model.substr(u + 1);
  }
  return r.model;
}

bool record_blocking_matches(const TuningRecord& r, const hw::HwConfig& c) {
  return r.block_batch == c.batch() && r.block_in == c.block_in() && r.block_out == c.block_out();
}

Schedule record_schedule(const TuningRecord& r, const hw::HwConfig& c, std::vector<std::string>* notes) {
  Schedule s = r.schedule;
  if (!record_blocking_matches(r, c)) {
    const auto rescale = [&](const char* knob, Split& sp, int64_t from, int64_t to) {
      if (from == to) return;
      // Fewer batch rows than the config's BATCH fill one of its blocks (the rest is padding).
      if (&sp == &s.tile_b && sp.inner * from < to && to % (sp.inner * from) == 0) {
        sp = Split{-1, 1};
        return;
      }
      if ((sp.inner * from) % to != 0) {
        throw Error(fmt::format("{}: a tile of {} blocks of {} is not a whole number of {}'s blocks of {}", knob,
                                sp.inner, from, c.name(), to));
      }
      sp = Split{-1, sp.inner * from / to};
    };
    rescale("tile_b", s.tile_b, r.block_batch, c.batch());
    rescale("tile_ci", s.tile_ci, r.block_in, c.block_in());
    rescale("tile_co", s.tile_co, r.block_out, c.block_out());
    if (notes) {
      notes->push_back(fmt::format("the record's tensors are blocked {}x{} (out {}), {} blocks {}x{} (out {}): "
                                   "tile_b, tile_ci and tile_co rescaled to the same tiles in elements",
                                   r.block_batch, r.block_in, r.block_out, c.name(), c.batch(), c.block_in(),
                                   c.block_out()));
    }
  }
  return with_derived_outers(c, r.workload, s, notes);
}

std::optional<ConvWorkload> tvm_template_workload(const ConvWorkload& w) {
  if (w.kind != OpKind::kConv2dTranspose || (w.stride_h == 1 && w.stride_w == 1)) return std::nullopt;
  ConvWorkload c = w;
  c.kind = OpKind::kConv2d;
  c.height = (w.height - 1) * w.stride_h + 1;
  c.width = (w.width - 1) * w.stride_w + 1;
  c.stride_h = c.stride_w = 1;
  c.pad_top = w.dilation_h * (w.kernel_h - 1) - w.pad_top;
  c.pad_bottom = w.dilation_h * (w.kernel_h - 1) - w.pad_bottom + w.output_pad_h;
  c.pad_left = w.dilation_w * (w.kernel_w - 1) - w.pad_left;
  c.pad_right = w.dilation_w * (w.kernel_w - 1) - w.pad_right + w.output_pad_w;
  c.output_pad_h = c.output_pad_w = 0;
  // A pad larger than the kernel reach would crop the dilated input: not a form the template has.
  if (c.pad_top < 0 || c.pad_bottom < 0 || c.pad_left < 0 || c.pad_right < 0) return std::nullopt;
  if (c.out_height() != w.out_height() || c.out_width() != w.out_width()) {
    throw InternalError(fmt::format("{}: the dilated convolution's output {}x{} is not the operator's {}x{}",
                                    w.to_string(), c.out_height(), c.out_width(), w.out_height(), w.out_width()));
  }
  return c;
}

TuningRecord record_as_run(const TuningRecord& r, std::vector<std::string>* notes) {
  TuningRecord run = r;
  if (std::optional<ConvWorkload> w = tvm_template_workload(r.workload)) {
    run.workload = *w;
    if (notes) {
      notes->push_back(fmt::format("timed as TVM's {} computes it: {} (the stride-dilated input)",
                                   op_kind_task(r.workload.kind), w->to_string()));
    }
  }
  // Every batch block is its own pass over the reduction in TVM's templates: the convolution
  // templates define tile_b but never apply it (the batch loop stays whole and outermost), and
  // dense_packed's batch loop sits outside the reduction, whose input and weight loads it
  // repeats. One batch block per tile loads what they load (op_runner times TVM records with
  // the weight tile reloaded per batch block too).
  if (run.schedule.tile_b.inner > 1) {
    if (notes) {
      const char* why = r.workload.kind == OpKind::kDense
                            ? "TVM's dense template computes a tile's batch blocks one after another, loading "
                              "their inputs and weights again for each"
                            : "TVM's convolution templates do not apply tile_b (each batch block is its own pass "
                              "over the layer)";
      notes->push_back(fmt::format("tile_b [{}, {}] timed as one batch block per tile: {}", run.schedule.tile_b.outer,
                                   run.schedule.tile_b.inner, why));
    }
    run.schedule.tile_b = Split{-1, 1};
  }
  return run;
}

double record_seconds(const TuningRecord& r) {
  if (r.error_no != 0 || r.costs.empty()) return std::numeric_limits<double>::infinity();
  double sum = 0;
  for (double c : r.costs) sum += c;
  return sum / double(r.costs.size());
}

std::optional<TuningRecord> parse_tuning_record(const json& j, const std::string& source, int64_t line) {
  const Where at{source, line};
  if (!j.is_object() || !j.contains("input") || !j["input"].is_array() || j["input"].size() < 3) {
    at.fail("not an AutoTVM record (no \"input\": [target, task, args, ...])");
  }
  const json& input = j["input"];
  if (!input[0].is_string() || !input[1].is_string()) at.fail("input: target and task must be strings");
  TuningRecord r;
  r.target = input[0].get<std::string>();
  const std::string task = input[1].get<std::string>();
  if (r.target.find("-device=vta") == std::string::npos) return std::nullopt;
  OpKind kind{};
  bool known = false;
  for (int i = 0; i < kNumOpKinds; ++i) {
    if (task == op_kind_task(OpKind(i))) {
      kind = OpKind(i);
      known = true;
    }
  }
  if (!known) return std::nullopt;
  r.line = line;
  r.model = model_of(r.target);
  if (r.model.empty()) at.fail(fmt::format("target '{}' has no -model= naming the VTA config", r.target));
  std::array<int64_t, 3> blocks{1, 1, 1};
  r.workload = workload_of(at, kind, input[2], blocks);
  std::tie(r.block_batch, r.block_in, r.block_out) = std::tuple(blocks[0], blocks[1], blocks[2]);
  if (j.contains("tauvta_workload")) {
    try {
      r.workload = workload_from_json(j["tauvta_workload"]);
    } catch (const Error& e) {
      at.fail(std::string("tauvta_workload: ") + e.what());
    }
    if (r.workload.kind != kind) at.fail("tauvta_workload: its kind is not the task's");
  }
  if (!j.contains("config") || !j["config"].is_object() || !j["config"].contains("entity")) {
    at.fail("no \"config\": {\"entity\": [...]}");
  }
  const json& config = j["config"];
  if (config.contains("index") && config["index"].is_number_integer()) r.config_index = config["index"].get<int64_t>();
  try {
    r.schedule = Schedule::from_entity(config["entity"]);
  } catch (const Error& e) {
    at.fail(e.what());
  }
  if (j.contains("result")) {
    const json& res = j["result"];
    if (!res.is_array() || res.size() < 2 || !res[0].is_array() || !res[1].is_number_integer()) {
      at.fail(fmt::format("result: expected [[seconds...], error_no, ...], got {}", res.dump()));
    }
    for (const json& c : res[0]) {
      if (!c.is_number() || !std::isfinite(c.get<double>()) || c.get<double>() < 0) {
        at.fail(fmt::format("result: cost {} is not a non-negative number of seconds", c.dump()));
      }
      r.costs.push_back(c.get<double>());
    }
    r.error_no = res[1].get<int64_t>();
    if (res.size() >= 4 && res[3].is_number()) r.timestamp = res[3].get<double>();
  }
  return r;
}

TuningLog read_tuning_log(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open tuning log", path.string()));
  TuningLog log;
  std::string text;
  int64_t line = 0;
  const std::string source = path.string();
  while (std::getline(in, text)) {
    ++line;
    const size_t first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    if (text[first] == '#') {
      ++log.comment_lines;
      continue;
    }
    json j;
    try {
      j = parse_json_bounded(fmt::format("{}:{}", source, line), text);
    } catch (const json::exception& e) {
      throw Error(fmt::format("{}:{}: not a JSON record: {}", source, line, e.what()));
    }
    if (std::optional<TuningRecord> r = parse_tuning_record(j, source, line)) {
      log.records.push_back(std::move(*r));
    } else {
      ++log.other_records;
    }
  }
  if (in.bad()) throw Error(fmt::format("{}: read error", source));
  return log;
}

json tuning_record_json(const hw::HwConfig& c, const ConvWorkload& w, const Schedule& s,
                        const std::vector<double>& costs, int64_t error_no, double timestamp,
                        int64_t config_index) {
  const int64_t b = c.batch(), bi = c.block_in(), bo = c.block_out();
  const int64_t ci_group = w.kind == OpKind::kGroupConv2d ? w.in_channels / w.groups : w.in_channels;
  // A workload whose sizes do not fill whole blocks (a column-folded first layer) is written
  // with its blocked sizes rounded up, as the accelerator computes it, and its exact sizes under
  // "tauvta_workload", which TVM ignores and our reader prefers.
  const bool exact = w.batch % b == 0 && w.in_channels % bi == 0 && ci_group % bi == 0 && w.out_channels % bo == 0;
  const auto up = [](int64_t v, int64_t block) { return ceil_div(v, block) * block; };
  const int64_t batch = up(w.batch, b), in_channels = up(w.in_channels, bi), out_channels = up(w.out_channels, bo);
  const int64_t ci_blocked = up(ci_group, bi);
  const std::string inp_t = fmt::format("int{}", c.inp_width());
  const std::string wgt_t = fmt::format("int{}", c.wgt_width());
  const std::string acc_t = fmt::format("int{}", c.acc_width());
  json args = json::array();
  if (w.kind == OpKind::kDense) {
    args.push_back({"TENSOR", {batch / b, in_channels / bi, b, bi}, inp_t});
    args.push_back({"TENSOR", {out_channels / bo, in_channels / bi, bo, bi}, wgt_t});
    args.push_back(nullptr);
    args.push_back(acc_t);
  } else {
    args.push_back({"TENSOR", {batch / b, in_channels / bi, w.height, w.width, b, bi}, inp_t});
    args.push_back({"TENSOR", {out_channels / bo, ci_blocked / bi, w.kernel_h, w.kernel_w, bo, bi}, wgt_t});
    args.push_back({w.stride_h, w.stride_w});
    args.push_back({w.pad_top, w.pad_left, w.pad_bottom, w.pad_right});
    if (w.kind == OpKind::kConv2dTranspose) {
      args.push_back(acc_t);
      args.push_back({w.output_pad_h, w.output_pad_w});
    } else {
      args.push_back({w.dilation_h, w.dilation_w});
      if (w.kind == OpKind::kGroupConv2d) {
        args.push_back(w.groups);
      } else {
        args.push_back(fmt::format("NCHW{}n{}c", b, bi));
      }
      args.push_back(acc_t);
    }
  }
  json j;
  j["input"] = {fmt::format("ext_dev -device=vta -keys=cpu -model={}_{}", c.target, c.name()),
                op_kind_task(w.kind), args, json::object()};
  j["config"] = {{"index", config_index}, {"code_hash", nullptr}, {"entity", s.to_entity(w.kind)}};
  j["result"] = {costs, error_no, 0.0, timestamp};
  if (!exact) j["tauvta_workload"] = workload_to_json(w);
  j["version"] = 0.2;
  j["tvm_version"] = "0.7.dev0";
  return j;
}

}  // namespace tauvta::lower
