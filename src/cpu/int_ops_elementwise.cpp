// QAdd, QSub, QMul (NumPy broadcasting), QClip, QAveragePool, QGlobalAveragePool, QConcat,
// Quantize, Dequantize.
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "cpu/int_ops.h"
#include "graph/quantize.h"

namespace tauvta::cpu {

using graph::DType;
using graph::Node;
using graph::Shape;
using graph::Tensor;

const Tensor& need_input(const Node& n, const IntInputs& in, size_t i) {
  if (i >= in.size() || in[i] == nullptr) throw Error(fmt::format("{}: input {} is missing", n.describe(), i));
  return *in[i];
}

namespace {

// Calls f(out, ia, ib) for every element of the broadcast of shapes a and b.
template <class F>
Shape broadcast_each(const Node& n, const Shape& a, const Shape& b, F&& f) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r), sa(r, 0), sb(r, 0);
  int64_t stride_a = 1, stride_b = 1;
  for (size_t i = r; i-- > 0;) {
    const int64_t da = i + a.size() >= r ? a[i + a.size() - r] : 1;
    const int64_t db = i + b.size() >= r ? b[i + b.size() - r] : 1;
    if (da != db && da != 1 && db != 1) {
      throw Error(fmt::format("{}: shapes {} and {} do not broadcast", n.describe(), graph::shape_string(a),
                              graph::shape_string(b)));
    }
    out[i] = std::max(da, db);
    sa[i] = da == 1 ? 0 : stride_a;
    sb[i] = db == 1 ? 0 : stride_b;
    stride_a *= da;
    stride_b *= db;
  }
  const int64_t total = graph::num_elements(out);
  if (a == b) {
    for (int64_t i = 0; i < total; ++i) f(i, i, i);
    return out;
  }
  std::vector<int64_t> idx(r, 0);
  int64_t ia = 0, ib = 0;
  for (int64_t o = 0; o < total; ++o) {
    f(o, ia, ib);
    for (size_t d = r; d-- > 0;) {  // odometer
      ++idx[d];
      ia += sa[d];
      ib += sb[d];
      if (idx[d] < out[d]) break;
      ia -= sa[d] * out[d];
      ib -= sb[d] * out[d];
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace

Tensor run_qbinary(const Node& n, const IntInputs& in) {
  const Tensor& a = need_input(n, in, 0);
  const Tensor& b = need_input(n, in, 1);
  const Requant rq = requant_of(n);
  const int64_t shift = n.attr_int("shift");
  const int64_t ls = n.attr_int_or("lhs_shift", 0), rs = n.attr_int_or("rhs_shift", 0);
  const std::vector<int64_t> av = a.to_int64(), bv = b.to_int64();
  const int acc = rq.acc_bits;
  std::vector<int64_t> out(std::max(av.size(), bv.size()));
  Shape shape;
  auto run = [&](auto&& combine) {
    shape = broadcast_each(n, a.shape(), b.shape(), [&](int64_t o, int64_t ia, int64_t ib) {
      if (size_t(o) >= out.size()) out.resize(size_t(o) + 1);  // both operands broadcast
      out[size_t(o)] = requantize(combine(av[size_t(ia)], bv[size_t(ib)]), shift, rq);
    });
  };
  if (n.op_type == "QAdd") {
    run([&](int64_t x, int64_t y) { return alu_add(alu_shr(x, ls, acc), alu_shr(y, rs, acc), acc); });
  } else if (n.op_type == "QSub") {
    run([&](int64_t x, int64_t y) {
      return alu_add(alu_shr(x, ls, acc), wrap_bits(-alu_shr(y, rs, acc), acc), acc);
    });
  } else if (n.op_type == "QMul") {
    run([&](int64_t x, int64_t y) { return alu_mul(x, y, acc); });
  } else {
    throw InternalError(fmt::format("{}: not a binary integer operator", n.describe()));
  }
  return int_tensor(shape, out);
}

Tensor run_qclip(const Node& n, const IntInputs& in) {
  const Tensor& x = need_input(n, in, 0);
  const Requant rq = requant_of(n);
  const int64_t shift = n.attr_int_or("shift", 0);
  std::vector<int64_t> v = x.to_int64();
  for (int64_t& e : v) e = requantize(e, shift, rq);
  return int_tensor(x.shape(), v);
}

Tensor run_qaverage_pool(const Node& n, const IntInputs& in) {
  const Tensor& x = need_input(n, in, 0);
  const Requant rq = requant_of(n);
  const int64_t shift = n.attr_int("shift");
  if (x.rank() < 3) throw Error(fmt::format("{}: input {} has no spatial dimensions", n.describe(),
                                            graph::shape_string(x.shape())));
  const std::vector<int64_t> xv = x.to_int64();
  const int64_t planes = x.shape()[0] * x.shape()[1];
  if (n.op_type == "QGlobalAveragePool") {
    const int64_t size = graph::num_elements(Shape(x.shape().begin() + 2, x.shape().end()));
    Shape ys = x.shape();
    std::fill(ys.begin() + 2, ys.end(), 1);
    std::vector<int64_t> out(static_cast<size_t>(planes));
    for (int64_t p = 0; p < planes; ++p) {
      uint64_t sum = 0;
      for (int64_t i = 0; i < size; ++i) sum += uint64_t(xv[size_t(p * size + i)]);
      out[size_t(p)] = average_requantize(int64_t(sum), size, shift, rq);
    }
    return int_tensor(ys, out);
  }
  const graph::WindowGeometry geo = graph::pool_geometry(n, x.shape());
  const Window2D g = window_2d(n, geo);
  const int64_t h = x.rank() == 4 ? x.shape()[2] : 1, w = x.shape().back();
  Shape ys = {x.shape()[0], x.shape()[1]};
  if (x.rank() == 4) ys.push_back(g.oh);
  ys.push_back(g.ow);
  std::vector<int64_t> out(size_t(planes * g.oh * g.ow));
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        uint64_t sum = 0;
        int64_t count = 0, rows_padded = 0, cols_padded = 0;
        for (int64_t ky = 0; ky < g.kh; ++ky) {
          const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
          if (iy >= -g.ph && iy < h + g.phe) ++rows_padded;
          if (iy < 0 || iy >= h) continue;
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            const int64_t ix = ox * g.sw - g.pw + kx * g.dw;
            if (ix < 0 || ix >= w) continue;
            sum += uint64_t(xv[size_t((p * h + iy) * w + ix)]);
            ++count;
          }
        }
        for (int64_t kx = 0; kx < g.kw; ++kx) {
          const int64_t ix = ox * g.sw - g.pw + kx * g.dw;
          if (ix >= -g.pw && ix < w + g.pwe) ++cols_padded;
        }
        const int64_t div = geo.count_include_pad ? rows_padded * cols_padded : count;
        out[size_t((p * g.oh + oy) * g.ow + ox)] = div > 0 ? average_requantize(int64_t(sum), div, shift, rq) : 0;
      }
    }
  }
  return int_tensor(ys, out);
}

Tensor run_qconcat(const Node& n, const IntInputs& in) {
  if (in.empty()) throw Error(fmt::format("{}: no inputs", n.describe()));
  const Requant rq = requant_of(n);
  const std::vector<int64_t> shifts = n.attr_ints("shifts");
  if (shifts.size() != in.size()) {
    throw Error(fmt::format("{}: {} shifts for {} inputs", n.describe(), shifts.size(), in.size()));
  }
  const Shape& first = need_input(n, in, 0).shape();
  const int64_t rank = int64_t(first.size());
  int64_t axis = n.attr_int("axis");
  if (axis < -rank || axis >= rank) throw Error(fmt::format("{}: axis {} out of range for rank {}", n.describe(), axis, rank));
  if (axis < 0) axis += rank;
  Shape ys = first;
  ys[size_t(axis)] = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const Shape& s = need_input(n, in, i).shape();
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && (int64_t(s.size()) != rank || s[size_t(d)] != first[size_t(d)])) {
        throw Error(fmt::format("{}: input {} has shape {}, incompatible with {} along axis {}", n.describe(), i,
                                graph::shape_string(s), graph::shape_string(first), axis));
      }
    }
    ys[size_t(axis)] += s[size_t(axis)];
  }
  const int64_t outer = graph::num_elements(Shape(first.begin(), first.begin() + axis));
  const int64_t inner = graph::num_elements(Shape(first.begin() + axis + 1, first.end()));
  std::vector<int64_t> out(size_t(graph::num_elements(ys)));
  int64_t offset = 0;
  const int64_t out_row = ys[size_t(axis)] * inner;
  for (size_t i = 0; i < in.size(); ++i) {
    const std::vector<int64_t> v = in[i]->to_int64();
    const int64_t row = in[i]->shape()[size_t(axis)] * inner;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < row; ++j) {
        out[size_t(o * out_row + offset + j)] = requantize(v[size_t(o * row + j)], shifts[i], rq);
      }
    }
    offset += row;
  }
  return int_tensor(ys, out);
}

Tensor run_quantize(const Node& n, const IntInputs& in) {
  const Tensor& x = need_input(n, in, 0);
  const int frac = int(n.attr_int("frac_bits")), bits = int(n.attr_int("bits"));
  if (bits < 1 || bits > 32) throw Error(fmt::format("{}: bits {} not in 1..32", n.describe(), bits));
  Tensor y(DType::kInt32, x.shape());
  int32_t* out = y.data<int32_t>();
  const std::vector<float> v = x.to_float();
  for (size_t i = 0; i < v.size(); ++i) out[i] = int32_t(graph::quantize_value(v[i], frac, bits));
  return y;
}

Tensor run_dequantize(const Node& n, const IntInputs& in) {
  const Tensor& x = need_input(n, in, 0);
  const int frac = int(n.attr_int("frac_bits"));
  if (!graph::dtype_is_integer(x.dtype())) {
    throw Error(fmt::format("{}: expected an integer tensor, got {}", n.describe(), graph::dtype_name(x.dtype())));
  }
  Tensor y(DType::kFloat32, x.shape());
  float* out = y.data<float>();
  const std::vector<int64_t> v = x.to_int64();
  for (size_t i = 0; i < v.size(); ++i) out[i] = float(std::ldexp(double(v[i]), -frac));
  return y;
}

}  // namespace tauvta::cpu
