// The integer GEMM under QConv, QConvTranspose and QGemm: int16 operands (every activation and
// weight width is at most 16 bits), products summed modulo 2^32, which is the accelerator's
// wrapping accumulator for 32-bit accumulators and, reduced further, for 16-bit ones. An AVX-512
// kernel (vpmaddwd: pairs of int16 products summed into int32 lanes, wrapping) is picked at run
// time when the CPU has it; the portable kernel gives identical results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tauvta::cpu {

// Left operand: `rows` rows of K int16 values; rows are padded to a multiple of kRowBlock and K to
// an even count, with zeros.
struct RowPanel {
  static constexpr int64_t kRowBlock = 4;
  int64_t rows = 0, k = 0, rows_padded = 0, kp = 0;
  std::vector<int16_t> data;  // [rows_padded][kp]
  void resize(int64_t rows_, int64_t k_);
  int16_t* row(int64_t r) { return data.data() + r * kp; }
  const int16_t* row(int64_t r) const { return data.data() + r * kp; }
};

// Right operand: K x `cols`, stored as pairs of K rows interleaved per column ([kp/2][cols][2]),
// columns padded to a multiple of kColBlock, all padding zero.
struct PairPanel {
  static constexpr int64_t kColBlock = 16;
  int64_t cols = 0, k = 0, cols_padded = 0, kp = 0;
  std::vector<int16_t> data;  // [kp/2][cols_padded][2]
  void resize(int64_t k_, int64_t cols_);
  int16_t& at(int64_t kk, int64_t c) { return data[std::size_t(((kk >> 1) * cols_padded + c) * 2 + (kk & 1))]; }
  int16_t at(int64_t kk, int64_t c) const {
    return data[std::size_t(((kk >> 1) * cols_padded + c) * 2 + (kk & 1))];
  }
};

// out[r * ld + c] = sum_k a[r][k] * b[k][c] modulo 2^32, for r < a.rows and c < b.cols.
// Requires a.kp == b.kp.
void gemm_wrap32(const RowPanel& a, const PairPanel& b, uint32_t* out, int64_t ld, bool portable);

// Whether the AVX-512 kernel runs on this CPU (and is not disabled by `portable`).
bool fast_int_gemm_available();

}  // namespace tauvta::cpu
