// OnChipMemory: the accelerator's SRAMs (micro-op, input, weight, accumulator) and the separate
// output buffer, kept in a compute-friendly form: one integer per lane (sub-byte lanes unpacked),
// micro-ops decoded once when loaded, operands also pre-arranged for the SIMD GEMM kernel this CPU
// runs (VNNI or AVX2). Every observable byte (what STORE writes) is the hardware's.
#pragma once

#include <cstdint>
#include <vector>

#include "hw/hw_config.h"
#include "hw/insn.h"
#include "hw/isa_layout.h"
#include "sim/gemm_blocking.h"

namespace tauvta::sim {

// The SIMD GEMM kernel a memory keeps extra operand layouts for. Each layout costs work on every
// load, so a memory builds only the one its kernel reads.
enum class SimdGemm {
  kNone,  // portable kernel only
  kVnni,  // AVX-512 VNNI: int8-or-narrower inputs and weights, accumulators of at most 32 bits
  kAvx2,  // AVX2 vpmaddwd: any input and weight widths (int16 pairs), any accumulator width
};
const char* simd_gemm_name(SimdGemm kernel);
// Whether `kernel` can run `c`'s GEMMs on this CPU (its instructions and the block shape).
bool simd_gemm_supported(SimdGemm kernel, const hw::HwConfig& c);
// The fastest supported kernel: VNNI, else AVX2, else none.
SimdGemm best_simd_gemm(const hw::HwConfig& c);

class OnChipMemory {
 public:
  explicit OnChipMemory(const hw::HwConfig& c) : OnChipMemory(c, best_simd_gemm(c)) {}
  // Keeps the layouts of `simd` (tests and benchmarks pick a kernel); throws tauvta::Error when
  // this CPU or the config's shape cannot run it.
  OnChipMemory(const hw::HwConfig& c, SimdGemm simd);
  void clear();

  const hw::HwConfig& config() const { return config_; }
  // Lanes per element.
  int inp_lanes() const { return inp_lanes_; }  // BATCH * BLOCK_IN
  int wgt_lanes() const { return wgt_lanes_; }  // BLOCK_OUT * BLOCK_IN
  int acc_lanes() const { return acc_lanes_; }  // BATCH * BLOCK_OUT (also output lanes)

  bool inp_is_int8() const { return config_.inp_width() <= 8; }
  bool wgt_is_int8() const { return config_.wgt_width() <= 8; }
  bool acc_is_int32() const { return config_.acc_width() <= 32; }
  bool out_is_int8() const { return config_.out_width() <= 8; }
  // The SIMD GEMM kernel whose layouts are kept (run_gemm uses it on its fast path).
  SimdGemm simd_gemm() const { return simd_gemm_; }
  // True when weights are also kept in the [ic/4][oc][4] layout with 128*row-sum corrections
  // that the VNNI GEMM kernel reads.
  bool has_vnni_weights() const { return simd_gemm_ == SimdGemm::kVnni; }
  // True when weights are also kept as [ic/2][oc][2] int16 pairs for the AVX2 kernel.
  bool has_pair_weights() const { return simd_gemm_ == SimdGemm::kAvx2; }
  // True when 16-bit inputs and weights into 64-bit accumulators also keep the forms of the wide
  // kernel's three-instruction split (wide_gemm.h): inputs as inp_split16, the weights' high
  // bytes in the VNNI form (wgt_vnni, wgt_corr) beside the pairs.
  bool has_high_byte_vnni() const { return high_byte_vnni_; }

  // Micro-ops, decoded both ways at load time so GEMM/ALU never decode per micro-op.
  std::vector<uint32_t> uop_raw;
  std::vector<hw::Uop> uop_gemm, uop_alu;
  // Inputs: int8 lanes when the input width is at most 8 bits, otherwise int16.
  std::vector<int8_t> inp8;
  std::vector<int16_t> inp16;
  // Weights [element][oc][ic]: int8 or int16 lanes.
  std::vector<int8_t> wgt8;
  std::vector<int16_t> wgt16;
  // VNNI form of each input lane: x + 128 as an unsigned byte (x ^ 0x80).
  std::vector<uint8_t> inp_vnni;
  // The split's form of 16-bit input lanes, 12 bytes per 4 lanes so one pointer reads all three
  // operands: the two int16 pairs, then the 4 high bytes (x >> 8) + 128 as VNNI's unsigned bytes.
  std::vector<uint8_t> inp_split16;
  // VNNI form of each weight element: [ic/4][oc][4] bytes, and 128 * sum_ic w[oc][ic] per oc
  // (with high-byte VNNI, of the high bytes w >> 8).
  std::vector<int8_t> wgt_vnni;
  std::vector<int32_t> wgt_corr;
  // AVX2 form: int8-or-narrower input lanes widened to int16 (16-bit inputs are read from inp16),
  // and each weight element as [ic/2][oc][2] int16 pairs, so one vpmaddwd of a broadcast input
  // pair covers 8 output channels.
  std::vector<int16_t> inp_wide;
  std::vector<int16_t> wgt_pairs;
  // Accumulators: int32 lanes for 16/32-bit accumulators (kept sign-extended), int64 for 64-bit.
  std::vector<int32_t> acc32;
  std::vector<int64_t> acc64;
  // Output buffer: int8 or int16 lanes holding the low OUT bits, sign-extended.
  std::vector<int8_t> out8;
  std::vector<int16_t> out16;
  // The SIMD kernels' whole-instruction plans of recent GEMM instructions.
  GemmPlanCache gemm_plans;

  // Packed DRAM bytes <-> internal form, `count` consecutive elements starting at `index`
  // (callers check the range).
  void write_uops(uint32_t index, const uint8_t* bytes, uint32_t count, const hw::IsaLayout& l);
  void write_inp(uint32_t index, const uint8_t* bytes, uint32_t count);
  void zero_inp(uint32_t index, uint32_t count);
  void write_wgt(uint32_t index, const uint8_t* bytes, uint32_t count);
  void write_acc(uint32_t index, const uint8_t* bytes, uint32_t count);
  void zero_acc(uint32_t index, uint32_t count);
  void read_out(uint32_t index, uint8_t* bytes, uint32_t count) const;

 private:
  void rebuild_simd_weights(uint32_t index);
  // inp_split16 of the `n` input lanes from lane `off` (both multiples of 4), from inp16.
  void fill_split16(size_t off, size_t n);

  hw::HwConfig config_;
  int inp_lanes_, wgt_lanes_, acc_lanes_;
  SimdGemm simd_gemm_;
  bool high_byte_vnni_ = false;
};

}  // namespace tauvta::sim
