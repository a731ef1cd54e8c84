#include "lower/conv_lowering.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/isa_fields.h"
#include "lower/alu_lowering.h"
#include "lower/requant_alu.h"
#include "lower/tensor_layout.h"
#include "lower/uop_nest.h"

namespace tauvta::lower {

using hw::MemId;
using hw::Module;
using runtime::UopKind;

std::vector<int64_t> ConvLayerSpec::channel_shifts() const {
  if (shifts.size() == size_t(w.out_channels)) return shifts;
  if (shifts.size() == 1) return std::vector<int64_t>(size_t(w.out_channels), shifts[0]);
  throw InternalError(fmt::format("conv layer: {} shifts for {} channels", shifts.size(), w.out_channels));
}

namespace {

struct Item {
  int64_t bt, ht, wt, ct;  // tile indices
};

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t pos_mod(int64_t a, int64_t b) { return ((a % b) + b) % b; }

// A transposed convolution's output tile as one GEMM per stride phase (ry, rx): the outputs
// whose row is congruent to ry - pad (mod stride) take exactly the taps ky = ry + stride*m, so
// each phase is a dense nest over those taps and the inserted zeros are never multiplied. Taps
// are packed flipped, so walking them backwards advances both the input row and the weight index.
void emit_transposed_gemms(runtime::CommandBuilder& cb, NestKernelMemo& kernels, const ConvWorkload& w,
                           uint32_t acc_base, uint32_t inp_base, uint32_t wgt_base, int64_t oy0, int64_t ox0,
                           int64_t th_i, int64_t tw_i, int64_t iy_lo, int64_t ix_lo, int64_t cols, int64_t tb_i,
                           int64_t tci_i, int64_t tco_i) {
  const int64_t sh = w.stride_h, sw = w.stride_w, kh = w.kernel_h, kw = w.kernel_w, KK = kh * kw;
  const int64_t rows_total = floor_div(oy0 + th_i - 1 + w.pad_top, sh) - iy_lo + 1;
  const uint32_t rc = uint32_t(rows_total * cols);
  for (int64_t ry = 0; ry < sh; ++ry) {
    const int64_t r0 = pos_mod(ry - (oy0 + w.pad_top), sh);
    const int64_t jy = r0 < th_i ? (th_i - 1 - r0) / sh + 1 : 0;
    const int64_t my = ry < kh ? (kh - 1 - ry) / sh + 1 : 0;
    if (jy == 0 || my == 0) continue;
    const int64_t ky_max = ry + sh * (my - 1);
    const int64_t row0 = (oy0 + r0 + w.pad_top - ky_max) / sh - iy_lo;
    for (int64_t rx = 0; rx < sw; ++rx) {
      const int64_t c0 = pos_mod(rx - (ox0 + w.pad_left), sw);
      const int64_t jx = c0 < tw_i ? (tw_i - 1 - c0) / sw + 1 : 0;
      const int64_t mx = rx < kw ? (kw - 1 - rx) / sw + 1 : 0;
      if (jx == 0 || mx == 0) continue;
      const int64_t kx_max = rx + sw * (mx - 1);
      const int64_t col0 = (ox0 + c0 + w.pad_left - kx_max) / sw - ix_lo;
      const std::array<NestDim, 7> dims = {{
          {uint32_t(tci_i), 0, rc, uint32_t(KK)},
          {uint32_t(my), 0, uint32_t(cols), uint32_t(sh * kw)},
          {uint32_t(mx), 0, 1, uint32_t(sw)},
          {uint32_t(tb_i), uint32_t(tco_i * th_i * tw_i), uint32_t(tci_i) * rc, 0},
          {uint32_t(tco_i), uint32_t(th_i * tw_i), 0, uint32_t(tci_i * KK)},
          {uint32_t(jy), uint32_t(sh * tw_i), uint32_t(cols), 0},
          {uint32_t(jx), uint32_t(sw), 1, 0}}};
      const uint32_t dst = acc_base + uint32_t(r0 * tw_i + c0);
      const uint32_t src = inp_base + uint32_t(row0 * cols + col0);
      const uint32_t wgt = wgt_base + uint32_t((kh - 1 - ky_max) * kw + (kw - 1 - kx_max));
      cb.gemm(kernels.get(UopKind::kGemm, dst, src, wgt, dims));
    }
  }
}

}  // namespace

int64_t ConvLayerSpec::acc_vectors(const hw::HwConfig& c) const {
  return requant_vectors(c, alu_bias(), channel_shifts(), acc_bits, w.out_channels).acc_vectors();
}

std::vector<uint8_t> packed_conv_weights(const hw::HwConfig& c, const ConvLayerSpec& spec) {
  const ConvWorkload& w = spec.w;
  const ConvGeometry g = conv_geometry(c, w);
  WeightPacking wp;
  wp.co = w.out_channels;
  wp.ci_g = w.in_channels / w.groups;
  wp.kh = w.kernel_h;
  wp.kw = w.kernel_w;
  wp.groups = w.groups;
  wp.supergroups = g.supergroups;
  wp.cib = g.cib;
  wp.cob = g.cob;
  wp.transposed = w.kind == OpKind::kConv2dTranspose;
  return pack_conv_weights(c, wp, spec.weights);
}

uint64_t ConvLayerSpec::useful_macs() const {
  if (constant_channels <= 0 || w.in_channels <= 0) return w.macs();
  return w.macs() / uint64_t(w.in_channels) * uint64_t(w.in_channels - constant_channels);
}

std::vector<int64_t> ConvLayerSpec::alu_bias() const {
  if (!bias_in_weights) return bias;
  std::vector<int64_t> out = channel_shifts();
  for (int64_t& s : out) s = -rounding_constant(s);
  return out;
}

namespace {

RequantVectors fused_add_vectors(const hw::HwConfig& c, const FusedAdd& a, int acc_bits) {
  return requant_vectors(c, {}, std::vector<int64_t>(size_t(c.block_out()), a.shift), acc_bits, c.block_out());
}

}  // namespace

std::vector<RequantValues> conv_requant_values(const hw::HwConfig& c, const ConvLayerSpec& spec) {
  std::vector<RequantValues> out(spec.add ? 2 : 1);
  out[0].rv = requant_vectors(c, spec.alu_bias(), spec.channel_shifts(), spec.acc_bits, spec.w.out_channels);
  if (spec.bias_in_weights && !spec.weights.empty()) out[0].weights = packed_conv_weights(c, spec);
  out[0].bias_add = spec.force_bias_add || out[0].rv.any_bias;
  out[0].clip_min = spec.clip_min;
  out[0].clip_max = spec.clip_max;
  if (spec.add) {
    out[1].rv = fused_add_vectors(c, *spec.add, spec.acc_bits);
    out[1].clip_min = spec.add->clip_min;
    out[1].clip_max = spec.add->clip_max;
    if (spec.add->conv_shl > 0) out[1].shl = shift_pieces(c, -spec.add->conv_shl);
    out[1].scale_tile = diagonal_tile(c, spec.add->other_scale);
  }
  return out;
}

std::string fused_add_problem(const hw::HwConfig& c, const ConvLayerSpec& spec, const FusedAdd& a) {
  if (std::string why = identity_problem(c); !why.empty()) return why;
  if (spec.w.kind == OpKind::kConv2dTranspose) return "a transposed convolution";
  if (a.other_scale < 1 || a.other_scale > weight_max(c)) {
    return fmt::format("the other operand's scale {} does not fit a weight", a.other_scale);
  }
  if (a.conv_shl < 0 || a.conv_shl >= c.acc_width()) return fmt::format("a shift of {}", a.conv_shl);
  if (!fused_add_vectors(c, a, spec.acc_bits).imm_only) return "its rounding constant needs an accumulator vector";
  return "";
}

void lower_conv(ProgramBuilder& pb, const ConvLayerSpec& spec, const Schedule& s,
                const runtime::DramBuffer& input, const runtime::DramBuffer& output,
                const runtime::DramBuffer* residual) {
  const hw::HwConfig& c = pb.config();
  const ConvWorkload& w = spec.w;
  const ConvGeometry g = conv_geometry(c, w);
  const std::vector<int64_t> shifts = spec.channel_shifts();
  const RequantVectors rv = requant_vectors(c, spec.alu_bias(), shifts, spec.acc_bits, w.out_channels);
  const bool fused = spec.add.has_value();
  if (fused != (residual != nullptr)) throw InternalError("lower_conv: a fused add needs its residual operand");
  if (fused) {
    if (std::string why = fused_add_problem(c, spec, *spec.add); !why.empty()) {
      throw Error("fused add: " + why);
    }
  }
  const RequantVectors arv = fused ? fused_add_vectors(c, *spec.add, spec.acc_bits) : RequantVectors{};
  const ConvTiling t = resolve_schedule(c, w, s, LayerNeeds{rv.acc_vectors(), fused});
  const uint32_t ident_wgt = uint32_t(c.wgt_depth() - 1);
  runtime::CommandBuilder& cb = pb.cb();
  const bool transposed = w.kind == OpKind::kConv2dTranspose;
  const bool skip_rows = skips_input_rows(w);
  // First input row (column) and count an output tile reads. A transposed convolution's output
  // o takes input i through tap k when o = i * stride - pad + k.
  auto window = [&](int64_t o0, int64_t n, int64_t k, int64_t st, int64_t p, int64_t d) {
    if (!transposed) return std::pair<int64_t, int64_t>{o0 * st - p, (n - 1) * st + (k - 1) * d + 1};
    const int64_t lo = floor_div(o0 + p - (k - 1) + st - 1, st);
    const int64_t hi = floor_div(o0 + n - 1 + p, st);
    return std::pair<int64_t, int64_t>{lo, hi - lo + 1};
  };

  // No weights: a timing program (the heuristic's and the tuner's), whose cycles do not depend on
  // values, so the packed tensor is only sized, never built.
  const runtime::DramBuffer wbuf =
      spec.weights.empty()
          ? pb.alloc(uint64_t(g.supergroups * g.cob * g.cib * g.kh * g.kw) * uint64_t(c.wgt_elem_bytes()))
          : pb.alloc_constant(packed_conv_weights(c, spec));
  const runtime::DramBuffer vbuf = rv.packed.empty() ? runtime::DramBuffer{} : pb.alloc_constant(rv.packed);
  const bool bias_add = spec.force_bias_add || rv.any_bias;
  const runtime::DramBuffer ident =
      fused ? pb.alloc_constant(diagonal_tile(c, spec.add->other_scale)) : runtime::DramBuffer{};
  // A layer with data records where its format-dependent values went (timing programs do not).
  const bool sites = !spec.weights.empty();
  if (sites && !rv.packed.empty()) pb.record_const(0, ConstRole::kVectors, vbuf, rv.packed.size());
  if (sites && spec.bias_in_weights) pb.record_const(0, ConstRole::kWeights, wbuf, wbuf.size());
  if (sites && fused) {
    if (!arv.packed.empty()) throw InternalError("fused add requantization with vectors");
    pb.record_const(1, ConstRole::kScaleTile, ident, uint64_t(c.wgt_elem_bytes()));
  }
  const std::function<void(ImmRole, int)> record_conv = [&](ImmRole role, int piece) { pb.record_imm(0, role, piece); };
  const std::function<void(ImmRole, int)> record_add = [&](ImmRole role, int piece) { pb.record_imm(1, role, piece); };

  NestKernelMemo kernels(c, pb.device().layout());
  const int64_t KK = g.kh * g.kw, H = w.height, W = w.width, OH = g.oh, OW = g.ow;
  const int vt = t.vt;
  const uint32_t acc0 = uint32_t(t.reserved_acc);

  // Thread groups of output tiles in TVM's loop order (batch, rows, output channels, columns),
  // the h and oc virtual threads innermost so their tiles interleave.
  std::vector<std::vector<Item>> groups;
  for (int64_t bt = 0; bt < t.nbt; ++bt)
    for (int64_t ho = 0; ho < ceil_div(t.nht, t.hn); ++ho)
      for (int64_t co = 0; co < ceil_div(t.ncot, t.on); ++co)
        for (int64_t wt = 0; wt < t.nwt; ++wt) {
          std::vector<Item> grp;
          for (int hv = 0; hv < t.hn; ++hv)
            for (int cv = 0; cv < t.on; ++cv) {
              const int64_t ht = ho * t.hn + hv, ct = co * t.on + cv;
              if (ht < t.nht && ct < t.ncot) grp.push_back(Item{bt, ht, wt, ct});
            }
          groups.push_back(std::move(grp));
        }
  // Groups per token-balanced chunk, so the builder can flush long layers between chunks.
  const int64_t per_group = int64_t(vt) * (t.ncit * (t.tb * t.tci + 8) + t.tb * t.tco + 10);
  const int64_t chunk = std::max<int64_t>(1, int64_t(cb.options().max_insns / 2) / std::max<int64_t>(1, per_group));

  // A co tile may span t.sgt supergroups (TVM's group template, conv_plan.h): the loop steps over
  // such spans, each with cob_span output-channel blocks.
  const int64_t cob_span = g.cob * t.sgt;
  for (int64_t sg = 0; sg < g.supergroups; sg += t.sgt) {
    // Per-channel vectors of this part: bias + rounding, then the shift pieces.
    for (int64_t k = 0; k < rv.acc_vectors(); ++k) {
      cb.load_2d(MemId::kAcc, uint32_t(k * cob_span), vbuf, uint64_t(k * g.cob_total + sg * g.cob),
                 uint32_t(cob_span), 1, uint32_t(cob_span));
    }
    if (fused && sg == 0) cb.load_2d(MemId::kWgt, ident_wgt, ident, 0, 1, 1, 1);
    using Key = std::array<int64_t, 4>;
    std::vector<Key> inp_at(size_t(vt), Key{-1, -1, -1, -1}), wgt_at(size_t(vt), Key{-1, -1, -1, -1});
    uint64_t step = 0, item = 0;  // accumulator slot of an output tile: its index modulo vt
    for (size_t g0 = 0; g0 < groups.size(); g0 += size_t(chunk)) {
      const size_t g1 = std::min(groups.size(), g0 + size_t(chunk));
      for (int v = 0; v < vt; ++v) cb.dep_push(Module::kCompute, Module::kLoad);
      for (int v = 0; v < vt; ++v) cb.dep_push(Module::kStore, Module::kCompute);
      for (size_t gi = g0; gi < g1; ++gi) {
        const std::vector<Item>& grp = groups[gi];
        const uint64_t first_item = item;
        item += grp.size();
        auto slot_base = [&](size_t j) {
          return acc0 + uint32_t(int64_t((first_item + j) % uint64_t(vt)) * t.acc_slot);
        };
        for (int64_t kc = 0; kc < t.ncit; ++kc) {
          const int64_t tci_i = std::min(t.tci, g.cib - kc * t.tci);
          const int64_t blocks_i = t.in_blocks(g, tci_i);  // input blocks loaded per batch row
          for (size_t j = 0; j < grp.size(); ++j, ++step) {
            const Item& it = grp[j];
            const size_t part = size_t(step % uint64_t(vt));
            const int64_t tb_i = std::min(t.tb, g.nb - it.bt * t.tb);
            const int64_t th_i = std::min(t.th, OH - it.ht * t.th);
            const int64_t tw_i = std::min(t.tw, OW - it.wt * t.tw);
            const int64_t tco_i = std::min(t.tco, cob_span - it.ct * t.tco);
            const auto [ih0, window_rows] = window(it.ht * t.th, th_i, w.kernel_h, w.stride_h, w.pad_top, w.dilation_h);
            const int64_t rows = skip_rows ? th_i : window_rows;  // skips_input_rows (conv_plan.h)
            const auto [iw0, cols] = window(it.wt * t.tw, tw_i, w.kernel_w, w.stride_w, w.pad_left, w.dilation_w);
            const uint32_t inp_base = uint32_t(int64_t(part) * t.inp_part);
            const uint32_t wgt_base = uint32_t(int64_t(part) * t.wgt_part);
            const uint32_t acc_base = slot_base(j);

            // Load: wait for the part to be free, fill it, hand it to compute.
            cb.dep_pop(Module::kCompute, Module::kLoad);
            const Key xk{it.bt, it.ht, it.wt, kc};
            if (inp_at[part] != xk) {
              int64_t yp0 = std::min(rows, std::max<int64_t>(0, -ih0));
              int64_t yp1 = std::min(rows - yp0, std::max<int64_t>(0, ih0 + rows - H));
              int64_t xp0 = std::min(cols, std::max<int64_t>(0, -iw0));
              int64_t xp1 = std::min(cols - xp0, std::max<int64_t>(0, iw0 + cols - W));
              const int64_t ys = rows - yp0 - yp1, xs = cols - xp0 - xp1;
              const runtime::Pad2D pad{uint8_t(yp0), uint8_t(yp1), uint8_t(xp0), uint8_t(xp1)};
              for (int64_t b = 0; b < tb_i; ++b) {
                for (int64_t ci = 0; ci < blocks_i; ++ci) {
                  const int64_t plane = (it.bt * t.tb + b) * g.cib_total + sg * g.cib + kc * t.tci + ci;
                  const uint64_t off = ys > 0 && xs > 0
                                           ? uint64_t((plane * H + std::max<int64_t>(ih0, 0)) * W + std::max<int64_t>(iw0, 0))
                                           : 0;
                  cb.load_2d(MemId::kInp, inp_base + uint32_t((b * blocks_i + ci) * rows * cols), input, off,
                             uint32_t(xs), uint32_t(ys), uint32_t(skip_rows ? W * w.stride_h : W), pad);
                }
              }
              inp_at[part] = xk;
            }
            const Key wk{sg, it.ct, kc, spec.weights_per_batch_block ? it.bt : 0};
            if (wgt_at[part] != wk) {
              const uint64_t off = uint64_t(((sg * g.cob + it.ct * t.tco) * g.cib + kc * t.tci) * KK);
              if (tci_i == g.cib && tco_i * g.cib * KK <= hw::field_max(hw::Field::kXSize)) {
                cb.load_2d(MemId::kWgt, wgt_base, wbuf, off, uint32_t(tco_i * g.cib * KK), 1,
                           uint32_t(tco_i * g.cib * KK));
              } else {
                cb.load_2d(MemId::kWgt, wgt_base, wbuf, off, uint32_t(tci_i * KK), uint32_t(tco_i),
                           uint32_t(g.cib * KK));
              }
              wgt_at[part] = wk;
            }
            if (fused && kc + 1 == t.ncit) {
              // The residual tile, laid out like the accumulator tile, after the input tile.
              for (int64_t b = 0; b < tb_i; ++b) {
                for (int64_t co = 0; co < tco_i; ++co) {
                  const uint32_t sram = inp_base + uint32_t(t.res_offset + (b * tco_i + co) * th_i * tw_i);
                  const int64_t plane = (it.bt * t.tb + b) * g.cob_total + sg * g.cob + it.ct * t.tco + co;
                  const uint64_t off = uint64_t((plane * OH + it.ht * t.th) * OW + it.wt * t.tw);
                  if (tw_i == OW && th_i * OW <= hw::field_max(hw::Field::kXSize)) {
                    cb.load_2d(MemId::kInp, sram, *residual, off, uint32_t(th_i * OW), 1, uint32_t(th_i * OW));
                  } else {
                    cb.load_2d(MemId::kInp, sram, *residual, off, uint32_t(tw_i), uint32_t(th_i), uint32_t(OW));
                  }
                }
              }
            }
            cb.dep_push(Module::kLoad, Module::kCompute);

            // Compute: zero the accumulators once the store of the slot's last tile is done;
            // accumulate; requantize after the last reduction step.
            if (kc == 0) cb.dep_pop(Module::kStore, Module::kCompute);
            cb.dep_pop(Module::kLoad, Module::kCompute);
            const uint32_t rc = uint32_t(rows * cols);
            // Fixed arrays, not vectors: these are built for every reduction step.
            const std::array<NestDim, 4> out_dims = {{
                {uint32_t(tb_i), uint32_t(tco_i * th_i * tw_i), 0, 0},
                {uint32_t(tco_i), uint32_t(th_i * tw_i), 0, 0},
                {uint32_t(th_i), uint32_t(tw_i), 0, 0},
                {uint32_t(tw_i), 1, 0, 0}}};
            if (kc == 0) cb.gemm(kernels.get(UopKind::kGemm, acc_base, inp_base, wgt_base, out_dims), true);
            if (!transposed && t.sgt == 1) {
              const std::array<NestDim, 7> dims = {{
                  {uint32_t(tci_i), 0, rc, uint32_t(KK)},
                  {uint32_t(g.kh), 0, uint32_t(w.dilation_h * cols), uint32_t(g.kw)},
                  {uint32_t(g.kw), 0, uint32_t(w.dilation_w), 1},
                  {uint32_t(tb_i), uint32_t(tco_i * th_i * tw_i), uint32_t(tci_i) * rc, 0},
                  {uint32_t(tco_i), uint32_t(th_i * tw_i), 0, uint32_t(tci_i * KK)},
                  {uint32_t(th_i), uint32_t(tw_i), uint32_t((skip_rows ? 1 : w.stride_h) * cols), 0},
                  {uint32_t(tw_i), 1, uint32_t(w.stride_w), 0}}};
              cb.gemm(kernels.get(UopKind::kGemm, acc_base, inp_base, wgt_base, dims));
            } else if (!transposed) {
              // Output blocks of each supergroup of the span multiply only its own input blocks,
              // which start cib blocks after the previous supergroup's in the loaded span.
              const std::array<NestDim, 8> dims = {{
                  {uint32_t(tci_i), 0, rc, uint32_t(KK)},
                  {uint32_t(g.kh), 0, uint32_t(w.dilation_h * cols), uint32_t(g.kw)},
                  {uint32_t(g.kw), 0, uint32_t(w.dilation_w), 1},
                  {uint32_t(tb_i), uint32_t(tco_i * th_i * tw_i), uint32_t(blocks_i) * rc, 0},
                  {uint32_t(t.sgt), uint32_t(g.cob * th_i * tw_i), uint32_t(g.cib) * rc, uint32_t(g.cob * tci_i * KK)},
                  {uint32_t(g.cob), uint32_t(th_i * tw_i), 0, uint32_t(tci_i * KK)},
                  {uint32_t(th_i), uint32_t(tw_i), uint32_t((skip_rows ? 1 : w.stride_h) * cols), 0},
                  {uint32_t(tw_i), 1, uint32_t(w.stride_w), 0}}};
              cb.gemm(kernels.get(UopKind::kGemm, acc_base, inp_base, wgt_base, dims));
            } else {
              emit_transposed_gemms(cb, kernels, w, acc_base, inp_base, wgt_base, it.ht * t.th, it.wt * t.tw, th_i, tw_i,
                                    ih0, iw0, cols, tb_i, tci_i, tco_i);
            }
            if (!fused || kc + 1 < t.ncit) cb.dep_push(Module::kCompute, Module::kLoad);
            if (kc + 1 == t.ncit) {
              // Per-channel vectors of this tile's output-channel blocks start at it.ct * tco.
              emit_requant(cb, c, rv, acc_base, out_dims, uint32_t(it.ct * t.tco), uint32_t(cob_span),
                           /*channel_dim=*/1, bias_add, spec.clip_min, spec.clip_max, &kernels,
                           sites ? &record_conv : nullptr);
              if (fused) {
                // The residual joins the clipped result; its INP part is free once it has.
                if (spec.add->conv_shl > 0) {
                  const runtime::EncodedKernel& k = kernels.get(UopKind::kAlu, acc_base, 0, 0, out_dims);
                  const std::vector<int64_t> shl = shift_pieces(c, -spec.add->conv_shl);
                  for (size_t i = 0; i < shl.size(); ++i) {
                    cb.alu(k, hw::AluOp::kShr, true, int32_t(shl[i]));
                    if (sites) pb.record_imm(1, ImmRole::kShl, int(i));
                  }
                }
                std::array<NestDim, 4> rd = out_dims;
                for (NestDim& d : rd) d.src = d.dst;
                cb.gemm(kernels.get(UopKind::kGemm, acc_base, inp_base + uint32_t(t.res_offset), ident_wgt, rd));
                cb.dep_push(Module::kCompute, Module::kLoad);
                emit_requant(cb, c, arv, acc_base, out_dims, 0, 0, -1, false, spec.add->clip_min, spec.add->clip_max,
                             &kernels, sites ? &record_add : nullptr);
              }
              cb.dep_push(Module::kCompute, Module::kStore);
            }
          }
        }
        for (size_t j = 0; j < grp.size(); ++j) {
          const Item& it = grp[j];
          const int64_t tb_i = std::min(t.tb, g.nb - it.bt * t.tb);
          const int64_t th_i = std::min(t.th, OH - it.ht * t.th);
          const int64_t tw_i = std::min(t.tw, OW - it.wt * t.tw);
          const int64_t tco_i = std::min(t.tco, cob_span - it.ct * t.tco);
          const uint32_t acc_base = slot_base(j);
          cb.dep_pop(Module::kCompute, Module::kStore);
          for (int64_t b = 0; b < tb_i; ++b) {
            for (int64_t co = 0; co < tco_i; ++co) {
              const uint32_t sram = acc_base + uint32_t((b * tco_i + co) * th_i * tw_i);
              const int64_t plane = (it.bt * t.tb + b) * g.cob_total + sg * g.cob + it.ct * t.tco + co;
              const uint64_t off = uint64_t((plane * OH + it.ht * t.th) * OW + it.wt * t.tw);
              if (tw_i == OW && th_i * OW <= hw::field_max(hw::Field::kXSize)) {
                cb.store_2d(sram, output, off, uint32_t(th_i * OW), 1, uint32_t(th_i * OW));
              } else {
                cb.store_2d(sram, output, off, uint32_t(tw_i), uint32_t(th_i), uint32_t(OW));
              }
            }
          }
          cb.dep_push(Module::kStore, Module::kCompute);
        }
      }
      for (int v = 0; v < vt; ++v) cb.dep_pop(Module::kCompute, Module::kLoad);
      for (int v = 0; v < vt; ++v) cb.dep_pop(Module::kStore, Module::kCompute);
    }
  }
}

ConvLayerSpec timing_layer_spec(const ConvWorkload& w) {
  ConvLayerSpec spec;
  spec.w = w;
  spec.shifts = {8};
  spec.force_bias_add = true;
  return spec;
}

Program lower_conv_program(const hw::HwConfig& c, const ConvLayerSpec& spec, const Schedule& s) {
  ProgramBuilder pb(c);
  const ConvWorkload& w = spec.w;
  const ActShape out_shape{w.batch, w.out_channels, w.out_height(), w.out_width()};
  const runtime::DramBuffer in = pb.alloc(act_bytes(c, {w.batch, w.in_channels, w.height, w.width}, c.block_in()), "input");
  const runtime::DramBuffer out = pb.alloc(act_bytes(c, out_shape, c.block_out()), "output");
  runtime::DramBuffer res;  // the fused add's other operand, in the output's layout
  if (spec.add) res = pb.alloc(act_bytes(c, out_shape, c.block_out()), "residual");
  pb.begin_layer(w.to_string());
  lower_conv(pb, spec, s, in, out, spec.add ? &res : nullptr);
  return pb.finish();
}

Program lower_conv_workload(const hw::HwConfig& c, const ConvWorkload& w, const Schedule& s) {
  return lower_conv_program(c, timing_layer_spec(w), s);
}

}  // namespace tauvta::lower
