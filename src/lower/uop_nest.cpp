#include "lower/uop_nest.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/isa_fields.h"

namespace tauvta::lower {

namespace {

// The loop counts of a GEMM or ALU instruction (iter_out, iter_in).
constexpr uint32_t kMaxIter =
    std::min(hw::field_max(hw::Field::kIterOut), hw::field_max(hw::Field::kIterIn));

struct FieldLimits {
  uint64_t dst, src, wgt;  // exclusive upper bounds of loop factors
};

FieldLimits limits_of(const hw::HwConfig& c, runtime::UopKind kind) {
  const uint64_t a = uint64_t(1) << c.log_acc_depth();
  const uint64_t i = uint64_t(1) << c.log_inp_depth();
  const uint64_t w = uint64_t(1) << c.log_wgt_depth();
  if (kind == runtime::UopKind::kAlu) return {a, a, 1};
  return {a, i, w};
}

bool loopable(const NestDim& d, const FieldLimits& f) {
  return d.extent <= kMaxIter && d.dst < f.dst && d.src < f.src && d.wgt < f.wgt;
}

// Micro-ops that must separate a write of an accumulator from a later read of it: VTA's HLS
// design pipelines GEMM and ALU with the accumulator's dependence checks off (`DEPENDENCE
// inter false` in vta.cc), so a micro-op reads an accumulator before a write issued fewer than
// its pipeline's depth earlier has landed; the software must keep such pairs apart (VTA's
// hardware guide, "HLS DEPENDENCE"). The generated RTL waits instead, but only as long as needed.
// The window covers the write tap and the read stage of either: pipeline depth + 2 cycles.
uint64_t hazard_gap(const hw::HwConfig& c, runtime::UopKind kind) {
  const hw::TimingParams& t = c.timing;
  if (kind == runtime::UopKind::kGemm) return uint64_t(t.gemm_pipeline_depth) * uint64_t(t.gemm_ii) + 2;
  const uint64_t ii = uint64_t(std::max(1, t.alu_ii));
  return (uint64_t(t.alu_pipeline_depth) + 2 + ii - 1) / ii;
}

// Whether running the nest with loops `a` (outer) and `b` (inner; -1: none) around the other
// dimensions (enumerated in order, the last fastest) reads an accumulator (the destination, and
// for the ALU also the source) fewer than `gap` micro-ops after it was written. The stream is a
// lexicographic walk of an affine map, so what a window of `gap` micro-ops sees depends only on
// the highest level whose index changes inside it and on the position below that level: windows
// at the start and around the first change of each level cover them all.
bool hazard_free(std::span<const NestDim> dims, int a, int b, uint64_t gap, bool alu) {
  if (gap <= 1) return true;
  std::vector<const NestDim*> order;  // outermost first
  for (int k : {a, b}) {
    if (k >= 0) order.push_back(&dims[size_t(k)]);
  }
  for (int k = 0; k < int(dims.size()); ++k) {
    if (k != a && k != b) order.push_back(&dims[size_t(k)]);
  }
  const uint64_t points = nest_points(dims);
  // The accumulators micro-op `p` writes and reads.
  auto at = [&](uint64_t p, uint64_t& dst, uint64_t& src) {
    dst = src = 0;
    for (size_t r = order.size(); r-- > 0;) {
      const uint64_t i = p % order[r]->extent;
      p /= order[r]->extent;
      dst += i * order[r]->dst;
      src += i * order[r]->src;
    }
  };
  auto window_ok = [&](uint64_t from, uint64_t to) {
    for (uint64_t q = from; q < to && q < points; ++q) {
      uint64_t dq, sq;
      at(q, dq, sq);
      for (uint64_t p = q > from + gap - 1 ? q - gap + 1 : from; p < q; ++p) {
        uint64_t dp, sp;
        at(p, dp, sp);
        if (dp == dq || (alu && dp == sq)) return false;
      }
    }
    return true;
  };
  if (!window_ok(0, 2 * gap)) return false;
  uint64_t inner = 1;  // micro-ops per step of level r
  for (size_t r = order.size(); r-- > 0;) {
    if (inner >= points) break;
    if (!window_ok(inner > gap ? inner - gap : 0, inner + gap)) return false;
    inner *= order[r]->extent;
  }
  return true;
}

}  // namespace

uint64_t nest_points(std::span<const NestDim> dims) {
  uint64_t n = 1;
  for (const NestDim& d : dims) n *= d.extent;
  return n;
}

runtime::UopKernel make_nest_kernel(const hw::HwConfig& c, runtime::UopKind kind, uint32_t dst0,
                                    uint32_t src0, uint32_t wgt0,
                                    std::span<const NestDim> all_dims) {
  std::vector<NestDim> dims;
  for (const NestDim& d : all_dims) {
    if (d.extent == 0) throw InternalError("a micro-op nest has an empty dimension");
    if (d.extent > 1) dims.push_back(d);
  }
  const FieldLimits lim = limits_of(c, kind);
  const uint64_t gap = hazard_gap(c, kind);
  const bool alu = kind == runtime::UopKind::kAlu;
  // Best loop pair (outer a, inner b; -1 = no loop): first one whose micro-op stream never reads
  // an accumulator within the pipeline's hazard window of its write (a nest with fewer distinct
  // accumulators than the window has none: then the fewest micro-ops), then by micro-op count,
  // then by keeping a destination-varying dimension last in the micro-op list.
  int best_a = -1, best_b = -1;
  uint64_t best_uops = nest_points(dims);
  bool best_tail = true;
  bool best_safe = hazard_free(dims, -1, -1, gap, alu);
  auto tail_ok = [&](int a, int b) {
    for (int k = int(dims.size()) - 1; k >= 0; --k) {
      if (k == a || k == b) continue;
      return dims[size_t(k)].dst != 0;
    }
    return true;
  };
  const int n = int(dims.size());
  for (int a = -1; a < n; ++a) {
    if (a >= 0 && !loopable(dims[size_t(a)], lim)) continue;
    for (int b = a + 1; b < n; ++b) {
      if (!loopable(dims[size_t(b)], lim)) continue;
      const uint64_t ea = a >= 0 ? dims[size_t(a)].extent : 1;
      const uint64_t uops = nest_points(dims) / (ea * dims[size_t(b)].extent);
      const bool tail = tail_ok(a, b);
      // Only a pair that could win is checked for hazards (the walk costs more than the rest).
      const bool better_shape = uops < best_uops || (uops == best_uops && tail && !best_tail);
      // A hazard-free shape may take more micro-ops, within a quarter of the micro-op buffer.
      if (!better_shape && (best_safe || uops > uint64_t(c.uop_depth()) / 4)) continue;
      const bool safe = hazard_free(dims, a, b, gap, alu);
      if ((safe && !best_safe) || (safe == best_safe && better_shape)) {
        best_a = a;
        best_b = b;
        best_uops = uops;
        best_tail = tail;
        best_safe = safe;
      }
    }
  }
  runtime::UopKernel k;
  k.kind = kind;
  for (int idx : {best_a, best_b}) {
    if (idx < 0) continue;
    const NestDim& d = dims[size_t(idx)];
    k.loops.push_back(runtime::UopLoop{d.extent, d.dst, d.src, kind == runtime::UopKind::kGemm ? d.wgt : 0});
  }
  std::vector<NestDim> rest;
  for (int i = 0; i < n; ++i) {
    if (i != best_a && i != best_b) rest.push_back(dims[size_t(i)]);
  }
  k.uops.reserve(best_uops);
  std::vector<uint32_t> idx(rest.size(), 0);
  for (uint64_t p = 0; p < best_uops; ++p) {
    uint64_t dst = dst0, src = src0, wgt = wgt0;
    for (size_t r = 0; r < rest.size(); ++r) {
      dst += uint64_t(idx[r]) * rest[r].dst;
      src += uint64_t(idx[r]) * rest[r].src;
      wgt += uint64_t(idx[r]) * rest[r].wgt;
    }
    k.uops.push_back(hw::Uop{uint32_t(dst), uint32_t(src), kind == runtime::UopKind::kGemm ? uint32_t(wgt) : 0});
    for (size_t r = rest.size(); r-- > 0;) {
      if (++idx[r] < rest[r].extent) break;
      idx[r] = 0;
    }
  }
  return k;
}

const runtime::EncodedKernel& NestKernelMemo::get(runtime::UopKind kind, uint32_t dst0, uint32_t src0, uint32_t wgt0,
                                                  std::span<const NestDim> dims) {
  uint64_t h = (uint64_t(kind) << 32 | dst0) * 0x9e3779b97f4a7c15ull;
  h = (h ^ (uint64_t(src0) << 32 | wgt0)) * 0x9e3779b97f4a7c15ull;
  for (const NestDim& d : dims) {
    h = (h ^ (uint64_t(d.extent) << 32 | d.dst)) * 0x9e3779b97f4a7c15ull;
    h = (h ^ (uint64_t(d.src) << 32 | d.wgt)) * 0x9e3779b97f4a7c15ull;
  }
  const size_t found = index_.find(h, [&](size_t at) {
    const std::vector<uint32_t>& k = entries_[at].key;
    if (k.size() != 4 + 4 * dims.size() || k[0] != uint32_t(kind) || k[1] != dst0 || k[2] != src0 || k[3] != wgt0) {
      return false;
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      const uint32_t* f = &k[4 + 4 * i];
      if (f[0] != dims[i].extent || f[1] != dims[i].dst || f[2] != dims[i].src || f[3] != dims[i].wgt) return false;
    }
    return true;
  });
  if (found != FlatHashIndex::npos) return entries_[found].kernel;
  Entry e;
  e.key = {uint32_t(kind), dst0, src0, wgt0};
  for (const NestDim& d : dims) e.key.insert(e.key.end(), {d.extent, d.dst, d.src, d.wgt});
  e.kernel = runtime::encode_kernel(make_nest_kernel(config_, kind, dst0, src0, wgt0, dims), layout_);
  index_.insert(h, entries_.size());
  entries_.push_back(std::move(e));
  return entries_.back().kernel;
}

}  // namespace tauvta::lower
