// The accelerator's integer arithmetic, element by element: accumulator wrapping, the tensor
// ALU's ADD and SHR (docs/vta_isa.md section 4), the requantization sequence ADD (rounding), SHR, MIN, MAX,
// truncation to the output width, and the rounding division of average pools. Every integer
// operator of the executor computes through these, so they are the definition of bit-exactness.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tauvta::cpu {

// The low `bits` bits of v as a signed two's-complement number (bits in 1..64).
inline int64_t wrap_bits(int64_t v, int bits) {
  if (bits >= 64) return v;
  const int s = 64 - bits;
  return int64_t(uint64_t(v) << s) >> s;
}

// ALU ADD: wrapping sum in the accumulator width.
inline int64_t alu_add(int64_t a, int64_t b, int acc_bits) {
  return wrap_bits(int64_t(uint64_t(a) + uint64_t(b)), acc_bits);
}

// ALU SHR by a signed amount: s >= 0 arithmetic right shift, s < 0 left shift by -s wrapping in
// the accumulator width. `a` is an accumulator value (already within acc_bits).
inline int64_t alu_shr(int64_t a, int64_t s, int acc_bits) {
  if (s >= 0) return a >> std::min<int64_t>(s, 63);
  if (-s >= acc_bits) return 0;
  return wrap_bits(int64_t(uint64_t(a) << -s), acc_bits);
}

// ALU MUL (a tauvta extension): the wrapping product.
inline int64_t alu_mul(int64_t a, int64_t b, int acc_bits) {
  return wrap_bits(int64_t(uint64_t(a) * uint64_t(b)), acc_bits);
}

// The output stage of every requantizing operator.
struct Requant {
  int acc_bits = 32;
  int out_bits = 8;
  int64_t clip_min = -128, clip_max = 127;
};

// acc -> output: wrap to the accumulator, ADD 2^(s-1) when s > 0 (round half up), SHR s,
// MIN clip_max, MAX clip_min, keep the low out_bits bits.
inline int64_t requantize(int64_t acc, int64_t shift, const Requant& r) {
  int64_t v = wrap_bits(acc, r.acc_bits);
  if (shift > 0) v = alu_add(v, int64_t(1) << std::min<int64_t>(shift - 1, 62), r.acc_bits);
  v = alu_shr(v, shift, r.acc_bits);
  v = std::min(v, r.clip_max);
  v = std::max(v, r.clip_min);
  return wrap_bits(v, r.out_bits);
}

// requantize() over a row of 32-bit wrapped sums plus a bias: out[i] = requantize(int32(acc[i] +
// bias), shift, r). The common case (32-bit accumulator, right shift, clip bounds inside the output
// range) runs as straight int32 arithmetic the compiler vectorizes; every other case goes element
// by element through requantize().
inline void requantize_row(const uint32_t* acc, uint32_t bias, int64_t shift, const Requant& r, int32_t* out,
                           int64_t n) {
  const int64_t out_lo = -(int64_t(1) << (r.out_bits - 1)), out_hi = (int64_t(1) << (r.out_bits - 1)) - 1;
  if (r.acc_bits == 32 && shift > 0 && shift < 32 && r.clip_min >= out_lo && r.clip_max <= out_hi &&
      r.clip_min <= r.clip_max) {
    const uint32_t add = bias + (uint32_t(1) << (shift - 1));
    const int s = int(shift);
    const int32_t lo = int32_t(r.clip_min), hi = int32_t(r.clip_max);
    for (int64_t i = 0; i < n; ++i) {
      int32_t v = int32_t(acc[i] + add) >> s;
      v = v < hi ? v : hi;
      out[i] = v > lo ? v : lo;
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) out[i] = int32_t(requantize(int32_t(acc[i] + bias), shift, r));
}

// Average pools: a window sum `sum` of `count` elements, requantized by `shift`. A power-of-two
// count is the ALU sequence above with shift + log2(count); any other count is an exact
// division rounding half up, floor(sum * 2^-shift / count + 1/2), which the accelerator cannot
// do (the CPU does it), then the same clip and truncation.
inline int64_t average_requantize(int64_t sum, int64_t count, int64_t shift, const Requant& r) {
  if ((count & (count - 1)) == 0) {
    int64_t log2 = 0;
    while ((int64_t(1) << log2) < count) ++log2;
    return requantize(sum, shift + log2, r);
  }
  int64_t num = wrap_bits(sum, r.acc_bits);
  int64_t den = count;
  if (shift < 0) {
    num = alu_shr(num, shift, r.acc_bits);
  } else {
    den = count << std::min<int64_t>(shift, 62 - 16);
  }
  int64_t q = num / den, rem = num % den;
  if (rem < 0) {  // floor division
    q -= 1;
    rem += den;
  }
  if (rem >= den - rem) q += 1;  // 2 * rem >= den without overflow
  q = std::min(q, r.clip_max);
  q = std::max(q, r.clip_min);
  return wrap_bits(q, r.out_bits);
}

}  // namespace tauvta::cpu
