// The element arithmetic of the integer reference against hand-computed values: wrapping, the
// ALU's signed SHR, requantization (rounding, clips, truncation) and average-pool division.
#include <gtest/gtest.h>

#include <cstdint>

#include "cpu/int_ops_arith.h"

namespace {

using tauvta::cpu::alu_add;
using tauvta::cpu::alu_mul;
using tauvta::cpu::alu_shr;
using tauvta::cpu::average_requantize;
using tauvta::cpu::Requant;
using tauvta::cpu::requantize;
using tauvta::cpu::wrap_bits;

TEST(IntArith, WrapKeepsLowBitsSigned) {
  EXPECT_EQ(wrap_bits(200, 8), -56);
  EXPECT_EQ(wrap_bits(-129, 8), 127);
  EXPECT_EQ(wrap_bits(127, 8), 127);
  EXPECT_EQ(wrap_bits(1, 1), -1);  // a 1-bit value is 0 or -1
  EXPECT_EQ(wrap_bits(2, 1), 0);
  EXPECT_EQ(wrap_bits(2, 2), -2);
  EXPECT_EQ(wrap_bits(9, 4), -7);
  EXPECT_EQ(wrap_bits(0x12345678, 16), 0x5678);
  EXPECT_EQ(wrap_bits(0x8000, 16), -32768);
  EXPECT_EQ(wrap_bits(int64_t(1) << 31, 32), INT32_MIN);
  EXPECT_EQ(wrap_bits(INT64_MIN, 64), INT64_MIN);
}

TEST(IntArith, AluAddWrapsAtAccumulatorWidth) {
  EXPECT_EQ(alu_add(INT32_MAX, 1, 32), INT32_MIN);
  EXPECT_EQ(alu_add(32767, 1, 16), -32768);
  EXPECT_EQ(alu_add(-32768, -1, 16), 32767);
  EXPECT_EQ(alu_add(100, -300, 32), -200);
}

TEST(IntArith, AluShrBySignedAmount) {
  EXPECT_EQ(alu_shr(-7, 1, 32), -4);  // arithmetic: floor(-3.5)
  EXPECT_EQ(alu_shr(7, 1, 32), 3);
  EXPECT_EQ(alu_shr(-1, 5, 32), -1);
  EXPECT_EQ(alu_shr(7, -2, 32), 28);                     // negative amount: left shift
  EXPECT_EQ(alu_shr(0x40000000, -1, 32), INT32_MIN);     // ... wrapping at 32 bits
  EXPECT_EQ(alu_shr(0x4000, -1, 16), -32768);            // ... and at 16
  EXPECT_EQ(alu_shr(0x4001, -2, 16), 4);                 // 0x10004 -> low 16 bits
  EXPECT_EQ(alu_shr(5, -16, 16), 0);                     // everything shifted out
  EXPECT_EQ(alu_shr(-12345, 31, 32), -1);
  EXPECT_EQ(alu_shr(12345, 31, 32), 0);
}

TEST(IntArith, AluMulWraps) {
  EXPECT_EQ(alu_mul(300, 300, 16), 90000 - 65536);
  EXPECT_EQ(alu_mul(-3, 7, 32), -21);
}

TEST(IntArith, RequantizeRoundsHalfUp) {
  const Requant r{32, 8, -128, 127};
  EXPECT_EQ(requantize(100, 3, r), 13);    // 12.5 -> 13
  EXPECT_EQ(requantize(99, 3, r), 12);     // 12.375 -> 12
  EXPECT_EQ(requantize(-100, 3, r), -12);  // -12.5 -> -12 (half up, not away from zero)
  EXPECT_EQ(requantize(-101, 3, r), -13);  // -12.625 -> -13
  EXPECT_EQ(requantize(-4, 3, r), 0);      // -0.5 -> 0
  EXPECT_EQ(requantize(-5, 3, r), -1);
  EXPECT_EQ(requantize(77, 0, r), 77);     // no shift, no rounding constant
}

TEST(IntArith, RequantizeNegativeShiftIsLeftShift) {
  const Requant r{32, 8, -128, 127};
  EXPECT_EQ(requantize(5, -3, r), 40);
  EXPECT_EQ(requantize(20, -3, r), 127);   // 160 clipped
  EXPECT_EQ(requantize(-20, -3, r), -128);
  // 16-bit accumulator: 5000 << 4 = 80000 wraps to 14464, then clips.
  const Requant r16{16, 16, -32768, 32767};
  EXPECT_EQ(requantize(5000, -4, r16), 14464);
}

TEST(IntArith, RequantizeClipsWithMinThenMax) {
  const Requant relu{32, 8, 0, 127};
  EXPECT_EQ(requantize(5000, 2, relu), 127);
  EXPECT_EQ(requantize(-50, 0, relu), 0);
  const Requant relu6{32, 8, 0, 96};  // Relu6 at frac 4
  EXPECT_EQ(requantize(7 * 16 * 4, 2, relu6), 96);
  const Requant crossed{32, 8, 10, 5};  // MIN first, then MAX: the lower bound wins
  EXPECT_EQ(requantize(0, 0, crossed), 10);
  EXPECT_EQ(requantize(100, 0, crossed), 10);
}

TEST(IntArith, RequantizeTruncatesToOutputWidth) {
  // Clip bounds wider than the output: the value is cut to its low bits, not saturated.
  const Requant wide{32, 8, -1000, 1000};
  EXPECT_EQ(requantize(200, 0, wide), -56);
  EXPECT_EQ(requantize(-300, 0, wide), -44);
}

TEST(IntArith, RequantizeRoundingAddWraps) {
  const Requant r{32, 32, INT32_MIN, INT32_MAX};
  // INT32_MAX + 1 wraps to INT32_MIN before the shift, as the ALU's ADD does.
  EXPECT_EQ(requantize(INT32_MAX, 1, r), -1073741824);
}

TEST(IntArith, RequantizeWrapsTheAccumulatorFirst) {
  // 40000 in a 16-bit accumulator is -25536; -25536 / 256 = -99.75 rounds to -100.
  const Requant r16{16, 8, -128, 127};
  EXPECT_EQ(requantize(40000, 8, r16), -100);
  // 3 * 32767 * 32767 modulo 2^32 = -1073938429; (x + 2^15) >> 16 = -16387.
  const Requant r32{32, 16, -32768, 32767};
  EXPECT_EQ(requantize(int64_t(3) * 32767 * 32767, 16, r32), -16387);
}

TEST(IntArith, RequantizeEveryWidth) {
  for (int bits : {1, 2, 4, 8, 16}) {
    const int64_t lo = -(int64_t(1) << (bits - 1)), hi = (int64_t(1) << (bits - 1)) - 1;
    const Requant r{32, bits, lo, hi};
    EXPECT_EQ(requantize(1 << 20, 0, r), hi) << bits;
    EXPECT_EQ(requantize(-(1 << 20), 0, r), lo) << bits;
    EXPECT_EQ(requantize(0, 0, r), 0) << bits;
  }
  EXPECT_EQ(requantize(1, 0, Requant{32, 1, -1, 0}), 0);   // 1 bit holds -1 and 0
  EXPECT_EQ(requantize(-3, 1, Requant{32, 1, -1, 0}), -1);
  EXPECT_EQ(requantize(3, 1, Requant{32, 2, -2, 1}), 1);    // (3 + 1) >> 1 = 2, clipped to 1
  EXPECT_EQ(requantize(-9, 1, Requant{32, 4, -8, 7}), -4);  // (-9 + 1) >> 1
  EXPECT_EQ(requantize(70000, 1, Requant{32, 16, -32768, 32767}), 32767);
}

TEST(IntArith, AverageOfPowerOfTwoCountIsAddShift) {
  const Requant r{32, 8, -128, 127};
  EXPECT_EQ(average_requantize(10, 4, 0, r), 3);    // 2.5 -> 3
  EXPECT_EQ(average_requantize(-10, 4, 0, r), -2);  // -2.5 -> -2
  EXPECT_EQ(average_requantize(9, 4, 0, r), 2);     // 2.25
  EXPECT_EQ(average_requantize(10, 4, -1, r), 5);   // one more fraction bit: 5.0
  EXPECT_EQ(average_requantize(7, 1, 0, r), 7);
}

TEST(IntArith, AverageOfOtherCountsDividesExactly) {
  const Requant r{32, 8, -128, 127};
  EXPECT_EQ(average_requantize(10, 3, 0, r), 3);    // 3.33
  EXPECT_EQ(average_requantize(11, 3, 0, r), 4);    // 3.67
  EXPECT_EQ(average_requantize(-10, 3, 0, r), -3);
  EXPECT_EQ(average_requantize(-11, 3, 0, r), -4);
  EXPECT_EQ(average_requantize(15, 6, 0, r), 3);    // 2.5 -> 3
  EXPECT_EQ(average_requantize(-15, 6, 0, r), -2);  // -2.5 -> -2, half up like the ALU
  EXPECT_EQ(average_requantize(10, 3, -1, r), 7);   // 20 / 3 = 6.67
  EXPECT_EQ(average_requantize(10, 3, 1, r), 2);    // 10 / 6 = 1.67
  EXPECT_EQ(average_requantize(49 * 127, 49, 0, r), 127);
  EXPECT_EQ(average_requantize(49 * 200, 49, 0, r), 127);  // clipped
}

}  // namespace
