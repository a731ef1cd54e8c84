#include "runtime/tiled_gemm.h"

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "common/error.h"
#include "runtime/uop_kernel.h"
#include "sim/memory_system.h"
#include "hw/isa_fields.h"

namespace tauvta::runtime {
namespace {

using hw::MemId;
using hw::Module;

// The loop counts of a GEMM or ALU instruction (iter_out, iter_in).
constexpr uint32_t kMaxIter =
    std::min(hw::field_max(hw::Field::kIterOut), hw::field_max(hw::Field::kIterIn));
// The 2-D block of a LOAD or STORE (x_size, y_size, x_stride).
constexpr uint32_t kMaxXSize = std::min({hw::field_max(hw::Field::kXSize),
                                         hw::field_max(hw::Field::kYSize),
                                         hw::field_max(hw::Field::kXStride)});

uint32_t ceil_div(uint64_t a, uint64_t b) { return uint32_t((a + b - 1) / b); }

// SRAM elements one virtual thread may use.
struct Caps {
  uint64_t inp, wgt, acc;
};

Caps caps_of(const hw::HwConfig& c, int vt) {
  return Caps{c.inp_depth() / uint64_t(vt), c.wgt_depth() / uint64_t(vt),
              c.acc_depth() / uint64_t(vt)};
}

void check_vt(int vt) {
  if (vt != 1 && vt != 2) {
    throw Error(fmt::format("virtual threads must be 1 or 2, got {}", vt));
  }
}

void check_shape(GemmShape s) {
  if (s.m == 0 || s.k == 0 || s.n == 0) {
    throw Error(fmt::format("GEMM shape {}x{}x{} has an empty dimension", s.m, s.k, s.n));
  }
}

// The model behind choose_gemm_tiling: estimated cycles from average tile sizes. A step costs
// its GEMM on compute and its loads (plus its share of the tile's store) on the DRAM bus; with two
// virtual threads they overlap, so a step costs the larger, plus the first load and last store.
double estimate_cycles(const hw::HwConfig& c, const GemmBlocks& b, uint32_t tm, uint32_t tn,
                       uint32_t tk, int vt) {
  const hw::TimingParams& t = c.timing;
  const double nm = ceil_div(b.m, tm), nn = ceil_div(b.n, tn), nk = ceil_div(b.k, tk);
  const double items = nm * nn, steps = items * nk;
  const double am = b.m / nm, an = b.n / nn, ak = b.k / nk;  // average tile sides
  // Rows as the memory system moves them on an idle port.
  const sim::MemoryParams port = sim::MemoryParams::from(c);
  const double per_insn = t.gemm_pipeline_depth + t.insn_overhead_cycles;
  const double compute_step = am * an * ak * t.gemm_ii + per_insn + (am * an + per_insn) / nk;
  const bool one_k = nk == 1;  // contiguous tiles, and weights/inputs reusable between steps
  const double x_load = one_k ? port.rows_cycles(1, am * ak * c.inp_elem_bytes(), false)
                              : port.rows_cycles(am, ak * c.inp_elem_bytes(), false);
  const double w_load = one_k ? port.rows_cycles(1, an * ak * c.wgt_elem_bytes(), false)
                              : port.rows_cycles(an, ak * c.wgt_elem_bytes(), false);
  const double store = nn == 1 ? port.rows_cycles(1, am * an * c.out_elem_bytes(), true)
                               : port.rows_cycles(am, an * c.out_elem_bytes(), true);
  // How many steps load an input tile and a weight tile.
  double x_steps = steps, w_steps = steps;
  if (one_k && nm == 1) x_steps = std::min<double>(nn, vt);
  if (one_k && nm > 1) w_steps = nn * std::min<double>(nm, vt);
  const double base = store / nk + t.insn_overhead_cycles * 3;
  if (vt == 1) {
    return steps * (compute_step + base) + x_steps * x_load + w_steps * w_load;
  }
  // Steps fall into four classes by what they load; each costs max(compute, its transfers).
  const double px = x_steps / steps, pw = w_steps / steps;
  double total = 0;
  for (int lx = 0; lx < 2; ++lx) {
    for (int lw = 0; lw < 2; ++lw) {
      const double share = (lx ? px : 1 - px) * (lw ? pw : 1 - pw);
      const double mem = base + lx * x_load + lw * w_load;
      total += share * steps * std::max(compute_step, mem);
    }
  }
  return total + x_load + w_load + store;
}

// Tile sizes worth trying for a dimension of `x` blocks: near-even splits into powers of two.
std::set<uint32_t> candidates(uint32_t x, uint64_t cap) {
  std::set<uint32_t> out;
  const uint64_t hi = std::min<uint64_t>(x, cap);
  for (uint64_t p = 1; p <= hi; p *= 2) out.insert(ceil_div(x, ceil_div(x, p)));
  if (hi >= 1) out.insert(uint32_t(hi));
  return out;
}

struct Tile {
  uint32_t m0 = 0, m = 0, n0 = 0, n = 0;
};

UopKernel reset_kernel(uint32_t acc_base, uint32_t inp_base, uint32_t wgt_base, uint32_t m,
                       uint32_t n) {
  return UopKernelBuilder(UopKind::kGemm)
      .loop_begin(m, n, 0, 0)
      .loop_begin(n, 1, 0, 0)
      .push(acc_base, inp_base, wgt_base)
      .loop_end()
      .loop_end()
      .build();
}

// One micro-op per output element of the tile (consecutive micro-ops never hit the same
// accumulator), iterated over the k blocks of the step by the outer loop.
UopKernel gemm_kernel(uint32_t acc_base, uint32_t inp_base, uint32_t wgt_base, uint32_t m,
                      uint32_t n, uint32_t k) {
  UopKernelBuilder kb(UopKind::kGemm);
  kb.loop_begin(k, 0, 1, 1);
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) kb.push(acc_base + i * n + j, inp_base + i * k, wgt_base + j * k);
  }
  kb.loop_end();
  return kb.build();
}

}  // namespace

std::string GemmTiling::to_string() const {
  return fmt::format("tile_m={} tile_n={} tile_k={} virtual_threads={}", tile_m, tile_n, tile_k,
                     virtual_threads);
}

void check_gemm_tiling(const hw::HwConfig& c, GemmShape shape, const GemmTiling& t) {
  check_vt(t.virtual_threads);
  check_shape(shape);
  if (t.tile_m == 0 || t.tile_n == 0 || t.tile_k == 0) {
    throw Error(fmt::format("GEMM tiling {}: tile sizes must be at least 1", t.to_string()));
  }
  const GemmBlocks b = gemm_blocks(c, shape.m, shape.k, shape.n);
  const uint64_t tm = std::min(t.tile_m, b.m), tn = std::min(t.tile_n, b.n),
                 tk = std::min(t.tile_k, b.k);
  const Caps cap = caps_of(c, t.virtual_threads);
  auto fail = [&](const std::string& why) {
    throw Error(fmt::format("GEMM tiling {} does not fit: {}", t.to_string(), why));
  };
  if (tm * tk > cap.inp) fail(fmt::format("input tile {}x{} > {} INP elements", tm, tk, cap.inp));
  if (tn * tk > cap.wgt) fail(fmt::format("weight tile {}x{} > {} WGT elements", tn, tk, cap.wgt));
  if (tm * tn > cap.acc) fail(fmt::format("output tile {}x{} > {} ACC elements", tm, tn, cap.acc));
  if (tk > kMaxIter || tm > kMaxIter || tn > kMaxIter) {
    fail(fmt::format("a tile side exceeds the {} iterations of iter_out/iter_in", kMaxIter));
  }
  if (b.k > kMaxXSize || b.n > kMaxXSize) {
    fail(fmt::format("a row stride of {} or {} blocks exceeds the 16-bit x_stride", b.k, b.n));
  }
}

GemmTiling choose_gemm_tiling(const hw::HwConfig& c, GemmShape shape, int vt) {
  check_vt(vt);
  check_shape(shape);
  const GemmBlocks b = gemm_blocks(c, shape.m, shape.k, shape.n);
  const Caps cap = caps_of(c, vt);
  const uint64_t iter = kMaxIter;
  const auto ms = candidates(b.m, std::min({cap.inp, cap.acc, iter}));
  const auto ns = candidates(b.n, std::min({cap.wgt, cap.acc, iter, uint64_t(kMaxXSize)}));
  const auto ks = candidates(b.k, std::min({cap.inp, cap.wgt, iter, uint64_t(kMaxXSize)}));
  // Prefer kernels that leave room for every (half, accumulator half) variant in the micro-op
  // SRAM, then ones that fit at all; a larger kernel still runs, split.
  const uint64_t uop = c.uop_depth();
  for (uint64_t uop_budget : {uop / uint64_t(vt * vt), uop, std::numeric_limits<uint64_t>::max()}) {
    std::optional<GemmTiling> best;
    std::tuple<double, double> best_key{};
    for (uint32_t tm : ms) {
      for (uint32_t tn : ns) {
        if (uint64_t(tm) * tn > cap.acc || uint64_t(tm) * tn > uop_budget) continue;
        for (uint32_t tk : ks) {
          if (uint64_t(tm) * tk > cap.inp || uint64_t(tn) * tk > cap.wgt) continue;
          const double est = estimate_cycles(c, b, tm, tn, tk, vt);
          const double steps = double(ceil_div(b.m, tm)) * ceil_div(b.n, tn) * ceil_div(b.k, tk);
          const std::tuple<double, double> key{est, steps};
          if (!best || key < best_key) {
            best = GemmTiling{tm, tn, tk, vt};
            best_key = key;
          }
        }
      }
    }
    if (best) return *best;
  }
  throw Error(fmt::format("no GEMM tiling fits config {} with {} virtual thread(s)", c.name(), vt));
}

void emit_tiled_gemm(CommandBuilder& cb, const DramBuffer& inp, const DramBuffer& wgt,
                     const DramBuffer& out, GemmShape shape, const GemmTiling& tiling) {
  const hw::HwConfig& c = cb.config();
  check_gemm_tiling(c, shape, tiling);
  const GemmBlocks b = gemm_blocks(c, shape.m, shape.k, shape.n);
  const int vt = tiling.virtual_threads;
  const uint32_t tm = std::min(tiling.tile_m, b.m), tn = std::min(tiling.tile_n, b.n),
                 tk = std::min(tiling.tile_k, b.k);
  const Caps cap = caps_of(c, vt);
  const uint32_t nm = ceil_div(b.m, tm), nn = ceil_div(b.n, tn), nk = ceil_div(b.k, tk);
  const uint64_t items = uint64_t(nm) * nn;

  // Items (output tiles) run n-tile outer, m-tile inner, so consecutive tiles share weights.
  auto tile_of = [&](uint64_t i) {
    const uint32_t ni = uint32_t(i / nm), mi = uint32_t(i % nm);
    Tile t;
    t.m0 = mi * tm;
    t.m = std::min(tm, b.m - t.m0);
    t.n0 = ni * tn;
    t.n = std::min(tn, b.n - t.n0);
    return t;
  };
  // Rows that are contiguous in DRAM and dense in SRAM move as one long row.
  auto load_rows = [&](MemId mem, uint32_t sram, const DramBuffer& buf, uint64_t off, uint32_t x,
                       uint32_t y, uint32_t stride) {
    if (x == stride && uint64_t(x) * y <= kMaxXSize) {
      cb.load_2d(mem, sram, buf, off, x * y, 1, x * y);
    } else {
      cb.load_2d(mem, sram, buf, off, x, y, stride);
    }
  };

  // What each SRAM half holds, so a step can skip a load of the tile already there.
  using Key = std::pair<int64_t, int64_t>;
  std::vector<Key> inp_at(size_t(vt), Key{-1, -1}), wgt_at(size_t(vt), Key{-1, -1});

  // Groups of output tiles, each balanced in tokens (credits pushed at its start, taken back at
  // its end), keep a long GEMM within the builder's instruction limit.
  const uint64_t per_item = uint64_t(nk) * 6 + 6;
  uint64_t group = items;
  if (cb.options().max_insns != 0) {
    group = std::max<uint64_t>(uint64_t(vt), cb.options().max_insns / 2 / per_item);
    group -= group % uint64_t(vt);
  }

  // One step of the schedule, in program order.
  struct Step {
    uint64_t item;
    uint32_t ki;
    size_t half;     // input/weight SRAM half (global step parity)
    uint32_t slot;   // accumulator half (position of the item in its pair)
  };
  auto steps_of = [&](uint64_t g0, uint64_t g1, uint64_t first_step) {
    std::vector<Step> list;
    uint64_t step = first_step;
    for (uint64_t c0 = g0; c0 < g1; c0 += uint64_t(vt)) {
      const uint64_t c1 = std::min(g1, c0 + uint64_t(vt));
      // The virtual threads' steps interleave, so each alternates with the other's.
      for (uint32_t ki = 0; ki < nk; ++ki) {
        for (uint64_t i = c0; i < c1; ++i) {
          list.push_back(Step{i, ki, size_t(step % uint64_t(vt)), uint32_t(i - c0)});
          ++step;
        }
      }
    }
    return list;
  };
  auto kernels_of = [&](const Step& st) {
    const Tile t = tile_of(st.item);
    const uint32_t k0 = st.ki * tk, k = std::min(tk, b.k - k0);
    const uint32_t inp_base = uint32_t(st.half * cap.inp), wgt_base = uint32_t(st.half * cap.wgt);
    const uint32_t acc_base = uint32_t(st.slot * cap.acc);
    return std::pair{reset_kernel(acc_base, inp_base, wgt_base, t.m, t.n),
                     gemm_kernel(acc_base, inp_base, wgt_base, t.m, t.n, k)};
  };

  uint64_t step = 0;
  for (uint64_t g0 = 0; g0 < items; g0 += group) {
    const uint64_t g1 = std::min(items, g0 + group);
    const std::vector<Step> steps = steps_of(g0, g1, step);
    // Load the group's distinct micro-kernels up front when they fit together: a micro-op load
    // runs on compute and would otherwise wait for the DRAM bus behind the next tile's loads.
    {
      std::vector<UopKernel> distinct;
      uint64_t uops = 0;
      for (const Step& st : steps) {
        auto [reset, gemm] = kernels_of(st);
        for (UopKernel* kp : {&reset, &gemm}) {
          if (std::find(distinct.begin(), distinct.end(), *kp) != distinct.end()) continue;
          uops += kp->uops.size();
          distinct.push_back(std::move(*kp));
        }
        if (uops > c.uop_depth()) break;
      }
      if (uops <= c.uop_depth()) {
        for (const UopKernel& kern : distinct) cb.prefetch(kern);
      }
    }
    // One free SRAM half per virtual thread: compute -> load and store -> compute credits.
    for (int v = 0; v < vt; ++v) cb.dep_push(Module::kCompute, Module::kLoad);
    for (int v = 0; v < vt; ++v) cb.dep_push(Module::kStore, Module::kCompute);
    size_t si = 0;
    for (uint64_t c0 = g0; c0 < g1; c0 += uint64_t(vt)) {
      const uint64_t c1 = std::min(g1, c0 + uint64_t(vt));
      for (; si < steps.size() && steps[si].item < c1; ++si) {
        const Step& st = steps[si];
        const Tile t = tile_of(st.item);
        const uint32_t ki = st.ki, k0 = ki * tk, k = std::min(tk, b.k - k0);
        const size_t h = st.half;
        const uint32_t inp_base = uint32_t(h * cap.inp), wgt_base = uint32_t(h * cap.wgt);
        // Load: wait for the half to be free, fill it, hand it to compute.
        cb.dep_pop(Module::kCompute, Module::kLoad);
        const Key xk{t.m0, ki}, wk{t.n0, ki};
        if (inp_at[h] != xk) {
          load_rows(MemId::kInp, inp_base, inp, uint64_t(t.m0) * b.k + k0, k, t.m, b.k);
          inp_at[h] = xk;
        }
        if (wgt_at[h] != wk) {
          load_rows(MemId::kWgt, wgt_base, wgt, uint64_t(t.n0) * b.k + k0, k, t.n, b.k);
          wgt_at[h] = wk;
        }
        cb.dep_push(Module::kLoad, Module::kCompute);
        // Compute: zero the accumulators once the store of their last tile is done. The reset
        // GEMM still reads an input and a weight (its OUT write is the truncated old sum), so it
        // points at this step's half and runs after the load token too: no unordered access.
        const auto [reset, gemm] = kernels_of(st);
        if (ki == 0) cb.dep_pop(Module::kStore, Module::kCompute);
        cb.dep_pop(Module::kLoad, Module::kCompute);
        if (ki == 0) cb.gemm(reset, true);
        cb.gemm(gemm);
        cb.dep_push(Module::kCompute, Module::kLoad);
        if (ki + 1 == nk) cb.dep_push(Module::kCompute, Module::kStore);
        ++step;
      }
      for (uint64_t i = c0; i < c1; ++i) {
        const Tile t = tile_of(i);
        const uint32_t acc_base = uint32_t((i - c0) * cap.acc);
        cb.dep_pop(Module::kCompute, Module::kStore);
        if (t.n == b.n && uint64_t(t.m) * t.n <= kMaxXSize) {
          cb.store_2d(acc_base, out, uint64_t(t.m0) * b.n + t.n0, t.m * t.n, 1, t.m * t.n);
        } else {
          cb.store_2d(acc_base, out, uint64_t(t.m0) * b.n + t.n0, t.n, t.m, b.n);
        }
        cb.dep_push(Module::kStore, Module::kCompute);
      }
    }
    for (int v = 0; v < vt; ++v) cb.dep_pop(Module::kCompute, Module::kLoad);
    for (int v = 0; v < vt; ++v) cb.dep_pop(Module::kStore, Module::kCompute);
  }
}

GemmRun run_tiled_gemm(Device& device, std::span<const int32_t> a, std::span<const int32_t> b,
                       GemmShape shape, const GemmRunOptions& options) {
  const hw::HwConfig& c = device.config();
  check_shape(shape);
  GemmRun run;
  run.tiling = options.tiling ? *options.tiling
                              : choose_gemm_tiling(c, shape, options.virtual_threads);
  check_gemm_tiling(c, shape, run.tiling);
  const GemmBlocks blk = gemm_blocks(c, shape.m, shape.k, shape.n);
  DramBuffer inp = device.alloc_elems(MemId::kInp, uint64_t(blk.m) * blk.k);
  DramBuffer wgt = device.alloc_elems(MemId::kWgt, uint64_t(blk.n) * blk.k);
  DramBuffer out = device.alloc_elems(MemId::kOut, uint64_t(blk.m) * blk.n);
  if (!options.timing_only || !a.empty() || !b.empty()) {
    inp.copy_in(pack_input_matrix(c, a, shape.m, shape.k));
    wgt.copy_in(pack_weight_matrix(c, b, shape.k, shape.n));
  }
  const UopCacheStats before = device.uop_cache().stats();
  {
    CommandBuilderOptions cbo;
    cbo.max_insns = options.max_insns;
    cbo.run_options.timing_only = options.timing_only;
  cbo.run_options.reference_memory = options.reference_memory;
    cbo.run_options.check_hazards = options.check_hazards;
    CommandBuilder cb(device, cbo);
    emit_tiled_gemm(cb, inp, wgt, out, shape, run.tiling);
    cb.synchronize();
    run.report = cb.total_report();
    run.insns = cb.insns_run();
    run.runs = cb.runs();
  }
  const UopCacheStats& after = device.uop_cache().stats();
  run.uop_stats.hits = after.hits - before.hits;
  run.uop_stats.misses = after.misses - before.misses;
  run.uop_stats.evictions = after.evictions - before.evictions;
  run.uop_stats.uops_loaded = after.uops_loaded - before.uops_loaded;
  run.uop_stats.kernels = after.kernels - before.kernels;
  run.uop_stats.splits = after.splits - before.splits;
  if (!options.timing_only) run.c = unpack_output_matrix(c, out.read_all(), shape.m, shape.n);
  return run;
}

std::vector<int32_t> reference_gemm(const hw::HwConfig& c, std::span<const int32_t> a,
                                    std::span<const int32_t> b, GemmShape s) {
  check_shape(s);
  if (a.size() != size_t(s.m) * s.k || b.size() != size_t(s.k) * s.n) {
    throw Error(fmt::format("reference_gemm: operands of {} and {} values for a {}x{}x{} GEMM",
                            a.size(), b.size(), s.m, s.k, s.n));
  }
  // Output bits are never wider than the accumulator, so the low OUT bits of the wrapped sum
  // are the low bits of the exact sum: 32-bit wrapping arithmetic is enough (OUT <= 16 bits).
  std::vector<int32_t> bt(size_t(s.k) * s.n);
  for (uint32_t k = 0; k < s.k; ++k) {
    for (uint32_t n = 0; n < s.n; ++n) bt[size_t(n) * s.k + k] = b[size_t(k) * s.n + n];
  }
  std::vector<int32_t> out(size_t(s.m) * s.n);
  const int w = c.out_width();
  for (uint32_t m = 0; m < s.m; ++m) {
    const int32_t* ar = a.data() + size_t(m) * s.k;
    for (uint32_t n = 0; n < s.n; ++n) {
      const int32_t* br = bt.data() + size_t(n) * s.k;
      uint32_t acc = 0;
      for (uint32_t k = 0; k < s.k; ++k) acc += uint32_t(ar[k]) * uint32_t(br[k]);
      out[size_t(m) * s.n + n] = int32_t(sign_extend(acc, std::min(w, 32)));
    }
  }
  return out;
}

std::string GemmMismatch::message() const {
  return fmt::format("C[{}][{}] = {}, expected {}", row, col, got, expected);
}

std::optional<GemmMismatch> first_mismatch(std::span<const int32_t> expected,
                                           std::span<const int32_t> got, GemmShape s) {
  const size_t n = size_t(s.m) * s.n;
  if (expected.size() != n || got.size() != n) {
    throw Error(fmt::format("first_mismatch: {} and {} values for a {}x{} result", expected.size(),
                            got.size(), s.m, s.n));
  }
  for (size_t i = 0; i < n; ++i) {
    if (expected[i] != got[i]) {
      return GemmMismatch{uint32_t(i / s.n), uint32_t(i % s.n), expected[i], got[i]};
    }
  }
  return std::nullopt;
}

std::vector<int32_t> random_operand(int width, size_t count, std::mt19937_64& rng) {
  const int32_t lo = -(int32_t(1) << (width - 1));
  const int32_t hi = (int32_t(1) << (width - 1)) - 1;
  std::uniform_int_distribution<int32_t> dist(lo, hi);
  std::vector<int32_t> v(count);
  for (int32_t& x : v) x = dist(rng);
  return v;
}

}  // namespace tauvta::runtime
