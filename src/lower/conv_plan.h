// How a convolution-family workload maps onto a config: channel blocks, block-diagonal
// "supergroups" for grouped and depthwise convolutions, and a schedule resolved into tile sizes
// and SRAM budgets. Legality (schedule_problem), the knob space the tuner searches
// (schedule_space) and the default heuristic (default_schedule) all read this one description,
// so they cannot disagree with the lowering.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/hw_config.h"
#include "lower/schedule.h"
#include "lower/workload.h"

namespace tauvta::lower {

struct ConvGeometry {
  int64_t nb = 1;                 // batch blocks
  int64_t cib_total = 1, cob_total = 1;  // channel blocks of the whole input / output tensors
  int64_t supergroups = 1;        // independent block-diagonal parts
  int64_t groups_per_sg = 1;      // convolution groups merged into one part
  int64_t cib = 1, cob = 1;       // channel blocks of one part
  int64_t oh = 1, ow = 1, kh = 1, kw = 1;
  uint64_t gemm_macs = 0;         // MACs the GEMM core performs (padding included)
};

// Throws tauvta::Error saying why the workload cannot run on this config (the compiler then
// places the layer on the CPU with that reason).
ConvGeometry conv_geometry(const hw::HwConfig& c, const ConvWorkload& w);

// What a layer's epilogue needs besides its tiles: per-channel requantization vectors in the
// accumulators (RequantVectors::acc_vectors) and, for a residual add fused after it, an INP
// region per virtual thread for the residual tile and one WGT element for its identity tile.
struct LayerNeeds {
  int64_t acc_vectors = 1;
  bool residual = false;
  LayerNeeds(int64_t vectors = 1, bool res = false) : acc_vectors(vectors), residual(res) {}  // NOLINT: from a count
  friend bool operator==(const LayerNeeds&, const LayerNeeds&) = default;
  friend auto operator<=>(const LayerNeeds&, const LayerNeeds&) = default;
};

// A one-row kernel with a row stride and no row padding reads only every stride-th input row,
// so its input loads skip the others in DRAM (a row step of stride x W) and a tile of th output
// rows holds th input rows, not (th - 1) x stride + 1.
bool skips_input_rows(const ConvWorkload& w);

// A schedule resolved against a geometry.
//
// An output-channel tile of a grouped convolution may span several supergroups, as TVM's
// group_conv2d_packed template tiles c_o over every group's blocks at once: tile_co's inner
// factor is then a multiple of the supergroup's cob, and `sgt` = tco / cob supergroups share one
// tile. Such a tile reads, per reduction step, the channel blocks from its first supergroup's
// step to its last one's (what TVM's bound inference loads: `in_blocks`), and each output
// block multiplies only its own supergroup's blocks. ncot then counts tiles within one such span
// (1), and the supergroup loop steps by sgt.
struct ConvTiling {
  int64_t tb = 1, th = 1, tw = 1, tci = 1, tco = 1;  // tile sizes (blocks, rows, columns)
  int64_t nbt = 1, nht = 1, nwt = 1, ncit = 1, ncot = 1;  // tiles per axis
  int64_t sgt = 1;                // supergroups one output-channel tile spans
  int hn = 1, on = 1, vt = 1;     // h and oc virtual threads, vt = hn * on
  int64_t reserved_acc = 0;       // ACC elements for per-channel vectors, at index 0
  int64_t acc_vectors = 1;        // per-channel requantization vectors (RequantVectors::acc_vectors)
  bool residual = false;          // a fused residual add: its tile follows the input tile in INP
  int64_t res_offset = 0;         // INP offset of the residual tile within a thread's part
  int64_t inp_part = 0, wgt_part = 0, acc_slot = 0;  // SRAM elements per virtual thread
  // Input rows an output tile of th_i rows holds in INP (an upper bound for transposed
  // convolutions): th_i when the load skips rows (skips_input_rows).
  int64_t rows(int64_t th_i) const;
  int64_t cols(int64_t tw_i) const;
  // Input-channel blocks a reduction step of tci_i blocks loads: tci_i, or the span from the
  // tile's first supergroup's blocks to its last one's.
  int64_t in_blocks(const ConvGeometry& g, int64_t tci_i) const { return (sgt - 1) * g.cib + tci_i; }
  // Output tiles (each runs ncit reduction steps) over the whole layer.
  int64_t items(const ConvGeometry& g) const { return nbt * nht * nwt * ncot * (g.supergroups / sgt); }
  ConvWorkload w;
};


// AutoTVM applies a split by its inner factor alone: the outer factor a record carries is not
// used, and TopHub has records whose outer does not match their workload. This sets such outers
// to -1 (derived) and says what it did in `notes`; schedule_problem stays strict for schedules
// users write.
Schedule with_derived_outers(const hw::HwConfig& c, const ConvWorkload& w, const Schedule& s,
                             std::vector<std::string>* notes);

// Resolves `s`; returns an empty string when legal, else the reason naming the knob.
std::string schedule_problem(const hw::HwConfig& c, const ConvWorkload& w, const ConvGeometry& g,
                             const Schedule& s, LayerNeeds needs, ConvTiling* out);
// Throws tauvta::Error with schedule_problem's reason.
ConvTiling resolve_schedule(const hw::HwConfig& c, const ConvWorkload& w, const Schedule& s,
                            LayerNeeds needs = {});

// The knobs of TVM's VTA template for a geometry, in the template's order: each tile_* takes
// the inner factors that divide its blocked axis, each thread count 1 or 2; dense has no tile_h,
// tile_w or h_nthread. schedule_space and the tuner's knob space both enumerate these.
struct Knob {
  std::string name;             // tile_b, tile_h, tile_w, tile_ci, tile_co, oc_nthread, h_nthread
  std::vector<int64_t> values;  // inner factors (tiles) or thread counts, ascending
};
std::vector<Knob> schedule_knobs(const ConvGeometry& g, OpKind kind);
// The schedule taking knobs[k].values[choice[k]] of every knob (outer factors derived).
Schedule schedule_of_choice(const ConvGeometry& g, const std::vector<Knob>& knobs, const std::vector<uint32_t>& choice);
// The value a schedule gives a knob (its inner factor, or its thread count).
int64_t knob_value(const Schedule& s, const std::string& knob);

// Every legal schedule: tile sizes that divide their axis (TVM's factor splits) plus the whole
// axis, and both virtual-thread counts.
std::vector<Schedule> schedule_space(const hw::HwConfig& c, const ConvWorkload& w,
                                     LayerNeeds needs = {});

// Estimated cycles of a schedule from the timing parameters (used to rank candidates).
double estimate_cycles(const hw::HwConfig& c, const ConvWorkload& w, const ConvTiling& t);

// The default heuristic: the best few of schedule_space by estimate_cycles, then the fastest
// of those by the timing model on the lowered program.
Schedule default_schedule(const hw::HwConfig& c, const ConvWorkload& w, LayerNeeds needs = {});

}  // namespace tauvta::lower
