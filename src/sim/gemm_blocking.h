// A GEMM instruction as register-blocked tiles: the same multiply-adds regrouped so that a SIMD
// kernel keeps a weight tile in registers across many accumulator rows and keeps those rows'
// sums in registers across many weight tiles, instead of one micro-op at a time.
//
// Why the regrouping is exact: without reset, a GEMM instruction only ever adds dot products
// into accumulator rows (acc' = wrap(acc + dot)), and the output buffer holds the low OUT bits
// of each row's last sum. Wrapping addition is associative and commutative, so the final
// accumulators are the initial ones plus every dot product of the loop nest in any order and any
// grouping (sums kept mod 2^32 wrap to narrower accumulators the same way), and each touched
// output row is the low bits of its final accumulator. A reset instruction (acc' = acc + dot;
// acc = 0; out = low bits of acc') is planned only when it writes every accumulator row once:
// then each row's output is its old value plus its one dot product, whatever the order.
//
// A plan is a list of tiles; every tile is a set of rows (accumulator row, input row) and a list
// of steps (input offset, weight element) such that each row gains the dot products of
// inp[row.src + step.src] with wgt[step.wgt] over the tile's steps. Every (iter_out, iter_in,
// micro-op) point of the instruction is exactly one (row, step) pair of one tile. Three shapes
// of loop nest are recognised, the ones the compiler and runtime emit:
//   - rows along the inner loop (its weight factor 0: a convolution's output pixels): micro-ops
//     grouped by accumulator row, steps over the outer loop and the group's micro-ops (kernel
//     taps, input-channel blocks); when the outer loop also moves the accumulator it makes one
//     tile per iteration instead;
//   - the same along the outer loop;
//   - reductions (both dst factors 0: a tiled GEMM's k loop): micro-ops grouped by weight
//     element, steps over both loops.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hw/insn.h"

namespace tauvta::sim {

struct LoopNest;  // compute_kernels.h (which includes the memory that keeps a plan)

struct GemmBlocking {
  struct Row {
    uint32_t dst, src;  // accumulator element; input element before the step's offset
  };
  struct Step {
    uint32_t src, wgt;  // input offset added to every row's; weight element
  };
  struct Tile {
    uint32_t row_begin, row_end, step_begin, step_end;
  };
  // A kernel's vector row k of tile t is batch row k % BATCH of the tile's row k / BATCH; its
  // accumulator and input lanes start at these batch-row indices (element * BATCH + b).
  struct VectorRow {
    size_t acc, inp;
  };
  VectorRow vector_row(const Tile& t, uint32_t k, int batch) const {
    const Row& r = rows[t.row_begin + k / uint32_t(batch)];
    const uint32_t b = k % uint32_t(batch);
    return {size_t(r.dst) * size_t(batch) + b, size_t(r.src) * size_t(batch) + b};
  }

  std::vector<Row> rows;
  std::vector<Step> steps;
  std::vector<Tile> tiles;
  std::vector<uint32_t> order;  // scratch: micro-ops sorted into groups
};

// Plans `loop` (whose indices are all in range without wrapping, as the fast kernels require)
// into `plan`, reusing its storage. Returns false for shapes it does not recognise, for a reset
// instruction that writes some row twice, and for instructions whose plan would exceed a fixed
// size (a few MiB): the per-micro-op kernels run those.
bool plan_gemm_blocking(const LoopNest& loop, bool reset, GemmBlocking& plan);

// The plans of the last few distinct instructions. A program runs the same GEMM instructions
// over and over (a layer's, once per tile and virtual thread), so each is recognised by its loop
// nest and micro-op contents and planned once.
class GemmPlanCache {
 public:
  // The plan of `loop`, or nullptr when plan_gemm_blocking gives none.
  const GemmBlocking* plan(const LoopNest& loop, bool reset);

 private:
  struct Entry {
    std::array<uint32_t, 10> key{};  // reset, loop extents and factors, micro-op count
    std::vector<hw::Uop> uops;
    GemmBlocking plan;
    bool planned = false, valid = false;
    uint64_t used = 0;
  };
  std::array<Entry, 4> entries_;
  uint64_t clock_ = 0;
};

}  // namespace tauvta::sim
