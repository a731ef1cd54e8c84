#include "cpu/float_ops_broadcast.h"

namespace tauvta::cpu {

BroadcastPlan plan_broadcast(const graph::Shape& out, const graph::Shape& a, const graph::Shape& b) {
  const size_t r = out.size();
  auto strides_for = [&](const graph::Shape& s) {
    std::vector<int64_t> st(r, 0);
    int64_t acc = 1;
    for (size_t i = r; i-- > 0;) {
      const size_t off = r - s.size();
      if (i < off) continue;
      const int64_t d = s[i - off];
      st[i] = d == 1 ? 0 : acc;
      acc *= d;
    }
    return st;
  };
  const std::vector<int64_t> as = strides_for(a), bs = strides_for(b);
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
