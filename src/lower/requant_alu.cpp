#include "lower/requant_alu.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/lanes.h"
#include "lower/tensor_layout.h"

namespace tauvta::lower {

namespace {

int64_t shr_hi(const hw::HwConfig& c) { return (int64_t(1) << (c.log_acc_width - 1)) - 1; }

// Splits a shift into pieces inside the SHR amount's signed range.
std::vector<int64_t> split_shift(const hw::HwConfig& c, int64_t s) {
  const int64_t hi = shr_hi(c), lo = -hi - 1;
  std::vector<int64_t> out;
  while (s > 0) {
    out.push_back(std::min(s, hi));
    s -= out.back();
  }
  while (s < 0) {
    out.push_back(std::max(s, lo));
    s -= out.back();
  }
  return out;
}

}  // namespace

std::vector<int64_t> shift_pieces(const hw::HwConfig& c, int64_t shift) { return split_shift(c, shift); }

int64_t rounding_constant(int64_t s) { return s > 0 ? (int64_t(1) << std::min<int64_t>(s - 1, 62)) : 0; }

std::vector<int64_t> requant_adds(const std::vector<int64_t>& bias, const std::vector<int64_t>& shifts, int acc_bits) {
  std::vector<int64_t> add(shifts.size(), 0);
  for (size_t ch = 0; ch < shifts.size(); ++ch) {
    const int64_t b = bias.empty() ? 0 : bias[ch];
    add[ch] = hw::sign_extend(uint64_t(b) + uint64_t(rounding_constant(shifts[ch])), acc_bits);
  }
  return add;
}

RequantVectors requant_vectors(const hw::HwConfig& c, const std::vector<int64_t>& bias,
                               const std::vector<int64_t>& shifts, int acc_bits, int64_t channels) {
  if (int64_t(shifts.size()) != channels) {
    throw InternalError(fmt::format("requant_vectors: {} shifts for {} channels", shifts.size(), channels));
  }
  RequantVectors rv;
  rv.blocks = ceil_div(channels, c.block_out());
  const std::vector<int64_t> add = requant_adds(bias, shifts, acc_bits);
  for (int64_t a : add) rv.any_bias = rv.any_bias || a != 0;
  bool uniform = true;
  for (int64_t s : shifts) uniform = uniform && s == shifts[0];
  if (uniform) {
    rv.imm_shifts = split_shift(c, channels > 0 ? shifts[0] : 0);
    bool same_add = true;
    for (int64_t a : add) same_add = same_add && a == add[0];
    const int64_t v = channels > 0 ? add[0] : 0;
    if (same_add && (v >= 0 ? v : -v) <= int64_t(kMaxImmAdds) * 32767) {
      rv.imm_only = true;
      for (int64_t left = v; left != 0;) {
        const int64_t piece = std::clamp<int64_t>(left, -32767, 32767);
        rv.imm_adds.push_back(piece);
        left -= piece;
      }
      return rv;
    }
    rv.packed = pack_acc_vector(c, add);
    return rv;
  }
  rv.packed = pack_acc_vector(c, add);
  std::vector<std::vector<int64_t>> per(static_cast<size_t>(channels));
  for (int64_t ch = 0; ch < channels; ++ch) {
    per[size_t(ch)] = split_shift(c, shifts[size_t(ch)]);
    rv.pieces = std::max<int64_t>(rv.pieces, int64_t(per[size_t(ch)].size()));
  }
  rv.pieces = std::max<int64_t>(rv.pieces, 1);
  for (int64_t k = 0; k < rv.pieces; ++k) {
    std::vector<int64_t> v(size_t(channels), 0);
    for (int64_t ch = 0; ch < channels; ++ch) {
      if (size_t(k) < per[size_t(ch)].size()) v[size_t(ch)] = per[size_t(ch)][size_t(k)];
    }
    const std::vector<uint8_t> p = pack_acc_vector(c, v);
    rv.packed.insert(rv.packed.end(), p.begin(), p.end());
  }
  return rv;
}

void emit_requant(runtime::CommandBuilder& cb, const hw::HwConfig& c, const RequantVectors& rv,
                  uint32_t acc_base, std::span<const NestDim> dims, uint32_t ch0,
                  uint32_t vec_stride, int channel_dim, bool bias_add, int64_t clip_min,
                  int64_t clip_max, NestKernelMemo* memo,
                  const std::function<void(ImmRole role, int piece)>* record) {
  using runtime::UopKind;
  // Fixed arrays, not vectors: a convolution requantizes every output tile through here.
  constexpr size_t kMaxDims = 8;
  if (dims.size() > kMaxDims) throw InternalError(fmt::format("emit_requant: a nest of {} dimensions", dims.size()));
  std::array<NestDim, kMaxDims> vector_store{}, imm_store{};
  const std::span<NestDim> vector_dims(vector_store.data(), dims.size()), imm_dims(imm_store.data(), dims.size());
  // A vector operand: src walks the channel blocks, broadcast over everything else.
  std::copy(dims.begin(), dims.end(), vector_dims.begin());
  std::copy(dims.begin(), dims.end(), imm_dims.begin());
  for (size_t i = 0; i < dims.size(); ++i) vector_dims[i].src = int(i) == channel_dim ? 1 : 0;
  for (NestDim& x : imm_dims) x.src = 0;  // the source is read but unused: point it at element 0
  auto alu = [&](uint32_t src0, std::span<const NestDim> d, hw::AluOp op, bool use_imm, int64_t imm) {
    if (memo) {
      cb.alu(memo->get(UopKind::kAlu, acc_base, src0, 0, d), op, use_imm, int32_t(imm));
    } else {
      cb.alu(make_nest_kernel(c, UopKind::kAlu, acc_base, src0, 0, d), op, use_imm, int32_t(imm));
    }
  };
  // Every immediate operation shares one kernel: look it up (or build it) once.
  runtime::EncodedKernel own;
  const runtime::EncodedKernel* imm_kernel = &own;
  if (memo) {
    imm_kernel = &memo->get(UopKind::kAlu, acc_base, 0, 0, imm_dims);
  } else {
    own = runtime::encode_kernel(make_nest_kernel(c, UopKind::kAlu, acc_base, 0, 0, imm_dims), cb.device().layout());
  }
  auto alu_imm = [&](hw::AluOp op, int64_t imm, ImmRole role, int piece) {
    cb.alu(*imm_kernel, op, true, int32_t(imm));
    if (record) (*record)(role, piece);
  };
  if (rv.imm_only) {
    for (size_t i = 0; i < rv.imm_adds.size(); ++i) alu_imm(hw::AluOp::kAdd, rv.imm_adds[i], ImmRole::kAdd, int(i));
    if (bias_add && rv.imm_adds.empty()) alu_imm(hw::AluOp::kAdd, 0, ImmRole::kAdd, 0);
  } else if (bias_add) {
    alu(ch0, vector_dims, hw::AluOp::kAdd, false, 0);
  }
  if (rv.pieces == 0) {
    for (size_t i = 0; i < rv.imm_shifts.size(); ++i) alu_imm(hw::AluOp::kShr, rv.imm_shifts[i], ImmRole::kShr, int(i));
  } else {
    for (int64_t p = 1; p <= rv.pieces; ++p) alu(uint32_t(p) * vec_stride + ch0, vector_dims, hw::AluOp::kShr, false, 0);
  }
  alu_imm(hw::AluOp::kMin, clip_max, ImmRole::kMin, 0);
  alu_imm(hw::AluOp::kMax, clip_min, ImmRole::kMax, 0);
}

}  // namespace tauvta::lower
