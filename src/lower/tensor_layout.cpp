#include "lower/tensor_layout.h"

#include <fmt/format.h>

#include "common/error.h"
#include "hw/lanes.h"

namespace tauvta::lower {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t act_blocks(const hw::HwConfig& c, const ActShape& s) {
  return ceil_div(s.n, c.batch()) * ceil_div(s.c, c.block_in()) * s.h * s.w;
}

uint64_t act_bytes(const hw::HwConfig& c, const ActShape& s, int block) {
  const uint64_t elem = uint64_t(c.batch()) * uint64_t(block) * uint64_t(c.inp_width()) / 8;
  return uint64_t(ceil_div(s.n, c.batch())) * uint64_t(ceil_div(s.c, block)) * uint64_t(s.h) *
         uint64_t(s.w) * elem;
}

namespace {

// The blocked layout walked one (n, channel) plane at a time: the plane's pixels are lanes
// plane_lane(n, ch) + p * pixel_stride() for pixel p = y * w + x (row-major), so packing and
// unpacking cost no index arithmetic per value.
struct ActIndex {
  const hw::HwConfig& cfg;
  ActShape s;
  int block;
  int64_t cb() const { return ceil_div(s.c, block); }
  uint64_t pixel_stride() const { return uint64_t(cfg.batch()) * uint64_t(block); }
  uint64_t plane_lane(int64_t n, int64_t ch) const {
    const int64_t B = cfg.batch();
    const int64_t elem = ((n / B) * cb() + ch / block) * s.h * s.w;
    return uint64_t(elem) * pixel_stride() + uint64_t((n % B) * block + ch % block);
  }
  // f(lane, value index) over every value in NCHW order.
  template <class F>
  void for_each(F&& f) const {
    const uint64_t pixels = uint64_t(s.h * s.w), stride = pixel_stride();
    size_t i = 0;
    for (int64_t n = 0; n < s.n; ++n) {
      for (int64_t ch = 0; ch < s.c; ++ch) {
        const uint64_t lane0 = plane_lane(n, ch);
        for (uint64_t p = 0; p < pixels; ++p) f(lane0 + p * stride, i++);
      }
    }
  }
};

}  // namespace

std::vector<uint8_t> pack_activation(const hw::HwConfig& c, const ActShape& s, int block,
                                     std::span<const int32_t> v) {
  if (int64_t(v.size()) != s.elems()) {
    throw InternalError(fmt::format("pack_activation: {} values for {} elements", v.size(), s.elems()));
  }
  std::vector<uint8_t> out(act_bytes(c, s, block), 0);
  const ActIndex ix{c, s, block};
  const int bits = c.inp_width();
  if (bits == 8) {
    ix.for_each([&](uint64_t lane, size_t i) { out[lane] = uint8_t(v[i]); });
  } else {
    ix.for_each([&](uint64_t lane, size_t i) { hw::pack_lane(out, bits, lane, v[i]); });
  }
  return out;
}

std::vector<int32_t> unpack_activation(const hw::HwConfig& c, const ActShape& s, int block,
                                       std::span<const uint8_t> bytes) {
  if (bytes.size() < act_bytes(c, s, block)) {
    throw InternalError("unpack_activation: buffer smaller than the tensor");
  }
  std::vector<int32_t> out(size_t(s.elems()));
  const ActIndex ix{c, s, block};
  const int bits = c.inp_width();
  if (bits == 8) {
    ix.for_each([&](uint64_t lane, size_t i) { out[i] = int8_t(bytes[lane]); });
  } else {
    ix.for_each([&](uint64_t lane, size_t i) { out[i] = int32_t(hw::unpack_lane(bytes, bits, lane)); });
  }
  return out;
}

std::vector<uint8_t> pack_conv_weights(const hw::HwConfig& c, const WeightPacking& p,
                                       std::span<const int32_t> w) {
  const int64_t BI = c.block_in(), BO = c.block_out(), KK = p.kh * p.kw;
  if (int64_t(w.size()) != p.co * p.ci_g * KK) {
    throw InternalError(fmt::format("pack_conv_weights: {} values, expected {}", w.size(), p.co * p.ci_g * KK));
  }
  const int64_t cob_total = p.supergroups * p.cob;
  const uint64_t tile = uint64_t(c.wgt_elem_bytes());
  std::vector<uint8_t> out(uint64_t(cob_total * p.cib * KK) * tile, 0);
  const int bits = c.wgt_width();
  const int64_t co_per_group = p.co / p.groups;
  for (int64_t o = 0; o < p.co; ++o) {
    const int64_t g = o / co_per_group;
    const int64_t sg = o / (p.cob * BO);
    for (int64_t i = 0; i < p.ci_g; ++i) {
      const int64_t ch = g * p.ci_g + i - sg * p.cib * BI;  // column inside the supergroup
      if (ch < 0 || ch >= p.cib * BI) throw InternalError("pack_conv_weights: channel outside its supergroup");
      for (int64_t k = 0; k < KK; ++k) {
        const int64_t tap = p.transposed ? KK - 1 - k : k;
        const uint64_t elem = uint64_t(((o / BO) * p.cib + ch / BI) * KK + tap);
        const uint64_t lane = uint64_t((o % BO) * BI + ch % BI);
        const std::span<uint8_t> t(out.data() + elem * tile, tile);
        const size_t src = p.transposed ? size_t((i * p.co + o) * KK + k) : size_t((o * p.ci_g + i) * KK + k);
        hw::pack_lane(t, bits, lane, w[src]);
      }
    }
  }
  return out;
}

std::vector<uint8_t> pack_acc_vector(const hw::HwConfig& c, std::span<const int64_t> v) {
  const int64_t BO = c.block_out(), B = c.batch();
  const int64_t blocks = ceil_div(int64_t(v.size()), BO);
  const uint64_t eb = uint64_t(c.acc_elem_bytes());
  std::vector<uint8_t> out(uint64_t(blocks) * eb, 0);
  for (int64_t k = 0; k < blocks; ++k) {
    const std::span<uint8_t> e(out.data() + uint64_t(k) * eb, eb);
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t oc = 0; oc < BO; ++oc) {
        const int64_t ch = k * BO + oc;
        hw::pack_lane(e, c.acc_width(), uint64_t(b * BO + oc), ch < int64_t(v.size()) ? v[size_t(ch)] : 0);
      }
    }
  }
  return out;
}

}  // namespace tauvta::lower
