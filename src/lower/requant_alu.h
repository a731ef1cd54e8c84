// Requantization on the tensor ALU, the accelerator's half of cpu::requantize: ADD of a
// per-channel vector (bias plus the rounding constant 2^(s-1), one wrapping ADD where the integer
// reference does two: modular addition is associative), SHR split into pieces within the
// immediate's LOG_ACC_WIDTH-bit signed range (floor(floor(x/2^a)/2^b) = floor(x/2^(a+b)); per-
// channel shifts use vectors of amounts), then MIN and MAX with the clip bounds. Per-channel
// bias and rounding travel in accumulator vectors, so 2^15 and beyond need no splitting; when
// they are one value for all channels (no bias) and the shift is uniform, up to kMaxImmAdds ADD
// immediates carry it instead and the accumulators hold no vectors at all.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "hw/hw_config.h"
#include "lower/uop_nest.h"
#include "runtime/command_builder.h"

namespace tauvta::lower {

struct RequantVectors {
  int64_t pieces = 0;               // vector SHR pieces (per-channel shifts); 0: immediates
  std::vector<int64_t> imm_shifts;  // immediate SHR pieces (uniform shift)
  bool any_bias = false;            // some channel's bias + rounding constant is not 0
  // Set when bias + rounding is one value for every channel, the shift is uniform and the value
  // splits into at most kMaxImmAdds ADD immediates: then nothing lives in the accumulators
  // (TVM's templates tune without a bias, so their tiles may fill the whole ACC SRAM).
  bool imm_only = false;
  std::vector<int64_t> imm_adds;    // the ADD immediates (wrapping adds: their sum is the value)
  int64_t blocks = 0;               // ACC elements per vector
  std::vector<uint8_t> packed;      // (1 + pieces) vectors of `blocks` ACC elements (empty if imm_only)
  // Per-channel vectors the accumulators hold: 0 (imm_only) or 1 + pieces.
  int64_t acc_vectors() const { return imm_only ? 0 : 1 + pieces; }
  bool operator==(const RequantVectors&) const = default;
};

inline constexpr int kMaxImmAdds = 4;

// What an immediate of a requantization does (its patch-site role, lower/patch_sites.h): the
// rounding/bias ADDs, the SHR pieces, the clip's MIN and MAX, and a fused add's left shift.
enum class ImmRole : uint8_t { kAdd = 0, kShr = 1, kMin = 2, kMax = 3, kShl = 4 };

// The rounding constant of a right shift by s: 2^(s-1), or 0 for s <= 0.
int64_t rounding_constant(int64_t s);

// What the requantization's ADD adds per channel: bias plus the rounding constant 2^(s-1) (for a
// shift s > 0), wrapped to the accumulator width. `bias` may be empty (zeros).
std::vector<int64_t> requant_adds(const std::vector<int64_t>& bias, const std::vector<int64_t>& shifts, int acc_bits);

// `bias` may be empty (zeros); `shifts` has one entry per channel.
RequantVectors requant_vectors(const hw::HwConfig& c, const std::vector<int64_t>& bias,
                               const std::vector<int64_t>& shifts, int acc_bits, int64_t channels);

// The SHR immediates for a uniform shift (empty for 0).
std::vector<int64_t> shift_pieces(const hw::HwConfig& c, int64_t shift);

// Emits the sequence over the accumulator tile nest `dims` (destination factors only) at
// `acc_base` (kernels from `memo` when given). `record`, when given, is told after each
// immediate instruction its role and piece. Vector k of the per-channel data starts at ACC index
// k * vec_stride; the tile's
// channel blocks start at `ch0` and advance along dims[channel_dim] (-1: one block for all).
void emit_requant(runtime::CommandBuilder& cb, const hw::HwConfig& c, const RequantVectors& rv,
                  uint32_t acc_base, std::span<const NestDim> dims, uint32_t ch0,
                  uint32_t vec_stride, int channel_dim, bool bias_add, int64_t clip_min,
                  int64_t clip_max, NestKernelMemo* memo = nullptr,
                  const std::function<void(ImmRole role, int piece)>* record = nullptr);

}  // namespace tauvta::lower
