// One test per row of docs/vta_isa.md section 5 ("Hardware vs fsim"): where TVM's fsim differs from the
// HLS hardware, tauvta follows the hardware. Each test runs a small hand-written program on
// sim::Simulator and on the ReferenceInterpreter and checks both against bytes computed by hand
// (in the comments), chosen so that the fsim behaviour would give different bytes.
//
// Config for all: 1x2x2, int8 inputs/weights, int32 accumulators; depths uop 16, inp 8, wgt 8,
// acc/out 8. Element bytes: INP 2, WGT 4 (lanes oc*2+ic), ACC 8, OUT 2. Micro-ops (A = I = W = 3):
// GEMM acc | inp << 3 | wgt << 6; ALU dst | src << 3.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "hw/hw_config.h"
#include "sim/dram.h"
#include "sim/random_programs.h"
#include "sim/reference_interpreter.h"
#include "sim/simulator.h"

namespace tauvta::testing {
namespace {

using hw::AluOp;
using hw::MemId;

constexpr uint8_t kUop = uint8_t(MemId::kUop), kWgt = uint8_t(MemId::kWgt),
                  kInp = uint8_t(MemId::kInp), kAcc = uint8_t(MemId::kAcc),
                  kOutMem = uint8_t(MemId::kOut), kAcc8 = uint8_t(MemId::kAcc8);

hw::HwConfig tiny() { return make_config(3, 3, 5, 0, 1, 1, 4, 3, 3, 3); }

uint32_t gemm_uop(uint32_t acc, uint32_t inp, uint32_t wgt) { return acc | inp << 3 | wgt << 6; }
uint32_t alu_uop(uint32_t dst, uint32_t src) { return dst | src << 3; }

class Image {
 public:
  Image() : bytes_(4096, 0) {}
  Image& bytes(size_t at, std::initializer_list<int> v) {
    for (int b : v) bytes_.at(at++) = uint8_t(b);
    return *this;
  }
  Image& words(size_t at, std::initializer_list<int64_t> v) {  // 32-bit little-endian
    for (int64_t w : v) {
      for (int b = 0; b < 4; ++b) bytes_.at(at++) = uint8_t(uint64_t(w) >> (8 * b));
    }
    return *this;
  }
  const std::vector<uint8_t>& data() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

struct Results {
  std::vector<uint8_t> ref, sim;
};

Results run_both(const hw::HwConfig& c, const std::vector<hw::Insn>& body, const Image& image) {
  const auto insns = encode_serialized(c, body);
  Results r;
  ReferenceInterpreter ref(c, image.data().size());
  ref.dram() = image.data();
  ref.run(insns);
  r.ref = ref.dram();
  sim::Dram dram(image.data().size());
  dram.write(0, image.data());
  sim::Simulator s(c, dram);
  s.run(insns);
  r.sim.resize(image.data().size());
  dram.read(0, r.sim);
  return r;
}

void expect_bytes(const Results& r, size_t at, const std::vector<int>& want, const char* what) {
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(int(r.ref.at(at + k)), want[k] & 0xFF)
        << what << ": reference byte " << at + k << " (offset " << k << ")";
    EXPECT_EQ(int(r.sim.at(at + k)), want[k] & 0xFF)
        << what << ": simulator byte " << at + k << " (offset " << k << ")";
  }
}

// Row "store source": STORE reads the output buffer, which only GEMM and ALU write; a LOAD ACC
// leaves it alone (fsim would truncate the accumulators at store time).
TEST(HwVsFsim, StoreReadsTheOutputBuffer) {
  Image img;
  img.words(0, {alu_uop(0, 0)});
  img.words(64, {300, -5});  // ACC element 8
  const auto r = run_both(
      tiny(),
      {load_insn(kAcc, 0, 8, 1, 1, 1), load_insn(kUop, 0, 0, 1, 1, 1),
       store_insn(0, 100, 1, 1, 1),                      // bytes 200..201: out still {0, 0}
       alu_insn(AluOp::kAdd, true, 0, {}),               // out = low 8 bits of acc
       store_insn(0, 101, 1, 1, 1),                      // bytes 202..203: {300 & 255, -5}
       store_insn(0, 102, 1, 1, 1, kAcc)},               // memory_type ignored: still OUT
      img);
  expect_bytes(r, 200, {0, 0}, "store before any GEMM/ALU");
  expect_bytes(r, 202, {0x2C, 0xFB}, "store after ALU");
  expect_bytes(r, 204, {0x2C, 0xFB}, "store with memory_type ACC");
}

// Row "GEMM reset": acc = 0 but out = trunc(old + dot) (fsim leaves out untouched).
TEST(HwVsFsim, GemmResetWritesOutputOfOldPlusDot) {
  Image img;
  img.words(0, {gemm_uop(0, 0, 0), alu_uop(0, 0)});
  img.bytes(16, {1, 2});          // INP element 8: {1, 2}
  img.bytes(32, {3, 4, 5, 6});    // WGT element 8: oc0 {3, 4}, oc1 {5, 6}
  img.words(64, {100, 20});       // ACC element 8: {100, 20}
  // dot: oc0 1*3 + 2*4 = 11, oc1 1*5 + 2*6 = 17.
  const auto r = run_both(
      tiny(),
      {load_insn(kUop, 0, 0, 1, 2, 2), load_insn(kInp, 0, 8, 1, 1, 1),
       load_insn(kWgt, 0, 8, 1, 1, 1), load_insn(kAcc, 0, 8, 1, 1, 1),
       gemm_insn(true, {.uop_bgn = 0, .uop_end = 1}),
       store_insn(0, 100, 1, 1, 1),                                       // out {111, 37}
       alu_insn(AluOp::kAdd, true, 0, {.uop_bgn = 1, .uop_end = 2}),      // out = acc = {0, 0}
       store_insn(0, 101, 1, 1, 1),
       gemm_insn(false, {.uop_bgn = 0, .uop_end = 1}),                    // acc = 0 + dot
       gemm_insn(false, {.uop_bgn = 0, .uop_end = 1}),                    // acc = 2 * dot
       store_insn(0, 102, 1, 1, 1)},                                      // out {22, 34}
      img);
  expect_bytes(r, 200, {111, 37}, "out after GEMM reset");
  expect_bytes(r, 202, {0, 0}, "acc after GEMM reset");
  expect_bytes(r, 204, {22, 34}, "accumulating after reset");
}

// Row "SHR amount": the low LOG_ACC_WIDTH (5) bits of the operand as a signed shift; negative
// shifts left, wrapping at 32 bits (fsim uses the whole 32-bit value).
TEST(HwVsFsim, ShrAmountIsLowBitsSigned) {
  struct Case {
    const char* what;
    std::vector<int32_t> imms;  // applied in order to acc[0] = {-64, 1000}
    int want0, want1;           // output bytes
  };
  const Case cases[] = {
      {"imm 33 -> 1", {33}, 0xE0, 0xF4},                    // -32, 500
      {"imm 31 -> -1 (left 1)", {31}, 0x80, 0xD0},          // -128, 2000
      {"imm -3 -> left 3", {-3}, 0x00, 0x40},               // -512, 8000
      {"imm 16 -> left 16, then 15", {16, 15}, 0x80, 0xD0},  // (x << 16) >> 15 = x << 1
      {"imm 48 -> left 16, then 15", {48, 15}, 0x80, 0xD0},
  };
  for (const Case& k : cases) {
    Image img;
    img.words(0, {alu_uop(0, 0)});
    img.words(64, {-64, 1000});
    std::vector<hw::Insn> body = {load_insn(kUop, 0, 0, 1, 1, 1), load_insn(kAcc, 0, 8, 1, 1, 1)};
    for (int32_t imm : k.imms) body.push_back(alu_insn(AluOp::kShr, true, imm, {}));
    body.push_back(store_insn(0, 100, 1, 1, 1));
    expect_bytes(run_both(tiny(), body, img), 200, {k.want0, k.want1}, k.what);
  }
  {  // Tensor operand: acc[1] = {33, -1} -> shifts 1 and -1.
    Image img;
    img.words(0, {alu_uop(0, 1)});
    img.words(64, {-64, 1000, 33, -1});
    const auto r = run_both(tiny(),
                            {load_insn(kUop, 0, 0, 1, 1, 1), load_insn(kAcc, 0, 8, 1, 2, 2),
                             alu_insn(AluOp::kShr, false, 0, {}), store_insn(0, 100, 1, 1, 1)},
                            img);
    expect_bytes(r, 200, {0xE0, 0xD0}, "tensor shift amounts");  // -32, 2000
  }
  {  // Left shift wraps at 32 bits: 0x60000000 << 2 = 0x80000000 (negative); >> 31 gives -1.
    Image img;
    img.words(0, {alu_uop(0, 0)});
    img.words(64, {0x60000000, 3});
    const auto r = run_both(
        tiny(),
        {load_insn(kUop, 0, 0, 1, 1, 1), load_insn(kAcc, 0, 8, 1, 1, 1),
         alu_insn(AluOp::kShr, true, 30, {}),  // 30 = 0b11110 -> -2: left 2
         alu_insn(AluOp::kShr, true, 15, {}), alu_insn(AluOp::kShr, true, 15, {}),
         alu_insn(AluOp::kShr, true, 1, {}), store_insn(0, 100, 1, 1, 1)},
        img);
    expect_bytes(r, 200, {0xFF, 0x00}, "left shift wraps");  // -1, 12 >> 31 = 0
  }
}

// Row "MUL": the HLS lacks it; tauvta implements the wrapping product (switchable off).
TEST(HwVsFsim, MulIsTheWrappingProduct) {
  Image img;
  img.words(0, {alu_uop(0, 0), alu_uop(1, 1)});
  img.words(64, {7, -3, 0x10000, 0x7FFFFFFF});
  const auto r = run_both(
      tiny(),
      {load_insn(kUop, 0, 0, 1, 2, 2), load_insn(kAcc, 0, 8, 1, 2, 2),
       alu_insn(AluOp::kMul, true, 5, {.uop_bgn = 0, .uop_end = 1}),   // {35, -15}
       alu_insn(AluOp::kMul, false, 0, {.uop_bgn = 1, .uop_end = 2}),  // squares: {0, 1} wrapped
       store_insn(0, 100, 1, 2, 2),
       // 2^32 and 0x3FFFFFFF00000001 wrap to 0 and 1: shifting right by 30 leaves {0, 0}.
       alu_insn(AluOp::kShr, true, 15, {.uop_bgn = 1, .uop_end = 2}),
       alu_insn(AluOp::kShr, true, 15, {.uop_bgn = 1, .uop_end = 2}),
       store_insn(1, 102, 1, 1, 1)},
      img);
  expect_bytes(r, 200, {35, 0xF1, 0x00, 0x01}, "MUL results");
  expect_bytes(r, 204, {0, 0}, "MUL wrapped at 32 bits");

  hw::HwConfig off = tiny();
  off.impl.alu_mul = false;
  const auto insns = encode_serialized(off, {alu_insn(AluOp::kMul, true, 5, {})});
  sim::Dram dram(4096);
  sim::Simulator s(off, dram);
  EXPECT_THROW(s.run(insns), Error);
  ReferenceInterpreter ref(off, 4096);
  EXPECT_THROW(ref.run(insns), Error);
}

// Row "WGT load padding": ignored; the rows land densely at sram_base (fsim would zero-pad).
TEST(HwVsFsim, WgtLoadIgnoresPadding) {
  Image img;
  img.words(0, {gemm_uop(0, 0, 0), gemm_uop(1, 1, 0), gemm_uop(2, 0, 1), gemm_uop(3, 1, 1),
                gemm_uop(4, 0, 2), gemm_uop(5, 1, 2)});
  img.bytes(32, {1, 0, 0, 1});  // INP elements 16, 17: {1, 0} and {0, 1}
  img.bytes(64, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});  // WGT elements 16..18 (A0 A1 A2)
  img.bytes(80, {-1, -2, -3, -4});                          // WGT element 20 (B)
  const auto r = run_both(
      tiny(),
      {load_insn(kUop, 0, 0, 1, 6, 6), load_insn(kInp, 0, 16, 1, 2, 2),
       load_insn(kWgt, 0, 16, 1, 3, 3),
       load_insn(kWgt, 1, 20, 1, 1, 1, {.y0 = 1, .y1 = 1, .x0 = 1, .x1 = 0}),  // wgt[1] = B only
       gemm_insn(true, {.uop_bgn = 0, .uop_end = 6}), store_insn(0, 100, 1, 6, 6)},
      img);
  // out[2k] = {w[k] oc0 ic0, oc1 ic0}, out[2k+1] = {oc0 ic1, oc1 ic1}; w = A0, B, A2.
  expect_bytes(r, 200, {1, 3, 2, 4, -1, -3, -2, -4, 9, 11, 10, 12}, "weights after padded load");
}

// Row "UOP load": 1D, x_size micro-ops only (fsim loads a padded 2D block).
TEST(HwVsFsim, UopLoadIs1D) {
  Image img;
  img.words(0, {alu_uop(0, 0), alu_uop(1, 0), alu_uop(2, 0), alu_uop(3, 0), alu_uop(4, 0),
                alu_uop(5, 0), alu_uop(6, 0), alu_uop(7, 0)});
  img.words(64, {alu_uop(7, 0), alu_uop(7, 0)});  // words 16, 17
  for (size_t w = 18; w < 60; ++w) img.words(w * 4, {alu_uop(3, 0)});  // a 2D load would see these
  const auto r = run_both(
      tiny(),
      {load_insn(kUop, 0, 0, 1, 8, 8),
       load_insn(kUop, 2, 16, 3, 2, 5, {.y0 = 1, .y1 = 1, .x0 = 1, .x1 = 1}),
       // Counts how many micro-ops in [0, 8) name each dst: acc starts at 0.
       alu_insn(AluOp::kAdd, true, 1, {.uop_bgn = 0, .uop_end = 8}), store_insn(0, 100, 1, 8, 8)},
      img);
  // uops now dst 0, 1, 7, 7, 4, 5, 6, 7.
  expect_bytes(r, 200, {1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 3, 3}, "micro-op counts");
}

// Row "load with x_size 0 and pads": the pads are written (fsim writes nothing).
TEST(HwVsFsim, EmptyLoadStillWritesPads) {
  Image img;
  img.words(0, {gemm_uop(0, 0, 0), gemm_uop(1, 1, 0), gemm_uop(2, 2, 0), gemm_uop(3, 3, 0),
                gemm_uop(4, 4, 0), gemm_uop(5, 5, 0), gemm_uop(6, 6, 0), gemm_uop(7, 7, 0)});
  img.words(32, {alu_uop(0, 0)});  // word 8
  for (int k = 0; k < 8; ++k) img.bytes(size_t(64 + 2 * k), {k + 1, k + 17});  // INP elems 32..39
  img.bytes(128, {1, 0, 0, 1});                                               // WGT elem 32: I
  img.words(512, {11, 12, 21, 22, 31, 32, 41, 42});  // ACC elements 64..67
  const auto r = run_both(
      tiny(),
      {load_insn(kUop, 0, 0, 1, 9, 9), load_insn(kInp, 0, 32, 1, 8, 8),
       load_insn(kWgt, 0, 32, 1, 1, 1),
       // x_size 0: two rows of [pad][pad] -> inp[0..4) = 0.
       load_insn(kInp, 0, 32, 2, 0, 0, {.y0 = 0, .y1 = 0, .x0 = 1, .x1 = 1}),
       // y_size 0, x_size 3: one pad row of 3 -> inp[5..8) = 0.
       load_insn(kInp, 5, 32, 0, 3, 3, {.y0 = 1, .y1 = 0, .x0 = 0, .x1 = 0}),
       gemm_insn(true, {.uop_bgn = 0, .uop_end = 8}),  // acc is 0: out[k] = inp[k] (identity)
       store_insn(0, 104, 1, 8, 8),                    // bytes 208..223
       load_insn(kAcc, 0, 64, 1, 4, 4),
       // ACC: x_size 0, y_size 0, one pad row of 2 -> acc[1..3) = 0.
       load_insn(kAcc, 1, 64, 0, 0, 0, {.y0 = 1, .y1 = 0, .x0 = 2, .x1 = 0}),
       alu_insn(AluOp::kAdd, true, 0, {.uop_bgn = 8, .uop_end = 9, .iter_out = 4, .dst_out = 1}),
       store_insn(0, 100, 1, 4, 4)},                   // acc[0..4) -> bytes 200..207
      img);
  expect_bytes(r, 200, {11, 12, 0, 0, 0, 0, 41, 42}, "ACC pads from an empty load");
  expect_bytes(r, 208, {0, 0, 0, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0, 0, 0, 0}, "INP pads");
}

// Not a table row but the same kind of quirk: loads of OUT, ACC_8BIT and the undefined ids 6 and
// 7 do nothing (but pass their tokens).
TEST(HwVsFsim, LoadsOfOtherMemoryIdsDoNothing) {
  Image img;
  img.words(0, {alu_uop(0, 0)});
  img.words(64, {5, 6});
  img.words(128, {0x7F7F7F7F, 0x7F7F7F7F, 0x7F7F7F7F, 0x7F7F7F7F});
  const auto r = run_both(
      tiny(),
      {load_insn(kUop, 0, 0, 1, 1, 1), load_insn(kAcc, 0, 8, 1, 1, 1),
       alu_insn(AluOp::kAdd, true, 1, {}),  // out = {6, 7}
       load_insn(kOutMem, 0, 8, 1, 1, 1), load_insn(kAcc8, 0, 16, 1, 1, 1),
       load_insn(6, 0, 16, 1, 1, 1), load_insn(7, 0, 16, 1, 1, 1),
       store_insn(0, 100, 1, 1, 1), alu_insn(AluOp::kAdd, true, 0, {}),
       store_insn(0, 101, 1, 1, 1)},
      img);
  expect_bytes(r, 200, {6, 7, 6, 7}, "output and accumulators untouched");
}

}  // namespace
}  // namespace tauvta::testing
