#include "sim/onchip_memory.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/lanes.h"
#include "sim/avx2_layout.h"
#include "sim/compute_kernels.h"
#include "sim/vnni_layout.h"

namespace tauvta::sim {

const char* simd_gemm_name(SimdGemm kernel) {
  switch (kernel) {
    case SimdGemm::kNone: return "portable";
    case SimdGemm::kVnni: return "AVX-512 VNNI";
    case SimdGemm::kAvx2: return "AVX2";
  }
  return "?";
}

bool simd_gemm_supported(SimdGemm kernel, const hw::HwConfig& c) {
  switch (kernel) {
    case SimdGemm::kNone: return true;
    case SimdGemm::kVnni:
      // vpdpbusd takes groups of 4 bytes; sums wrap at 32 bits, so wider accumulators cannot use it.
      return cpu_has_vnni() && c.inp_width() <= 8 && c.wgt_width() <= 8 && c.acc_width() <= 32 &&
             c.block_in() % 4 == 0 && c.block_out() % 8 == 0;
    case SimdGemm::kAvx2:
      // vpmaddwd takes pairs of int16 lanes; a ymm holds 8 int32 output channels.
      return cpu_has_avx2() && c.block_in() % 2 == 0 && c.block_out() % 8 == 0;
  }
  return false;
}

SimdGemm best_simd_gemm(const hw::HwConfig& c) {
  for (SimdGemm k : {SimdGemm::kVnni, SimdGemm::kAvx2}) {
    if (simd_gemm_supported(k, c)) return k;
  }
  return SimdGemm::kNone;
}

OnChipMemory::OnChipMemory(const hw::HwConfig& c, SimdGemm simd)
    : config_(c),
      inp_lanes_(c.batch() * c.block_in()),
      wgt_lanes_(c.block_out() * c.block_in()),
      acc_lanes_(c.batch() * c.block_out()),
      simd_gemm_(simd) {
  if (!simd_gemm_supported(simd, c)) {
    throw Error(fmt::format("the {} GEMM kernel cannot run config {} on this CPU",
                            simd_gemm_name(simd), c.name()));
  }
  uop_raw.assign(c.uop_depth(), 0);
  uop_gemm.assign(c.uop_depth(), hw::Uop{});
  uop_alu.assign(c.uop_depth(), hw::Uop{});
  const size_t inp_n = size_t(c.inp_depth()) * inp_lanes_;
  const size_t wgt_n = size_t(c.wgt_depth()) * wgt_lanes_;
  const size_t acc_n = size_t(c.acc_depth()) * acc_lanes_;
  if (inp_is_int8()) inp8.assign(inp_n, 0); else inp16.assign(inp_n, 0);
  if (wgt_is_int8()) wgt8.assign(wgt_n, 0); else wgt16.assign(wgt_n, 0);
  // 16 x 16-bit products into 64-bit sums: the wide kernel's high-byte estimate needs VNNI's
  // vpdpbusd over groups of 4 input channels.
  high_byte_vnni_ = simd == SimdGemm::kAvx2 && cpu_has_vnni() && c.inp_width() == 16 &&
                    c.wgt_width() == 16 && !acc_is_int32() && c.block_in() % 4 == 0;
  if (has_high_byte_vnni()) {
    inp_split16.resize(3 * inp_n);
    fill_split16(0, inp_n);
    wgt_vnni.assign(wgt_n, 0);
    wgt_corr.assign(size_t(c.wgt_depth()) * c.block_out(), 0);
  }
  if (has_vnni_weights()) {
    inp_vnni.assign(inp_n, 0x80);
    wgt_vnni.assign(wgt_n, 0);
    wgt_corr.assign(size_t(c.wgt_depth()) * c.block_out(), 0);
  }
  if (has_pair_weights()) {
    if (inp_is_int8()) inp_wide.assign(inp_n, 0);
    wgt_pairs.assign(wgt_n, 0);
  }
  if (acc_is_int32()) acc32.assign(acc_n, 0); else acc64.assign(acc_n, 0);
  if (out_is_int8()) out8.assign(acc_n, 0); else out16.assign(acc_n, 0);
}

void OnChipMemory::clear() {
  auto zero = [](auto& v) { std::fill(v.begin(), v.end(), 0); };
  zero(uop_raw);
  std::fill(uop_gemm.begin(), uop_gemm.end(), hw::Uop{});
  std::fill(uop_alu.begin(), uop_alu.end(), hw::Uop{});
  std::fill(inp_vnni.begin(), inp_vnni.end(), 0x80);
  zero(inp8); zero(inp16); zero(wgt8); zero(wgt16); zero(wgt_vnni); zero(wgt_corr);
  zero(inp_wide); zero(wgt_pairs);
  if (has_high_byte_vnni()) fill_split16(0, inp16.size());
  zero(acc32); zero(acc64); zero(out8); zero(out16);
}

void OnChipMemory::write_uops(uint32_t index, const uint8_t* bytes, uint32_t count,
                              const hw::IsaLayout& l) {
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t raw;
    std::memcpy(&raw, bytes + 4 * size_t(k), 4);
    uop_raw[index + k] = raw;
    uop_gemm[index + k] = l.decode_gemm_uop(raw);
    uop_alu[index + k] = l.decode_alu_uop(raw);
  }
}

void OnChipMemory::write_inp(uint32_t index, const uint8_t* bytes, uint32_t count) {
  const size_t off = size_t(index) * inp_lanes_, n = size_t(count) * inp_lanes_;
  if (inp_is_int8()) {
    hw::unpack_lanes(bytes, config_.inp_width(), int(n), inp8.data() + off);
    const int8_t* x = inp8.data() + off;
    if (has_vnni_weights()) {
      uint8_t* v = inp_vnni.data() + off;
      for (size_t k = 0; k < n; ++k) v[k] = uint8_t(x[k]) ^ 0x80;
    }
    if (has_pair_weights()) std::copy_n(x, n, inp_wide.data() + off);
  } else {
    hw::unpack_lanes(bytes, config_.inp_width(), int(n), inp16.data() + off);
    if (has_high_byte_vnni()) fill_split16(off, n);
  }
}

void OnChipMemory::fill_split16(size_t off, size_t n) {
  const int16_t* x = inp16.data() + off;
  uint8_t* v = inp_split16.data() + 3 * off;
  for (size_t k = 0; k < n; k += 4, x += 4, v += 12) {  // lanes per element are a multiple of 4
    uint64_t w;  // 4 lanes; their high bytes are w's bytes 1, 3, 5 and 7
    std::memcpy(&w, x, 8);
    const uint64_t h = (w >> 8) & 0x00FF00FF00FF00FFull;
    const uint64_t h2 = (h | (h >> 8)) & 0x0000FFFF0000FFFFull;
    const uint32_t high = uint32_t(h2 | (h2 >> 16)) ^ 0x80808080u;
    std::memcpy(v, &w, 8);
    std::memcpy(v + 8, &high, 4);
  }
}

void OnChipMemory::zero_inp(uint32_t index, uint32_t count) {
  const size_t off = size_t(index) * inp_lanes_, n = size_t(count) * inp_lanes_;
  if (inp_is_int8()) {
    std::fill_n(inp8.data() + off, n, 0);
    if (has_vnni_weights()) std::fill_n(inp_vnni.data() + off, n, 0x80);
    if (has_pair_weights()) std::fill_n(inp_wide.data() + off, n, 0);
  } else {
    std::fill_n(inp16.data() + off, n, 0);
    if (has_high_byte_vnni()) fill_split16(off, n);
  }
}

void OnChipMemory::write_wgt(uint32_t index, const uint8_t* bytes, uint32_t count) {
  const size_t off = size_t(index) * wgt_lanes_, n = size_t(count) * wgt_lanes_;
  if (wgt_is_int8()) {
    hw::unpack_lanes(bytes, config_.wgt_width(), int(n), wgt8.data() + off);
  } else {
    hw::unpack_lanes(bytes, config_.wgt_width(), int(n), wgt16.data() + off);
  }
  if (simd_gemm_ != SimdGemm::kNone) {
    for (uint32_t k = 0; k < count; ++k) rebuild_simd_weights(index + k);
  }
}

void OnChipMemory::rebuild_simd_weights(uint32_t index) {
  const int bo = config_.block_out(), bi = config_.block_in();
  const size_t off = size_t(index) * wgt_lanes_;
  if (has_vnni_weights()) {
    arrange_vnni_tile(wgt8.data() + off, bo, bi, wgt_vnni.data() + off,
                      wgt_corr.data() + size_t(index) * bo);
  } else if (wgt_is_int8()) {
    arrange_pair_tile(wgt8.data() + off, bo, bi, wgt_pairs.data() + off);
  } else {
    arrange_pair_tile(wgt16.data() + off, bo, bi, wgt_pairs.data() + off);
    if (has_high_byte_vnni()) {
      int8_t high[256 * 256];  // BLOCK_OUT and BLOCK_IN are at most 256 (hw_config.cpp)
      const int16_t* w = wgt16.data() + off;
      for (size_t k = 0; k < size_t(wgt_lanes_); ++k) high[k] = int8_t(w[k] >> 8);
      arrange_vnni_tile(high, bo, bi, wgt_vnni.data() + off, wgt_corr.data() + size_t(index) * bo);
    }
  }
}

void OnChipMemory::write_acc(uint32_t index, const uint8_t* bytes, uint32_t count) {
  const size_t off = size_t(index) * acc_lanes_, n = size_t(count) * acc_lanes_;
  if (acc_is_int32()) {
    hw::unpack_lanes(bytes, config_.acc_width(), int(n), acc32.data() + off);
  } else {
    hw::unpack_lanes(bytes, config_.acc_width(), int(n), acc64.data() + off);
  }
}

void OnChipMemory::zero_acc(uint32_t index, uint32_t count) {
  const size_t off = size_t(index) * acc_lanes_, n = size_t(count) * acc_lanes_;
  if (acc_is_int32()) {
    std::fill_n(acc32.data() + off, n, 0);
  } else {
    std::fill_n(acc64.data() + off, n, 0);
  }
}

void OnChipMemory::read_out(uint32_t index, uint8_t* bytes, uint32_t count) const {
  const size_t off = size_t(index) * acc_lanes_, n = size_t(count) * acc_lanes_;
  if (out_is_int8()) {
    hw::pack_lanes(out8.data() + off, config_.out_width(), int(n), bytes);
  } else {
    hw::pack_lanes(out16.data() + off, config_.out_width(), int(n), bytes);
  }
}

}  // namespace tauvta::sim
