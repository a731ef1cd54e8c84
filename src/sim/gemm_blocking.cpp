#include "sim/gemm_blocking.h"

#include <algorithm>
#include <cstring>

#include "sim/compute_kernels.h"

namespace tauvta::sim {
namespace {

// Rows plus steps a plan may hold (8 bytes each): bigger instructions (loop extents in the
// thousands on both loops) run on the per-micro-op kernels rather than allocate.
constexpr uint64_t kMaxPlanEntries = uint64_t(1) << 18;

// Sorts the micro-op indices into groups of equal `key` (stable: each group keeps the stream's
// order) in plan.order; returns the number of groups.
template <class Key>
uint32_t sort_groups(const LoopNest& l, GemmBlocking& p, Key key) {
  p.order.resize(l.n_uops);
  for (uint32_t u = 0; u < l.n_uops; ++u) p.order[u] = u;
  std::stable_sort(p.order.begin(), p.order.end(),
                   [&](uint32_t a, uint32_t b) { return key(l.uops[a]) < key(l.uops[b]); });
  uint32_t n = 1;
  for (uint32_t k = 1; k < l.n_uops; ++k) n += key(l.uops[p.order[k]]) != key(l.uops[p.order[k - 1]]);
  return n;
}

// Calls visit(first, last) for each group's index range in plan.order (after sort_groups).
template <class Key, class Visit>
void for_each_group(const LoopNest& l, const GemmBlocking& p, Key key, Visit visit) {
  for (uint32_t g = 0; g < l.n_uops;) {
    uint32_t e = g + 1;
    while (e < l.n_uops && key(l.uops[p.order[e]]) == key(l.uops[p.order[g]])) ++e;
    visit(g, e);
    g = e;
  }
}

const auto kPlanByDst = [](const hw::Uop& u) { return u.dst; };
const auto kPlanByWgt = [](const hw::Uop& u) { return u.wgt; };

// The loop that carries rows, seen through its extent and factors, and the other loop.
struct PlanAxis {
  uint32_t iter, dst, src, wgt;
};

// Rows along `row` (weight factor 0), micro-ops grouped by accumulator row; steps over `other`
// and the group, or one tile per iteration of `other` when it moves the accumulator.
bool plan_rows(const LoopNest& l, GemmBlocking& p, PlanAxis row, PlanAxis other) {
  const uint32_t groups = sort_groups(l, p, kPlanByDst);
  const bool other_reduces = other.dst == 0 || other.iter == 1;
  const uint64_t tiles = uint64_t(groups) * (other_reduces ? 1 : other.iter);
  if (tiles * row.iter + uint64_t(other.iter) * l.n_uops > kMaxPlanEntries) return false;
  auto add_tile = [&](uint32_t dst0, uint32_t o_begin, uint32_t o_end, uint32_t g, uint32_t e) {
    GemmBlocking::Tile t{uint32_t(p.rows.size()), 0, uint32_t(p.steps.size()), 0};
    for (uint32_t r = 0; r < row.iter; ++r) p.rows.push_back({dst0 + r * row.dst, r * row.src});
    for (uint32_t o = o_begin; o < o_end; ++o) {
      for (uint32_t k = g; k < e; ++k) {
        const hw::Uop& u = l.uops[p.order[k]];
        p.steps.push_back({u.src + o * other.src, u.wgt + o * other.wgt});
      }
    }
    t.row_end = uint32_t(p.rows.size());
    t.step_end = uint32_t(p.steps.size());
    p.tiles.push_back(t);
  };
  for_each_group(l, p, kPlanByDst, [&](uint32_t g, uint32_t e) {
    const uint32_t dst = l.uops[p.order[g]].dst;
    if (other_reduces) {
      add_tile(dst, 0, other.iter, g, e);
    } else {
      for (uint32_t o = 0; o < other.iter; ++o) add_tile(dst + o * other.dst, o, o + 1, g, e);
    }
  });
  return true;
}

// Both dst factors 0: micro-ops grouped by weight element are the rows, both loops the steps.
bool plan_reduction(const LoopNest& l, GemmBlocking& p) {
  const uint64_t groups = sort_groups(l, p, kPlanByWgt);
  if (l.n_uops + groups * l.iter_out * l.iter_in > kMaxPlanEntries) return false;
  for_each_group(l, p, kPlanByWgt, [&](uint32_t g, uint32_t e) {
    GemmBlocking::Tile t{uint32_t(p.rows.size()), 0, uint32_t(p.steps.size()), 0};
    for (uint32_t k = g; k < e; ++k) p.rows.push_back({l.uops[p.order[k]].dst, l.uops[p.order[k]].src});
    const uint32_t w = l.uops[p.order[g]].wgt;
    for (uint32_t o = 0; o < l.iter_out; ++o) {
      for (uint32_t i = 0; i < l.iter_in; ++i) {
        p.steps.push_back({o * l.src_out + i * l.src_in, w + o * l.wgt_out + i * l.wgt_in});
      }
    }
    t.row_end = uint32_t(p.rows.size());
    t.step_end = uint32_t(p.steps.size());
    p.tiles.push_back(t);
  });
  return true;
}

}  // namespace

namespace {

bool plan_any(const LoopNest& l, GemmBlocking& p) {
  const PlanAxis out{l.iter_out, l.dst_out, l.src_out, l.wgt_out};
  const PlanAxis in{l.iter_in, l.dst_in, l.src_in, l.wgt_in};
  if (l.dst_out == 0 && l.dst_in == 0) return plan_reduction(l, p);
  // Rows along the longer loop whose weight factor is 0.
  const bool in_ok = l.wgt_in == 0 && l.iter_in > 1, out_ok = l.wgt_out == 0 && l.iter_out > 1;
  if (in_ok && (!out_ok || l.iter_in >= l.iter_out)) return plan_rows(l, p, in, out);
  if (out_ok) return plan_rows(l, p, out, in);
  return false;
}

// A reset instruction's plan must write every accumulator row once: one step per tile and no
// row twice.
bool writes_each_row_once(GemmBlocking& p) {
  for (const GemmBlocking::Tile& t : p.tiles) {
    if (t.step_end - t.step_begin != 1) return false;
  }
  p.order.clear();
  for (const GemmBlocking::Row& r : p.rows) p.order.push_back(r.dst);
  std::sort(p.order.begin(), p.order.end());
  return std::adjacent_find(p.order.begin(), p.order.end()) == p.order.end();
}

}  // namespace

bool plan_gemm_blocking(const LoopNest& l, bool reset, GemmBlocking& p) {
  p.rows.clear();
  p.steps.clear();
  p.tiles.clear();
  if (l.n_uops == 0 || l.iter_out == 0 || l.iter_in == 0) return false;
  return plan_any(l, p) && (!reset || writes_each_row_once(p));
}

const GemmBlocking* GemmPlanCache::plan(const LoopNest& l, bool reset) {
  const std::array<uint32_t, 10> key = {uint32_t(reset), l.iter_out, l.iter_in, l.dst_out, l.dst_in,
                                        l.src_out, l.src_in, l.wgt_out, l.wgt_in, l.n_uops};
  const size_t bytes = size_t(l.n_uops) * sizeof(hw::Uop);
  Entry* victim = &entries_[0];
  for (Entry& e : entries_) {
    if (e.valid && e.key == key && std::memcmp(e.uops.data(), l.uops, bytes) == 0) {
      e.used = ++clock_;
      return e.planned ? &e.plan : nullptr;
    }
    if (!e.valid || e.used < victim->used) victim = &e;
  }
  Entry& e = *victim;
  e.key = key;
  e.uops.assign(l.uops, l.uops + l.n_uops);
  e.planned = plan_gemm_blocking(l, reset, e.plan);
  e.valid = true;
  e.used = ++clock_;
  return e.planned ? &e.plan : nullptr;
}

}  // namespace tauvta::sim
