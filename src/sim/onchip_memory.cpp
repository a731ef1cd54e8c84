#include "sim/onchip_memory.h"

#include <algorithm>
#include <cstring>

#include "hw/lanes.h"
#include "sim/compute_kernels.h"
#include "sim/vnni_layout.h"

namespace tauvta::sim {

OnChipMemory::OnChipMemory(const hw::HwConfig& c)
    : config_(c),
      inp_lanes_(c.batch() * c.block_in()),
      wgt_lanes_(c.block_out() * c.block_in()),
      acc_lanes_(c.batch() * c.block_out()),
      has_vnni_weights_(cpu_has_vnni() && c.wgt_width() <= 8 && c.inp_width() <= 8 &&
                        c.block_in() % 4 == 0 && c.block_out() % 8 == 0) {
  uop_raw.assign(c.uop_depth(), 0);
  uop_gemm.assign(c.uop_depth(), hw::Uop{});
  uop_alu.assign(c.uop_depth(), hw::Uop{});
  const size_t inp_n = size_t(c.inp_depth()) * inp_lanes_;
  const size_t wgt_n = size_t(c.wgt_depth()) * wgt_lanes_;
  const size_t acc_n = size_t(c.acc_depth()) * acc_lanes_;
  if (inp_is_int8()) inp8.assign(inp_n, 0); else inp16.assign(inp_n, 0);
  if (wgt_is_int8()) wgt8.assign(wgt_n, 0); else wgt16.assign(wgt_n, 0);
  if (has_vnni_weights_) {
    inp_vnni.assign(inp_n, 0x80);
    wgt_vnni.assign(wgt_n, 0);
    wgt_corr.assign(size_t(c.wgt_depth()) * c.block_out(), 0);
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
    if (has_vnni_weights_) {
      const int8_t* x = inp8.data() + off;
      uint8_t* v = inp_vnni.data() + off;
      for (size_t k = 0; k < n; ++k) v[k] = uint8_t(x[k]) ^ 0x80;
    }
  } else {
    hw::unpack_lanes(bytes, config_.inp_width(), int(n), inp16.data() + off);
  }
}

void OnChipMemory::zero_inp(uint32_t index, uint32_t count) {
  const size_t off = size_t(index) * inp_lanes_, n = size_t(count) * inp_lanes_;
  if (inp_is_int8()) {
    std::fill_n(inp8.data() + off, n, 0);
    if (has_vnni_weights_) std::fill_n(inp_vnni.data() + off, n, 0x80);
  } else {
    std::fill_n(inp16.data() + off, n, 0);
  }
}

void OnChipMemory::write_wgt(uint32_t index, const uint8_t* bytes, uint32_t count) {
  const size_t off = size_t(index) * wgt_lanes_, n = size_t(count) * wgt_lanes_;
  if (wgt_is_int8()) {
    hw::unpack_lanes(bytes, config_.wgt_width(), int(n), wgt8.data() + off);
  } else {
    hw::unpack_lanes(bytes, config_.wgt_width(), int(n), wgt16.data() + off);
  }
  if (has_vnni_weights_) {
    for (uint32_t k = 0; k < count; ++k) rebuild_vnni(index + k);
  }
}

void OnChipMemory::rebuild_vnni(uint32_t index) {
  const int bo = config_.block_out();
  arrange_vnni_tile(wgt8.data() + size_t(index) * wgt_lanes_, bo, config_.block_in(),
                    wgt_vnni.data() + size_t(index) * wgt_lanes_,
                    wgt_corr.data() + size_t(index) * bo);
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
