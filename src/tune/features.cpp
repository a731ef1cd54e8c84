#include "tune/features.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace tauvta::tune {

namespace {

// One list of names; schedule_features fills them in this order (checked at the end).
const std::vector<std::string> kNames = {
    // knobs (tile sizes in blocks/rows/columns) and tile counts
    "tile_b", "tile_h", "tile_w", "tile_ci", "tile_co", "oc_nthread", "h_nthread", "virtual_threads",
    "tiles_b", "tiles_h", "tiles_w", "tiles_ci", "tiles_co",
    // SRAM footprint per buffer (elements, and fraction of a virtual thread's part)
    "inp_tile_elems", "wgt_tile_elems", "acc_tile_elems", "inp_fill", "wgt_fill", "acc_fill",
    "input_rows", "input_cols",
    // traffic (bytes moved per memory type) and reuse
    "inp_bytes", "wgt_bytes", "out_bytes", "acc_vector_bytes", "total_bytes", "log2_total_bytes",
    "inp_reuse", "wgt_reuse", "arith_intensity",
    // instruction and micro-op counts
    "gemm_insns", "load_insns", "store_insns", "alu_insns", "total_insns", "uops_per_gemm",
    "gemm_cycles", "log2_estimate_cycles", "compute_to_memory",
    // the workload and the config (transfer across tasks and hardware)
    "batch", "in_channels", "out_channels", "height", "width", "kernel", "stride", "out_height", "out_width",
    "groups", "log2_macs", "block_in", "block_out", "config_batch", "inp_depth", "wgt_depth", "acc_depth",
    "inp_width", "wgt_width", "bus_bytes", "dram_latency",
};

}  // namespace

const std::vector<std::string>& feature_names() { return kNames; }
size_t num_features() { return kNames.size(); }

void schedule_features(const hw::HwConfig& c, const lower::ConvWorkload& w, const lower::ConvGeometry& g,
                       const lower::ConvTiling& t, std::span<float> out) {
  if (out.size() != kNames.size()) throw InternalError("schedule_features: wrong output size");
  size_t i = 0;
  auto put = [&](double v) { out[i++] = float(v); };
  const double vt = t.vt;
  put(double(t.tb)), put(double(t.th)), put(double(t.tw)), put(double(t.tci)), put(double(t.tco));
  put(t.on), put(t.hn), put(vt);
  put(double(t.nbt)), put(double(t.nht)), put(double(t.nwt)), put(double(t.ncit)), put(double(t.ncot));

  const double kk = double(g.kh * g.kw);
  const double rows = double(t.rows(t.th)), cols = double(t.cols(t.tw));
  const double inp_tile = double(t.tb * t.in_blocks(g, t.tci)) * rows * cols;
  const double wgt_tile = double(t.tco * t.tci) * kk;
  const double acc_tile = double(t.tb * t.tco * t.th * t.tw);
  put(inp_tile), put(wgt_tile), put(acc_tile);
  put(inp_tile / double(std::max<int64_t>(1, t.inp_part)));
  put(wgt_tile / double(std::max<int64_t>(1, t.wgt_part)));
  put(acc_tile / double(std::max<int64_t>(1, t.acc_slot)));
  put(rows), put(cols);

  // Loads as the lowering issues them: an input or weight tile is loaded again unless the
  // previous step on the same virtual thread used the same one.
  const double items = double(t.items(g));
  const double steps = items * double(t.ncit);
  double in_loads = steps, w_loads = steps;
  if (t.ncit == 1 && t.nwt == 1) in_loads = items / double(t.ncot) * std::min<double>(double(t.ncot), vt);
  if (t.ncit == 1 && t.ncot == 1) w_loads = double(g.supergroups / t.sgt) * vt;
  const double inp_bytes = in_loads * inp_tile * c.inp_elem_bytes();
  const double wgt_bytes = w_loads * wgt_tile * c.wgt_elem_bytes();
  const double out_bytes = double(g.nb * g.cob_total * g.oh * g.ow) * c.out_elem_bytes();
  const double vec_bytes = double(g.supergroups / t.sgt) * double(t.reserved_acc) * c.acc_elem_bytes();
  const double total = inp_bytes + wgt_bytes + out_bytes + vec_bytes;
  put(inp_bytes), put(wgt_bytes), put(out_bytes), put(vec_bytes), put(total), put(std::log2(total + 1));
  const double inp_min = double(g.nb * g.cib_total * w.height * w.width) * c.inp_elem_bytes();
  const double wgt_min = double(g.supergroups * g.cob * g.cib) * kk * c.wgt_elem_bytes();
  put(inp_min / std::max(1.0, inp_bytes)), put(wgt_min / std::max(1.0, wgt_bytes));
  put(double(g.gemm_macs) / std::max(1.0, total));

  // Instructions: one GEMM per reduction step (+ the reset), loads per plane and weight tile,
  // stores per channel block, the requantization's ALU ops per output tile.
  const double gemm_insns = steps + items;
  const double load_insns = in_loads * double(t.tb * t.in_blocks(g, t.tci)) + w_loads + double(t.reserved_acc > 0 ? g.supergroups / t.sgt : 0);
  const double store_insns = items * double(t.tb * t.tco);
  const double alu_insns = items * double(3 + std::max<int64_t>(1, t.acc_vectors));
  put(gemm_insns), put(load_insns), put(store_insns), put(alu_insns);
  put(gemm_insns + load_insns + store_insns + alu_insns);
  put(acc_tile * double(t.tci) * kk);
  const double gemm_cycles = double(g.gemm_macs) / double(c.macs_per_cycle());
  put(gemm_cycles);
  const double est = lower::estimate_cycles(c, w, t);
  put(std::log2(est + 1));
  put(gemm_cycles / std::max(1.0, total / c.dram_bytes_per_cycle()));

  put(double(w.batch)), put(double(w.in_channels)), put(double(w.out_channels)), put(double(w.height));
  put(double(w.width)), put(double(w.kernel_h * w.kernel_w)), put(double(w.stride_h * w.stride_w));
  put(double(g.oh)), put(double(g.ow)), put(double(w.groups)), put(std::log2(double(w.macs()) + 1));
  put(c.block_in()), put(c.block_out()), put(c.batch());
  put(double(c.inp_depth())), put(double(c.wgt_depth())), put(double(c.acc_depth()));
  put(c.inp_width()), put(c.wgt_width()), put(c.bus_bytes()), put(c.timing.dram_latency_cycles);
  if (i != kNames.size()) throw InternalError("schedule_features: feature list and names disagree");
}

std::vector<float> space_features(const hw::HwConfig& c, const lower::ConvWorkload& w, const KnobSpace& space) {
  const size_t f = num_features();
  std::vector<float> rows(space.size() * f);
  for (size_t p = 0; p < space.size(); ++p) {
    schedule_features(c, w, space.geometry(), space.tiling(p), std::span<float>(rows.data() + p * f, f));
  }
  return rows;
}

}  // namespace tauvta::tune
