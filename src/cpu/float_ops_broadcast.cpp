#include "cpu/float_ops_broadcast.h"

#include <cstring>

namespace tauvta::cpu {

std::vector<int64_t> broadcast_strides(const graph::Shape& s, size_t rank) {
  std::vector<int64_t> st(rank, 0);
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[rank - s.size() + i] = s[i] == 1 ? 0 : acc;
    acc *= s[i];
  }
  return st;
}

graph::Tensor broadcast_to(const graph::Tensor& src, const graph::Shape& out) {
  graph::Tensor dst(src.dtype(), out);
  if (dst.size() == 0) return dst;
  const size_t r = out.size(), elem = graph::dtype_size(src.dtype());
  if (r == 0) {
    std::memcpy(dst.raw(), src.raw(), elem);
    return dst;
  }
  const std::vector<int64_t> st = broadcast_strides(src.shape(), r);
  const int64_t inner = out[r - 1];
  const int64_t inner_step = st[r - 1];
  const int64_t rows = dst.size() / inner;
  std::vector<int64_t> idx(r, 0);
  int64_t so = 0;
  for (int64_t row = 0; row < rows; ++row) {
    uint8_t* d = dst.raw() + size_t(row * inner) * elem;
    const uint8_t* s = src.raw() + size_t(so) * elem;
    if (inner_step == 1) {
      std::memcpy(d, s, size_t(inner) * elem);
    } else {
      for (int64_t i = 0; i < inner; ++i) std::memcpy(d + size_t(i) * elem, s, elem);
    }
    for (size_t k = r - 1; k-- > 0;) {  // odometer over the outer dimensions
      ++idx[k];
      so += st[k];
      if (idx[k] < out[k]) break;
      so -= st[k] * out[k];
      idx[k] = 0;
    }
  }
  return dst;
}

BroadcastPlan plan_broadcast(const graph::Shape& out, const graph::Shape& a, const graph::Shape& b) {
  const size_t r = out.size();
  const std::vector<int64_t> as = broadcast_strides(a, r), bs = broadcast_strides(b, r);
  BroadcastPlan p;
  // Merge dimension i into the run below it when both operands step contiguously across it.
  for (size_t i = 0; i < r; ++i) {
    if (out[i] == 1) continue;  // size-1 dimensions never move an index
    if (!p.dims.empty()) {
      const int64_t d = out[i];
      const int64_t pa = p.a_strides.back(), pb = p.b_strides.back();
      if (pa == as[i] * d && pb == bs[i] * d) {
        p.dims.back() *= d;
        p.a_strides.back() = as[i];
        p.b_strides.back() = bs[i];
        continue;
      }
    }
    p.dims.push_back(out[i]);
    p.a_strides.push_back(as[i]);
    p.b_strides.push_back(bs[i]);
  }
  if (p.dims.empty()) {
    p.dims = {1};
    p.a_strides = {0};
    p.b_strides = {0};
  }
  return p;
}

}  // namespace tauvta::cpu
