#include "lower/alu_lowering.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/isa_fields.h"
#include "hw/lanes.h"
#include "lower/requant_alu.h"
#include "lower/uop_nest.h"

namespace tauvta::lower {

using hw::MemId;
using hw::Module;
using runtime::UopKind;

int64_t weight_max(const hw::HwConfig& c) { return (int64_t(1) << (c.wgt_width() - 1)) - 1; }

std::vector<uint8_t> diagonal_tile(const hw::HwConfig& c, int64_t scale) {
  std::vector<uint8_t> t(size_t(c.wgt_elem_bytes()), 0);
  for (int64_t i = 0; i < c.block_in(); ++i) {
    hw::pack_lane(t, c.wgt_width(), size_t(i * c.block_in() + i), scale);
  }
  return t;
}

std::string identity_problem(const hw::HwConfig& c) {
  if (c.block_in() != c.block_out()) {
    return fmt::format("BLOCK_IN {} != BLOCK_OUT {}: no identity weight tile moves inputs into the "
                       "accumulators",
                       c.block_in(), c.block_out());
  }
  if (weight_max(c) < 1) return "1-bit weights cannot hold the identity (+1)";
  return "";
}

namespace {

// ALU sources are accumulator indices decoded with the input-index width.
int64_t alu_acc_limit(const hw::HwConfig& c) {
  return std::min<int64_t>(c.acc_depth(), int64_t(1) << c.log_inp_depth());
}


}  // namespace

std::string max_pool_problem(const hw::HwConfig& c, const MaxPoolSpec& p) {
  if (std::string why = identity_problem(c); !why.empty()) return why;
  const int64_t rows = (p.kh - 1) * p.dh + 1, cols = (p.ow - 1) * p.sw + (p.kw - 1) * p.dw + 1;
  if (rows * cols + p.ow > alu_acc_limit(c) / 2 || rows * cols > int64_t(c.inp_depth()) / 2) {
    return fmt::format("a single output row's window ({} x {} elements) does not fit half the "
                       "accumulator or input buffer",
                       rows, cols);
  }
  return "";
}

std::string add_problem(const hw::HwConfig& c, const AddSpec& a) {
  if (std::string why = identity_problem(c); !why.empty()) return why;
  if (a.lhs_shift > 0 || a.rhs_shift > 0) return "operand shifts must be left shifts (<= 0)";
  return "";
}

void lower_max_pool(ProgramBuilder& pb, const MaxPoolSpec& p, const runtime::DramBuffer& in,
                    const runtime::DramBuffer& out) {
  const hw::HwConfig& c = pb.config();
  if (std::string why = max_pool_problem(c, p); !why.empty()) throw Error("max pool: " + why);
  runtime::CommandBuilder& cb = pb.cb();
  const runtime::DramBuffer ident = pb.alloc_constant(diagonal_tile(c, 1));
  const int64_t nb = ceil_div(p.in.n, c.batch()), cb_n = ceil_div(p.in.c, c.block_in());
  const int64_t H = p.in.h, W = p.in.w;
  const int64_t half_acc = alu_acc_limit(c) / 2, half_inp = int64_t(c.inp_depth()) / 2;
  const int64_t cols = (p.ow - 1) * p.sw + (p.kw - 1) * p.dw + 1;
  auto rows_of = [&](int64_t th) { return (th - 1) * p.sh + (p.kh - 1) * p.dh + 1; };
  int64_t th = p.oh;
  while (th > 1 && (rows_of(th) * cols + th * p.ow > half_acc || rows_of(th) * cols > half_inp)) --th;
  const int64_t nht = ceil_div(p.oh, th);
  const int64_t qmin = -(int64_t(1) << (c.inp_width() - 1));

  for (int v = 0; v < 2; ++v) cb.dep_push(Module::kCompute, Module::kLoad);
  for (int v = 0; v < 2; ++v) cb.dep_push(Module::kStore, Module::kCompute);
  uint64_t step = 0;
  bool ident_loaded = false;
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t ch = 0; ch < cb_n; ++ch) {
      for (int64_t ht = 0; ht < nht; ++ht, ++step) {
        const int64_t part = int64_t(step % 2);
        const int64_t th_i = std::min(th, p.oh - ht * th), rows = rows_of(th_i);
        const uint32_t inp_base = uint32_t(part * half_inp);
        const uint32_t x_base = uint32_t(part * half_acc), y_base = x_base + uint32_t(rows * cols);
        const int64_t ih0 = ht * th * p.sh - p.pad_top, iw0 = -p.pad_left;
        cb.dep_pop(Module::kCompute, Module::kLoad);
        if (!ident_loaded) {
          cb.load_2d(MemId::kWgt, 0, ident, 0, 1, 1, 1);
          ident_loaded = true;
        }
        const int64_t yp0 = std::min(rows, std::max<int64_t>(0, -ih0));
        const int64_t yp1 = std::min(rows - yp0, std::max<int64_t>(0, ih0 + rows - H));
        const int64_t xp0 = std::min(cols, std::max<int64_t>(0, -iw0));
        const int64_t xp1 = std::min(cols - xp0, std::max<int64_t>(0, iw0 + cols - W));
        const int64_t ys = rows - yp0 - yp1, xs = cols - xp0 - xp1;
        if (yp0 > 15 || yp1 > 15 || xp0 > 15 || xp1 > 15) throw Error("max pool: padding beyond 15");
        const int64_t plane = b * cb_n + ch;
        const uint64_t off = ys > 0 && xs > 0 ? uint64_t((plane * H + std::max<int64_t>(ih0, 0)) * W + std::max<int64_t>(iw0, 0)) : 0;
        cb.load_2d(MemId::kInp, inp_base, in, off, uint32_t(xs), uint32_t(ys), uint32_t(W),
                   runtime::Pad2D{uint8_t(yp0), uint8_t(yp1), uint8_t(xp0), uint8_t(xp1)});
        cb.dep_push(Module::kLoad, Module::kCompute);

        cb.dep_pop(Module::kStore, Module::kCompute);
        cb.dep_pop(Module::kLoad, Module::kCompute);
        const std::vector<NestDim> xdims = {{uint32_t(rows), uint32_t(cols), uint32_t(cols), 0},
                                            {uint32_t(cols), 1, 1, 0}};
        cb.gemm(make_nest_kernel(c, UopKind::kGemm, x_base, inp_base, 0, xdims), true);
        cb.gemm(make_nest_kernel(c, UopKind::kGemm, x_base, inp_base, 0, xdims));
        const std::vector<NestDim> ydims = {{uint32_t(th_i), uint32_t(p.ow), 0, 0},
                                            {uint32_t(p.ow), 1, 0, 0}};
        cb.gemm(make_nest_kernel(c, UopKind::kGemm, y_base, inp_base, 0, ydims), true);
        cb.alu(make_nest_kernel(c, UopKind::kAlu, y_base, 0, 0, ydims), hw::AluOp::kMin, true, int32_t(qmin));
        for (int64_t dy = 0; dy < p.kh; ++dy) {
          // Output rows of this tile whose tap row lies in the image.
          int64_t oy_lo = th_i, oy_hi = -1;
          for (int64_t oy = 0; oy < th_i; ++oy) {
            const int64_t iy = ih0 + oy * p.sh + dy * p.dh;
            if (iy >= 0 && iy < H) {
              oy_lo = std::min(oy_lo, oy);
              oy_hi = oy;
            }
          }
          if (oy_hi < oy_lo) continue;
          for (int64_t dx = 0; dx < p.kw; ++dx) {
            int64_t ox_lo = p.ow, ox_hi = -1;
            for (int64_t ox = 0; ox < p.ow; ++ox) {
              const int64_t ix = iw0 + ox * p.sw + dx * p.dw;
              if (ix >= 0 && ix < W) {
                ox_lo = std::min(ox_lo, ox);
                ox_hi = ox;
              }
            }
            if (ox_hi < ox_lo) continue;
            const std::vector<NestDim> tap = {
                {uint32_t(oy_hi - oy_lo + 1), uint32_t(p.ow), uint32_t(p.sh * cols), 0},
                {uint32_t(ox_hi - ox_lo + 1), 1, uint32_t(p.sw), 0}};
            const uint32_t dst = y_base + uint32_t(oy_lo * p.ow + ox_lo);
            const uint32_t src = x_base + uint32_t((oy_lo * p.sh + dy * p.dh) * cols + ox_lo * p.sw + dx * p.dw);
            cb.alu(make_nest_kernel(c, UopKind::kAlu, dst, src, 0, tap), hw::AluOp::kMax);
          }
        }
        cb.dep_push(Module::kCompute, Module::kLoad);
        cb.dep_push(Module::kCompute, Module::kStore);

        cb.dep_pop(Module::kCompute, Module::kStore);
        const uint64_t ooff = uint64_t((plane * p.oh + ht * th) * p.ow);
        if (th_i * p.ow <= hw::field_max(hw::Field::kXSize)) {
          cb.store_2d(y_base, out, ooff, uint32_t(th_i * p.ow), 1, uint32_t(th_i * p.ow));
        } else {
          cb.store_2d(y_base, out, ooff, uint32_t(p.ow), uint32_t(th_i), uint32_t(p.ow));
        }
        cb.dep_push(Module::kStore, Module::kCompute);
      }
    }
  }
  for (int v = 0; v < 2; ++v) cb.dep_pop(Module::kCompute, Module::kLoad);
  for (int v = 0; v < 2; ++v) cb.dep_pop(Module::kStore, Module::kCompute);
}

void lower_add(ProgramBuilder& pb, const AddSpec& a, const runtime::DramBuffer& lhs,
               const runtime::DramBuffer& rhs, const runtime::DramBuffer& out) {
  const hw::HwConfig& c = pb.config();
  if (std::string why = add_problem(c, a); !why.empty()) throw Error("add: " + why);
  runtime::CommandBuilder& cb = pb.cb();
  const int64_t la = -a.lhs_shift, lb = -a.rhs_shift, wmax = weight_max(c);
  // A left shift that fits the weights rides on the identity tile's diagonal; otherwise the
  // operand is copied with scale 1 and shifted on the ALU.
  const bool scale_a = la < 62 && (int64_t(1) << la) <= wmax, scale_b = lb < 62 && (int64_t(1) << lb) <= wmax;
  std::vector<uint8_t> tiles = diagonal_tile(c, scale_a ? int64_t(1) << la : 1);
  const std::vector<uint8_t> tb = diagonal_tile(c, scale_b ? int64_t(1) << lb : 1);
  tiles.insert(tiles.end(), tb.begin(), tb.end());
  const runtime::DramBuffer wts = pb.alloc_constant(tiles);
  const RequantVectors rv = requant_vectors(c, {}, std::vector<int64_t>(size_t(c.block_out()), a.shift),
                                            a.acc_bits, c.block_out());
  const runtime::DramBuffer vec = rv.packed.empty() ? runtime::DramBuffer{} : pb.alloc_constant(rv.packed);
  const bool separate_b = !scale_b || !scale_a;

  const int64_t elems = act_blocks(c, a.shape);
  const int64_t acc_free = alu_acc_limit(c) - 1;  // element 0: the rounding constant
  const int64_t per_part_acc = acc_free / 2 / (separate_b ? 2 : 1);
  const int64_t T = std::min<int64_t>({elems, per_part_acc, int64_t(c.inp_depth()) / 4,
                                     int64_t(hw::field_max(hw::Field::kXSize))});
  const int64_t steps = ceil_div(elems, T);

  if (!rv.imm_only) cb.load_2d(MemId::kAcc, 0, vec, 0, 1, 1, 1);
  for (int v = 0; v < 2; ++v) cb.dep_push(Module::kCompute, Module::kLoad);
  for (int v = 0; v < 2; ++v) cb.dep_push(Module::kStore, Module::kCompute);
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t part = s % 2, e0 = s * T, n = std::min(T, elems - e0);
    const uint32_t ia = uint32_t(part * 2 * T), ib = ia + uint32_t(T);
    const uint32_t A = uint32_t(1 + part * (acc_free / 2)), B = A + uint32_t(per_part_acc);
    cb.dep_pop(Module::kCompute, Module::kLoad);
    if (s == 0) cb.load_2d(MemId::kWgt, 0, wts, 0, 2, 1, 2);
    cb.load_2d(MemId::kInp, ia, lhs, uint64_t(e0), uint32_t(n), 1, uint32_t(n));
    cb.load_2d(MemId::kInp, ib, rhs, uint64_t(e0), uint32_t(n), 1, uint32_t(n));
    cb.dep_push(Module::kLoad, Module::kCompute);

    cb.dep_pop(Module::kStore, Module::kCompute);
    cb.dep_pop(Module::kLoad, Module::kCompute);
    const std::vector<NestDim> d = {{uint32_t(n), 1, 1, 0}};
    cb.gemm(make_nest_kernel(c, UopKind::kGemm, A, ia, 0, d), true);
    cb.gemm(make_nest_kernel(c, UopKind::kGemm, A, ia, 0, d));
    const std::vector<NestDim> ad = {{uint32_t(n), 1, 0, 0}};
    if (!scale_a) {
      const runtime::UopKernel k = make_nest_kernel(c, UopKind::kAlu, A, 0, 0, ad);
      for (int64_t piece : shift_pieces(c, -la)) cb.alu(k, hw::AluOp::kShr, true, int32_t(piece));
    }
    if (!separate_b) {
      cb.gemm(make_nest_kernel(c, UopKind::kGemm, A, ib, 1, d));
    } else {
      cb.gemm(make_nest_kernel(c, UopKind::kGemm, B, ib, 1, d), true);
      cb.gemm(make_nest_kernel(c, UopKind::kGemm, B, ib, 1, d));
      if (!scale_b) {
        const runtime::UopKernel k = make_nest_kernel(c, UopKind::kAlu, B, 0, 0, ad);
        for (int64_t piece : shift_pieces(c, -lb)) cb.alu(k, hw::AluOp::kShr, true, int32_t(piece));
      }
      const std::vector<NestDim> add = {{uint32_t(n), 1, 1, 0}};
      cb.alu(make_nest_kernel(c, UopKind::kAlu, A, B, 0, add), hw::AluOp::kAdd);
    }
    emit_requant(cb, c, rv, A, ad, 0, 0, -1, rv.any_bias, a.clip_min, a.clip_max);
    cb.dep_push(Module::kCompute, Module::kLoad);
    cb.dep_push(Module::kCompute, Module::kStore);

    cb.dep_pop(Module::kCompute, Module::kStore);
    cb.store_2d(A, out, uint64_t(e0), uint32_t(n), 1, uint32_t(n));
    cb.dep_push(Module::kStore, Module::kCompute);
  }
  for (int v = 0; v < 2; ++v) cb.dep_pop(Module::kCompute, Module::kLoad);
  for (int v = 0; v < 2; ++v) cb.dep_pop(Module::kStore, Module::kCompute);
}

}  // namespace tauvta::lower
