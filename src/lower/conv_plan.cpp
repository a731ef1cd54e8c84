#include "lower/conv_plan.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/isa_fields.h"
#include "lower/tensor_layout.h"
#include "sim/memory_system.h"

namespace tauvta::lower {

namespace {

constexpr int64_t kMaxPad = 15;  // the load unit's 4-bit pad fields

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i <= n; ++i) {
    if (n % i == 0) d.push_back(i);
  }
  return d;
}

}  // namespace

ConvGeometry conv_geometry(const hw::HwConfig& c, const ConvWorkload& w) {
  w.validate();
  const int64_t BI = c.block_in(), BO = c.block_out(), B = c.batch();
  ConvGeometry g;
  if (w.kind == OpKind::kConv2dTranspose) {
    if (w.groups != 1) throw Error("grouped conv2d_transpose has no accelerator lowering");
    if (w.dilation_h != 1 || w.dilation_w != 1) throw Error("dilated conv2d_transpose has no accelerator lowering");
    // Rows (columns) of zeros the load unit inserts before and after the input.
    const int64_t top = ceil_div(std::max<int64_t>(0, w.kernel_h - 1 - w.pad_top), w.stride_h);
    const int64_t left = ceil_div(std::max<int64_t>(0, w.kernel_w - 1 - w.pad_left), w.stride_w);
    const int64_t bottom = std::max<int64_t>(0, (w.out_height() - 1 + w.pad_top) / w.stride_h - (w.height - 1));
    const int64_t right = std::max<int64_t>(0, (w.out_width() - 1 + w.pad_left) / w.stride_w - (w.width - 1));
    if (std::max({top, left, bottom, right}) > kMaxPad) {
      throw Error(fmt::format("the transposed window needs {} rows/columns of zeros around the input, more "
                              "than the {} the load unit's 4-bit pad fields can insert",
                              std::max({top, left, bottom, right}), kMaxPad));
    }
  } else {
    for (int64_t p : {w.pad_top, w.pad_left, w.pad_bottom, w.pad_right}) {
      if (p > kMaxPad) {
        throw Error(fmt::format("padding {} exceeds the {} rows/columns the load unit's 4-bit pad "
                                "fields can insert",
                                p, kMaxPad));
      }
    }
  }
  g.nb = ceil_div(w.batch, B);
  g.kh = w.kernel_h;
  g.kw = w.kernel_w;
  g.oh = w.out_height();
  g.ow = w.out_width();
  g.cib_total = ceil_div(w.in_channels, BI);
  g.cob_total = ceil_div(w.out_channels, BO);
  const int64_t groups = w.groups, cin_g = w.in_channels / groups, cout_g = w.out_channels / groups;
  int64_t m = groups;  // merge every group into one block-diagonal part unless fewer fit blocks
  for (int64_t k = 1; k < groups; ++k) {
    if (groups % k == 0 && (k * cin_g) % BI == 0 && (k * cout_g) % BO == 0) {
      m = k;
      break;
    }
  }
  g.groups_per_sg = m;
  g.supergroups = groups / m;
  if (g.supergroups == 1) {
    g.cib = g.cib_total;
    g.cob = g.cob_total;
  } else {
    g.cib = m * cin_g / BI;
    g.cob = m * cout_g / BO;
  }
  constexpr uint32_t kMaxRow = hw::field_max(hw::Field::kXStride);
  if (g.oh > kMaxRow || g.ow > kMaxRow || w.width > kMaxRow) {
    throw Error(fmt::format("an image row of {} elements exceeds the {}-bit load/store strides",
                            std::max(g.ow, w.width), hw::constant_width(hw::Field::kXStride)));
  }
  // A transposed convolution multiplies each input pixel by each tap once (no inserted zeros).
  const int64_t points = w.kind == OpKind::kConv2dTranspose ? w.height * w.width : g.oh * g.ow;
  g.gemm_macs = uint64_t(g.nb * B) * uint64_t(g.supergroups * g.cob * BO) * uint64_t(g.cib * BI) *
                uint64_t(points * g.kh * g.kw);
  return g;
}

bool skips_input_rows(const ConvWorkload& w) {
  return w.kind != OpKind::kConv2dTranspose && w.kernel_h == 1 && w.stride_h > 1 && w.pad_top == 0 && w.pad_bottom == 0;
}

int64_t ConvTiling::rows(int64_t th_i) const {
  if (w.kind == OpKind::kConv2dTranspose) return (th_i + w.kernel_h - 2) / w.stride_h + 1;
  if (skips_input_rows(w)) return th_i;
  return (th_i - 1) * w.stride_h + (w.kernel_h - 1) * w.dilation_h + 1;
}
int64_t ConvTiling::cols(int64_t tw_i) const {
  if (w.kind == OpKind::kConv2dTranspose) return (tw_i + w.kernel_w - 2) / w.stride_w + 1;
  return (tw_i - 1) * w.stride_w + (w.kernel_w - 1) * w.dilation_w + 1;
}

Schedule with_derived_outers(const hw::HwConfig& c, const ConvWorkload& w, const Schedule& s,
                             std::vector<std::string>* notes) {
  const ConvGeometry g = conv_geometry(c, w);
  Schedule r = s;
  const std::tuple<const char*, Split*, int64_t, const char*> axes[] = {
      {"tile_b", &r.tile_b, g.nb, "batch blocks"},
      {"tile_h", &r.tile_h, g.oh, "output rows"},
      {"tile_w", &r.tile_w, g.ow, "output columns"},
      {"tile_ci", &r.tile_ci, g.cib, "input-channel blocks"},
      {"tile_co", &r.tile_co, g.cob, "output-channel blocks"},
  };
  for (auto [knob, split, extent, unit] : axes) {
    // A co tile spanning supergroups counts its tiles over the whole layer (conv_plan.h).
    if (split == &r.tile_co && split->inner > g.cob && g.supergroups > 1) extent = g.cob_total;
    if (split->outer == -1 || split->inner < 1 || split->inner > extent) continue;
    // TVM's group template counts co tiles over every group; tauvta's, within a supergroup.
    if (split == &r.tile_co && g.supergroups > 1 && split->outer * split->inner == g.cob_total) {
      split->outer = -1;
      continue;
    }
    const int64_t count = ceil_div(extent, split->inner);
    if (split->outer == count) continue;
    if (notes) {
      notes->push_back(fmt::format("{}: [{}, {}] runs as {} tile(s) of {} over the {} {} (the outer "
                                   "factor is ignored, as AutoTVM does)",
                                   knob, split->outer, split->inner, count, split->inner, extent, unit));
    }
    split->outer = -1;
  }
  return r;
}

std::string schedule_problem(const hw::HwConfig& c, const ConvWorkload& w, const ConvGeometry& g,
                             const Schedule& s, LayerNeeds needs, ConvTiling* out) {
  ConvTiling t;
  t.w = w;
  struct Axis {
    const char* knob;
    const Split& split;
    int64_t extent;
    const char* unit;
    int64_t* tile;
    int64_t* count;
  };
  const Axis axes[] = {
      {"tile_b", s.tile_b, g.nb, "batch blocks", &t.tb, &t.nbt},
      {"tile_h", s.tile_h, g.oh, "output rows", &t.th, &t.nht},
      {"tile_w", s.tile_w, g.ow, "output columns", &t.tw, &t.nwt},
      {"tile_ci", s.tile_ci, g.cib, "input-channel blocks", &t.tci, &t.ncit},
      {"tile_co", s.tile_co, g.cob, "output-channel blocks", &t.tco, &t.ncot},
  };
  for (const Axis& a : axes) {
    if (a.split.inner < 1) return fmt::format("{}: inner factor {} must be at least 1", a.knob, a.split.inner);
    if (a.tile == &t.tco && a.split.inner > g.cob && g.supergroups > 1) {
      // TVM's group template tiles c_o over every group: a tile of whole supergroups.
      if (a.split.inner % g.cob != 0 || g.supergroups % (a.split.inner / g.cob) != 0) {
        return fmt::format("{}: inner factor {} spans supergroups of {} output-channel block(s) but "
                           "is not a whole number of them dividing the {} supergroups ({} blocks)",
                           a.knob, a.split.inner, g.cob, g.supergroups, g.cob_total);
      }
      t.sgt = a.split.inner / g.cob;
      t.tco = a.split.inner;
      t.ncot = 1;
      const int64_t tiles = g.supergroups / t.sgt;
      if (a.split.outer != -1 && a.split.outer != tiles) {
        return fmt::format("{}: [{}, {}] does not split the {} {} (outer must be {})", a.knob,
                           a.split.outer, a.split.inner, g.cob_total, a.unit, tiles);
      }
      continue;
    }
    if (a.split.inner > a.extent) {
      return fmt::format("{}: inner factor {} exceeds the {} {} of this workload", a.knob,
                         a.split.inner, a.extent, a.unit);
    }
    *a.tile = a.split.inner;
    *a.count = ceil_div(a.extent, a.split.inner);
    if (a.split.outer != -1 && a.split.outer != *a.count) {
      return fmt::format("{}: [{}, {}] does not split the {} {} (outer must be {})", a.knob,
                         a.split.outer, a.split.inner, a.extent, a.unit, *a.count);
    }
  }
  for (auto [knob, v] : {std::pair{"oc_nthread", s.oc_nthread}, std::pair{"h_nthread", s.h_nthread}}) {
    if (v != 1 && v != 2) return fmt::format("{}: {} virtual threads (1 or 2)", knob, v);
  }
  t.hn = s.h_nthread;
  t.on = s.oc_nthread;
  t.vt = t.hn * t.on;
  t.acc_vectors = needs.acc_vectors;
  t.residual = needs.residual;
  t.reserved_acc = g.cob * t.sgt * needs.acc_vectors;
  t.inp_part = int64_t(c.inp_depth()) / t.vt;
  t.wgt_part = (int64_t(c.wgt_depth()) - (t.residual ? 1 : 0)) / t.vt;  // the last: the identity tile
  t.acc_slot = (int64_t(c.acc_depth()) - t.reserved_acc) / t.vt;
  const int64_t in_tile = t.tb * t.in_blocks(g, t.tci) * t.rows(t.th) * t.cols(t.tw);
  if (in_tile > t.inp_part) {
    return fmt::format("tile_h/tile_w/tile_ci: an input tile of {} x {} x {}x{} = {} INP elements "
                       "exceeds the {} of each of {} virtual thread(s)",
                       t.tb, t.in_blocks(g, t.tci), t.rows(t.th), t.cols(t.tw), in_tile, t.inp_part, t.vt);
  }
  t.res_offset = in_tile;
  if (t.residual && in_tile + t.tb * t.tco * t.th * t.tw > t.inp_part) {
    return fmt::format("tile_b/tile_co/tile_h/tile_w: an input tile of {} plus the fused residual tile of {} x {} "
                       "x {}x{} INP elements exceeds the {} of each of {} virtual thread(s)",
                       in_tile, t.tb, t.tco, t.th, t.tw, t.inp_part, t.vt);
  }
  const int64_t w_tile = t.tco * t.tci * g.kh * g.kw;
  if (w_tile > t.wgt_part) {
    return fmt::format("tile_co/tile_ci: a weight tile of {} x {} x {}x{} = {} WGT elements "
                       "exceeds the {} of each of {} virtual thread(s)",
                       t.tco, t.tci, g.kh, g.kw, w_tile, t.wgt_part, t.vt);
  }
  const int64_t acc_tile = t.tb * t.tco * t.th * t.tw;
  if (acc_tile > t.acc_slot) {
    return fmt::format("tile_b/tile_co/tile_h/tile_w: an output tile of {} x {} x {}x{} = {} ACC "
                       "elements exceeds the {} of each of {} virtual thread(s)",
                       t.tb, t.tco, t.th, t.tw, acc_tile, t.acc_slot, t.vt);
  }
  if (t.cols(t.tw) > hw::field_max(hw::Field::kXSize)) {
    return fmt::format("tile_w: an input row exceeds the {}-bit x_size",
                       hw::constant_width(hw::Field::kXSize));
  }
  if (out) *out = t;
  return "";
}

ConvTiling resolve_schedule(const hw::HwConfig& c, const ConvWorkload& w, const Schedule& s,
                            LayerNeeds needs) {
  const ConvGeometry g = conv_geometry(c, w);
  ConvTiling t;
  const std::string why = schedule_problem(c, w, g, s, needs, &t);
  if (!why.empty()) {
    throw Error(fmt::format("schedule {} is illegal for {} on {}: {}", s.to_string(w.kind),
                            w.to_string(), c.name(), why));
  }
  return t;
}

std::vector<Knob> schedule_knobs(const ConvGeometry& g, OpKind kind) {
  const bool dense = kind == OpKind::kDense;
  std::vector<Knob> knobs = {{"tile_b", divisors(g.nb)}};
  if (!dense) {
    knobs.push_back({"tile_h", divisors(g.oh)});
    knobs.push_back({"tile_w", divisors(g.ow)});
  }
  knobs.push_back({"tile_ci", divisors(g.cib)});
  // Output-channel tiles within a supergroup, then (grouped layers) tiles of whole supergroups,
  // as TVM's group template tiles c_o over every group (ConvTiling::sgt).
  std::vector<int64_t> co = divisors(g.cob);
  for (int64_t span : divisors(g.supergroups)) {
    if (span > 1) co.push_back(g.cob * span);
  }
  knobs.push_back({"tile_co", co});
  knobs.push_back({"oc_nthread", {1, 2}});
  if (!dense) knobs.push_back({"h_nthread", {1, 2}});
  return knobs;
}

namespace {

// The split a knob sets and the extent it splits (nullptr for thread counts).
std::pair<Split*, int64_t> split_knob(Schedule& s, const ConvGeometry& g, const std::string& knob) {
  if (knob == "tile_b") return {&s.tile_b, g.nb};
  if (knob == "tile_h") return {&s.tile_h, g.oh};
  if (knob == "tile_w") return {&s.tile_w, g.ow};
  if (knob == "tile_ci") return {&s.tile_ci, g.cib};
  if (knob == "tile_co") return {&s.tile_co, g.cob};
  return {nullptr, 0};
}

}  // namespace

Schedule schedule_of_choice(const ConvGeometry& g, const std::vector<Knob>& knobs, const std::vector<uint32_t>& choice) {
  Schedule s;
  for (size_t k = 0; k < knobs.size(); ++k) {
    const int64_t v = knobs[k].values.at(choice.at(k));
    if (auto [split, extent] = split_knob(s, g, knobs[k].name); split != nullptr) {
      *split = Split{v <= extent ? extent / v : -1, v};  // past the extent: a supergroup span
    } else if (knobs[k].name == "oc_nthread") {
      s.oc_nthread = int(v);
    } else if (knobs[k].name == "h_nthread") {
      s.h_nthread = int(v);
    } else {
      throw InternalError("schedule_of_choice: unknown knob " + knobs[k].name);
    }
  }
  return s;
}

int64_t knob_value(const Schedule& s, const std::string& knob) {
  Schedule copy = s;
  if (auto [split, extent] = split_knob(copy, ConvGeometry{}, knob); split != nullptr) return split->inner;
  if (knob == "oc_nthread") return s.oc_nthread;
  if (knob == "h_nthread") return s.h_nthread;
  throw InternalError("knob_value: unknown knob " + knob);
}

std::vector<Schedule> schedule_space(const hw::HwConfig& c, const ConvWorkload& w,
                                     LayerNeeds needs) {
  const ConvGeometry g = conv_geometry(c, w);
  const std::vector<Knob> knobs = schedule_knobs(g, w.kind);
  std::vector<Schedule> out;
  // Every combination, the first knob slowest.
  std::vector<uint32_t> choice(knobs.size(), 0);
  for (;;) {
    const Schedule s = schedule_of_choice(g, knobs, choice);
    if (schedule_problem(c, w, g, s, needs, nullptr).empty()) out.push_back(s);
    size_t k = knobs.size();
    while (k > 0 && ++choice[k - 1] == knobs[k - 1].values.size()) choice[--k] = 0;
    if (k == 0) break;
  }
  return out;
}

double estimate_cycles(const hw::HwConfig& c, const ConvWorkload& w, const ConvTiling& t) {
  const hw::TimingParams& tp = c.timing;
  const ConvGeometry g = conv_geometry(c, w);
  // Rows as the memory system moves them on an idle port.
  const sim::MemoryParams port = sim::MemoryParams::from(c);
  const double kk = double(g.kh * g.kw);
  const double items = double(t.items(g));
  const double steps = items * double(t.ncit);
  const double tile = double(t.tb * t.tco * t.th * t.tw);
  const double per_insn = tp.gemm_pipeline_depth + tp.insn_overhead_cycles;
  const double gemm_step = tile * double(t.tci) * kk * tp.gemm_ii + per_insn;
  const double rows = double(t.rows(t.th)), cols = double(t.cols(t.tw));
  const double in_load = double(t.tb * t.in_blocks(g, t.tci)) * port.rows_cycles(rows, cols * c.inp_elem_bytes(), false);
  const double w_load = port.rows_cycles(double(t.tco), double(t.tci) * kk * c.wgt_elem_bytes(), false);
  // Reuse across consecutive tiles when the reduction is not split.
  double in_loads = steps, w_loads = steps;
  if (t.ncit == 1 && t.nwt == 1) in_loads = items / double(t.ncot) * std::min<double>(double(t.ncot), t.vt);
  if (t.ncit == 1 && t.ncot == 1) w_loads = double(g.supergroups / t.sgt) * t.vt;
  const double alu_ops = 3 + double(std::max<int64_t>(1, t.acc_vectors));
  const double alu_item = tile * (1 + alu_ops * tp.alu_ii) + alu_ops * per_insn;
  const double store_item = double(t.tb * t.tco) * port.rows_cycles(double(t.th), double(t.tw) * c.out_elem_bytes(), true);
  const double compute = steps * gemm_step + items * alu_item;
  const double memory = in_loads * in_load + w_loads * w_load + items * store_item;
  if (t.vt == 1) return compute + memory;
  return std::max(compute, memory) + (in_load + w_load + store_item);
}

}  // namespace tauvta::lower
