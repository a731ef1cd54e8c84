#include "runtime/packing.h"

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::runtime {

GemmBlocks gemm_blocks(const hw::HwConfig& c, uint32_t m, uint32_t k, uint32_t n) {
  auto up = [](uint32_t x, int b) { return uint32_t((uint64_t(x) + b - 1) / b); };
  return GemmBlocks{up(m, c.batch()), up(k, c.block_in()), up(n, c.block_out())};
}

namespace {

void check_value(int64_t v, int width, const char* what, size_t index) {
  const int64_t lo = -(int64_t(1) << (width - 1));
  const int64_t hi = (int64_t(1) << (width - 1)) - 1;
  if (v < lo || v > hi) {
    throw Error(fmt::format("{} value {} at index {} does not fit {} signed bits [{}, {}]", what,
                            v, index, width, lo, hi));
  }
}

}  // namespace

std::vector<uint8_t> pack_input_matrix(const hw::HwConfig& c, std::span<const int32_t> a,
                                       uint32_t m, uint32_t k) {
  if (a.size() != size_t(m) * k) {
    throw Error(fmt::format("input matrix has {} values, expected {} x {}", a.size(), m, k));
  }
  const GemmBlocks blk = gemm_blocks(c, m, k, 1);
  const size_t eb = size_t(c.inp_elem_bytes());
  std::vector<uint8_t> out(size_t(blk.m) * blk.k * eb, 0);
  const int w = c.inp_width(), batch = c.batch(), bi = c.block_in();
  for (uint32_t r = 0; r < m; ++r) {
    for (uint32_t col = 0; col < k; ++col) {
      const int32_t v = a[size_t(r) * k + col];
      check_value(v, w, "input", size_t(r) * k + col);
      const size_t elem = size_t(r / batch) * blk.k + col / bi;
      const size_t lane = size_t(r % batch) * bi + col % bi;
      pack_lane(std::span<uint8_t>(out).subspan(elem * eb, eb), w, lane, v);
    }
  }
  return out;
}

std::vector<uint8_t> pack_weight_matrix(const hw::HwConfig& c, std::span<const int32_t> b,
                                        uint32_t k, uint32_t n) {
  if (b.size() != size_t(k) * n) {
    throw Error(fmt::format("weight matrix has {} values, expected {} x {}", b.size(), k, n));
  }
  const GemmBlocks blk = gemm_blocks(c, 1, k, n);
  const size_t eb = size_t(c.wgt_elem_bytes());
  std::vector<uint8_t> out(size_t(blk.n) * blk.k * eb, 0);
  const int w = c.wgt_width(), bi = c.block_in(), bo = c.block_out();
  for (uint32_t r = 0; r < k; ++r) {
    for (uint32_t col = 0; col < n; ++col) {
      const int32_t v = b[size_t(r) * n + col];
      check_value(v, w, "weight", size_t(r) * n + col);
      const size_t elem = size_t(col / bo) * blk.k + r / bi;
      const size_t lane = size_t(col % bo) * bi + r % bi;
      pack_lane(std::span<uint8_t>(out).subspan(elem * eb, eb), w, lane, v);
    }
  }
  return out;
}

std::vector<int32_t> unpack_output_matrix(const hw::HwConfig& c, std::span<const uint8_t> packed,
                                          uint32_t m, uint32_t n) {
  const GemmBlocks blk = gemm_blocks(c, m, 1, n);
  const size_t eb = size_t(c.out_elem_bytes());
  if (packed.size() < size_t(blk.m) * blk.n * eb) {
    throw Error(fmt::format("packed output has {} bytes, expected {}", packed.size(),
                            size_t(blk.m) * blk.n * eb));
  }
  const int w = c.out_width(), batch = c.batch(), bo = c.block_out();
  std::vector<int32_t> out(size_t(m) * n);
  for (uint32_t r = 0; r < m; ++r) {
    for (uint32_t col = 0; col < n; ++col) {
      const size_t elem = size_t(r / batch) * blk.n + col / bo;
      const size_t lane = size_t(r % batch) * bo + col % bo;
      out[size_t(r) * n + col] =
          int32_t(unpack_lane(packed.subspan(elem * eb, eb), w, lane));
    }
  }
  return out;
}

}  // namespace tauvta::runtime
