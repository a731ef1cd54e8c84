// QConv, QConvTranspose, QGemm, QMatMul: integer reductions into the wrapping accumulator, then
// requantization. Two paths with identical results: int16 panels through the GEMM kernel when
// every operand fits 16 bits and the accumulator has at most 32 bits (sums modulo 2^32 reduce
// exactly to the accumulator width), and direct int64 loops otherwise (or when asked for).
#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "cpu/int_ops.h"
#include "graph/conv_geometry.h"
#include "graph/quantize.h"

namespace tauvta::cpu {

using graph::DType;
using graph::Node;
using graph::Shape;
using graph::Tensor;

namespace {

bool fits_int16(const std::vector<int64_t>& v) {
  for (int64_t x : v) {
    if (x < -32768 || x > 32767) return false;
  }
  return true;
}

bool fits_int16(const int32_t* v, int64_t n) {
  int32_t lo = 0, hi = 0;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, v[i]);
    hi = std::max(hi, v[i]);
  }
  return lo >= -32768 && hi <= 32767;
}

// Whether the fast kernels' wrapping 32-bit sums of `x` are the exact sums (what counting
// accumulator wraps needs): |x| at most its largest value times the largest |weight| row sum, plus
// the largest |bias|, stays inside int32.
bool sums_exact_in_int32(const IntNodePlan& p, const int32_t* x, int64_t n) {
  int64_t top = 0;
  for (int64_t i = 0; i < n; ++i) top = std::max<int64_t>(top, x[i] < 0 ? -int64_t(x[i]) : int64_t(x[i]));
  const int64_t room = int64_t(INT32_MAX) - p.max_abs_bias;  // fits_int16 held: top <= 2^15
  return room >= 0 && (top == 0 || p.max_abs_row <= room / top);
}

// The fast path for input `x`: int16 operands, and exact 32-bit sums when wraps are counted.
bool use_gemm(const IntNodePlan& p, const int32_t* x, int64_t n, const IntRunOptions& o) {
  return p.gemm && fits_int16(x, n) && (!o.wraps || sums_exact_in_int32(p, x, n));
}

// An int32 view of an integer tensor (converted when it has another integer dtype).
struct Int32View {
  Tensor owned;
  const int32_t* data = nullptr;
  Int32View(const Node& n, const Tensor& t) {
    if (t.dtype() == DType::kInt32) {
      data = t.data<int32_t>();
      return;
    }
    if (!graph::dtype_is_integer(t.dtype())) {
      throw Error(fmt::format("{}: expected an integer tensor, got {}", n.describe(), graph::dtype_name(t.dtype())));
    }
    owned = t.cast(DType::kInt32);
    data = owned.data<int32_t>();
  }
};

Shape output_shape(const Shape& x, int64_t channels, const Window2D& w) {
  if (x.size() == 3) return {x[0], channels, w.ow};
  return {x[0], channels, w.oh, w.ow};
}

}  // namespace

Window2D window_2d(const Node& n, const graph::WindowGeometry& g) {
  const size_t r = g.spatial_rank();
  if (r != 1 && r != 2) {
    throw Error(fmt::format("{}: {}-D windows are not supported (1-D and 2-D only)", n.describe(), r));
  }
  Window2D w;
  w.group = g.group;
  if (r == 1) {
    w.kw = g.kernel[0];
    w.sw = g.strides[0];
    w.dw = g.dilations[0];
    w.pw = g.pads_begin[0];
    w.pwe = g.pads_end[0];
    w.ow = g.output[0];
  } else {
    w.kh = g.kernel[0];
    w.kw = g.kernel[1];
    w.sh = g.strides[0];
    w.sw = g.strides[1];
    w.dh = g.dilations[0];
    w.dw = g.dilations[1];
    w.ph = g.pads_begin[0];
    w.pw = g.pads_begin[1];
    w.phe = g.pads_end[0];
    w.pwe = g.pads_end[1];
    w.oh = g.output[0];
    w.ow = g.output[1];
  }
  return w;
}

Requant requant_of(const Node& n) {
  Requant r;
  r.acc_bits = int(n.attr_int("acc_bits"));
  r.out_bits = int(n.attr_int("out_bits"));
  r.clip_min = n.attr_int("clip_min");
  r.clip_max = n.attr_int("clip_max");
  if (r.acc_bits < 2 || r.acc_bits > 64 || r.out_bits < 1 || r.out_bits > 32) {
    throw Error(fmt::format("{}: acc_bits {} / out_bits {} out of range", n.describe(), r.acc_bits, r.out_bits));
  }
  return r;
}

Tensor int_tensor(const Shape& shape, const std::vector<int64_t>& values) {
  return Tensor::from_int64(DType::kInt32, shape, values);
}

std::vector<int64_t> int_values(const Tensor& t) { return t.to_int64(); }

void parallel_for(int64_t count, int threads, const std::function<void(int64_t, int64_t)>& fn) {
  int64_t t = threads > 0 ? threads : int64_t(std::max(1u, std::thread::hardware_concurrency()));
  t = std::min(t, count);
  if (t <= 1) {
    if (count > 0) fn(0, count);
    return;
  }
  std::vector<std::thread> workers;
  std::exception_ptr error;
  std::mutex m;
  for (int64_t k = 0; k < t; ++k) {
    const int64_t b = count * k / t, e = count * (k + 1) / t;
    workers.emplace_back([&, b, e] {
      try {
        fn(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m);
        if (!error) error = std::current_exception();
      }
    });
  }
  for (std::thread& w : workers) w.join();
  if (error) std::rethrow_exception(error);
}

std::unique_ptr<IntNodePlan> plan_int_node(const Node& n, const graph::Graph& g, const IntRunOptions& o) {
  const std::string& op = n.op_type;
  if (op != "QConv" && op != "QConvTranspose" && op != "QGemm") return nullptr;
  const std::string& wname = n.input(1);
  if (!g.is_initializer(wname)) {
    throw Error(fmt::format("{}: weights '{}' must be an initializer", n.describe(), wname));
  }
  const Tensor& w = g.initializers.at(wname);
  auto p = std::make_unique<IntNodePlan>();
  p->rq = requant_of(n);
  p->weights = w.to_int64();
  const int64_t group = n.attr_int_or("group", 1);
  if (w.rank() < 2) throw Error(fmt::format("{}: weights '{}' must have rank >= 2", n.describe(), wname));
  const int64_t m = op == "QConvTranspose" ? w.shape()[1] * group : w.shape()[0];
  p->shifts = graph::requant_shifts(n, m);
  p->bias.assign(size_t(m), 0);
  if (!n.input(2).empty()) {
    if (!g.is_initializer(n.input(2))) {
      throw Error(fmt::format("{}: bias '{}' must be an initializer", n.describe(), n.input(2)));
    }
    p->bias = g.initializers.at(n.input(2)).to_int64();
    if (int64_t(p->bias.size()) != m) {
      throw Error(fmt::format("{}: bias has {} values for {} output channels", n.describe(), p->bias.size(), m));
    }
  }
  {
    std::vector<int64_t> row(size_t(m), 0);
    if (op == "QConvTranspose") {  // [C, M/group, kh, kw]: output channel (ci / cg) * mg + middle index
      const int64_t c = w.shape()[0], mg = w.shape()[1], kk = int64_t(p->weights.size()) / std::max<int64_t>(c * mg, 1);
      const int64_t cg = c / group;
      for (size_t i = 0; i < p->weights.size(); ++i) {
        const int64_t ci = int64_t(i) / (mg * kk), mm = (int64_t(i) / kk) % mg;
        row[size_t((ci / cg) * mg + mm)] += std::abs(p->weights[i]);
      }
    } else {  // [M, ...]: rows by output channel
      const int64_t per = int64_t(p->weights.size()) / m;
      for (size_t i = 0; i < p->weights.size(); ++i) row[size_t(int64_t(i) / per)] += std::abs(p->weights[i]);
    }
    for (int64_t r : row) p->max_abs_row = std::max(p->max_abs_row, r);
    for (int64_t b : p->bias) p->max_abs_bias = std::max(p->max_abs_bias, std::abs(b));
  }
  p->gemm = !o.reference_kernels && p->rq.acc_bits <= 32 && fits_int16(p->weights);
  if (!p->gemm) return p;
  const int64_t total = int64_t(p->weights.size());
  if (op == "QConv") {
    const int64_t mg = m / group, kg = total / m;
    p->rows.resize(size_t(group));
    for (int64_t gi = 0; gi < group; ++gi) {
      RowPanel& rp = p->rows[size_t(gi)];
      rp.resize(mg, kg);
      for (int64_t r = 0; r < mg; ++r) {
        for (int64_t k = 0; k < kg; ++k) rp.row(r)[k] = int16_t(p->weights[size_t((gi * mg + r) * kg + k)]);
      }
    }
  } else if (op == "QConvTranspose") {
    const int64_t c = w.shape()[0], cg = c / group, mg = w.shape()[1], kk = total / (c * mg);
    p->rows.resize(size_t(group));
    for (int64_t gi = 0; gi < group; ++gi) {
      RowPanel& rp = p->rows[size_t(gi)];
      rp.resize(mg * kk, cg);
      for (int64_t r = 0; r < mg * kk; ++r) {
        const int64_t mm = r / kk, t = r % kk;
        for (int64_t ci = 0; ci < cg; ++ci) {
          rp.row(r)[ci] = int16_t(p->weights[size_t(((gi * cg + ci) * mg + mm) * kk + t)]);
        }
      }
    }
  } else {  // QGemm: w [N, K]
    const int64_t k = w.shape()[1];
    p->pairs.resize(k, m);
    for (int64_t nn = 0; nn < m; ++nn) {
      for (int64_t kk = 0; kk < k; ++kk) p->pairs.at(kk, nn) = int16_t(p->weights[size_t(nn * k + kk)]);
    }
  }
  return p;
}

Tensor run_qconv(const Node& n, const IntInputs& in, const IntNodePlan& p, const IntRunOptions& o) {
  const Tensor& x = need_input(n, in, 0);
  const Tensor& w = need_input(n, in, 1);
  if (x.rank() != w.rank()) {
    throw Error(fmt::format("{}: input {} and weights {} differ in rank", n.describe(),
                            graph::shape_string(x.shape()), graph::shape_string(w.shape())));
  }
  const Window2D g = window_2d(n, graph::conv_geometry(n, x.shape(), w.shape()));
  const int64_t batch = x.shape()[0], c = x.shape()[1], h = x.rank() == 4 ? x.shape()[2] : 1,
                wd = x.shape().back(), m = w.shape()[0], mg = m / g.group, cg = c / g.group;
  if (cg * g.group != c || w.shape()[1] != cg) {
    throw Error(fmt::format("{}: {} input channels do not match weights {} with group {}", n.describe(), c,
                            graph::shape_string(w.shape()), g.group));
  }
  Tensor y(DType::kInt32, output_shape(x.shape(), m, g));
  const Int32View xv(n, x);
  int32_t* out = y.data<int32_t>();
  const int64_t pix = g.oh * g.ow, kg = cg * g.kh * g.kw, plane = h * wd;

  if (use_gemm(p, xv.data, x.size(), o)) {
    // Each image's group slice is first copied into a zero-bordered int16 plane, so the column
    // panel is filled without bounds checks.
    const int64_t hp = h + g.ph + g.phe, wp = wd + g.pw + g.pwe;
    std::atomic<int64_t> wraps{0};
    parallel_for(batch, o.threads, [&](int64_t b0, int64_t b1) {
      PairPanel cols;
      cols.resize(kg, pix);
      std::vector<uint32_t> acc(size_t(mg * pix));
      int64_t wrapped = 0;
      std::vector<int16_t> padded(size_t(cg * hp * wp), 0);
      for (int64_t b = b0; b < b1; ++b) {
        for (int64_t gi = 0; gi < g.group; ++gi) {
          const int32_t* xg = xv.data + (b * c + gi * cg) * plane;
          for (int64_t ci = 0; ci < cg; ++ci) {
            for (int64_t iy = 0; iy < h; ++iy) {
              const int32_t* src = xg + ci * plane + iy * wd;
              int16_t* dst = padded.data() + (ci * hp + iy + g.ph) * wp + g.pw;
              for (int64_t ix = 0; ix < wd; ++ix) dst[ix] = int16_t(src[ix]);
            }
          }
          for (int64_t ci = 0; ci < cg; ++ci) {
            for (int64_t ky = 0; ky < g.kh; ++ky) {
              for (int64_t kx = 0; kx < g.kw; ++kx) {
                const int64_t k = (ci * g.kh + ky) * g.kw + kx;
                int16_t* dst = &cols.at(k, 0);  // column stride 2
                for (int64_t oy = 0; oy < g.oh; ++oy) {
                  const int16_t* row = padded.data() + (ci * hp + oy * g.sh + ky * g.dh) * wp + kx * g.dw;
                  int16_t* d = dst + 2 * oy * g.ow;
                  if (g.sw == 1) {
                    for (int64_t ox = 0; ox < g.ow; ++ox) d[2 * ox] = row[ox];
                  } else {
                    for (int64_t ox = 0; ox < g.ow; ++ox) d[2 * ox] = row[ox * g.sw];
                  }
                }
              }
            }
          }
          gemm_wrap32(p.rows[size_t(gi)], cols, acc.data(), pix, o.portable_kernels);
          for (int64_t r = 0; r < mg; ++r) {
            const int64_t oc = gi * mg + r;
            requantize_row(acc.data() + r * pix, uint32_t(p.bias[size_t(oc)]), p.shifts[size_t(oc)], p.rq,
                           out + (b * m + oc) * pix, pix);
            for (int64_t i = 0; o.wraps && i < pix; ++i) {
              const int32_t v = int32_t(acc[size_t(r * pix + i)] + uint32_t(p.bias[size_t(oc)]));
              wrapped += accumulator_wraps(v, p.shifts[size_t(oc)], p.rq.acc_bits);
            }
          }
        }
      }
      wraps += wrapped;
    });
    if (o.wraps) o.wraps->add(n.name, wraps, y.size());
    return y;
  }

  // Reference: direct loops, sums modulo 2^64, wrapped to the accumulator width.
  int64_t wrapped = 0;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oc = 0; oc < m; ++oc) {
      const int64_t gi = oc / mg;
      for (int64_t oy = 0; oy < g.oh; ++oy) {
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          uint64_t acc = uint64_t(p.bias[size_t(oc)]);
          for (int64_t ci = 0; ci < cg; ++ci) {
            for (int64_t ky = 0; ky < g.kh; ++ky) {
              const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
              if (iy < 0 || iy >= h) continue;
              for (int64_t kx = 0; kx < g.kw; ++kx) {
                const int64_t ix = ox * g.sw - g.pw + kx * g.dw;
                if (ix < 0 || ix >= wd) continue;
                const int64_t xq = xv.data[((b * c + gi * cg + ci) * h + iy) * wd + ix];
                const int64_t wq = p.weights[size_t(((oc * cg + ci) * g.kh + ky) * g.kw + kx)];
                acc += uint64_t(xq * wq);
              }
            }
          }
          out[(b * m + oc) * pix + oy * g.ow + ox] =
              int32_t(requantize(int64_t(acc), p.shifts[size_t(oc)], p.rq));
          if (o.wraps) wrapped += accumulator_wraps(int64_t(acc), p.shifts[size_t(oc)], p.rq.acc_bits);
        }
      }
    }
  }
  if (o.wraps) o.wraps->add(n.name, wrapped, y.size());
  return y;
}

Tensor run_qconv_transpose(const Node& n, const IntInputs& in, const IntNodePlan& p, const IntRunOptions& o) {
  const Tensor& x = need_input(n, in, 0);
  const Tensor& w = need_input(n, in, 1);
  if (x.rank() != w.rank()) {
    throw Error(fmt::format("{}: input {} and weights {} differ in rank", n.describe(),
                            graph::shape_string(x.shape()), graph::shape_string(w.shape())));
  }
  const Window2D g = window_2d(n, graph::conv_transpose_geometry(n, x.shape(), w.shape()));
  const int64_t batch = x.shape()[0], c = x.shape()[1], h = x.rank() == 4 ? x.shape()[2] : 1,
                wd = x.shape().back(), mg = w.shape()[1], m = mg * g.group, cg = c / g.group;
  if (w.shape()[0] != c || cg * g.group != c) {
    throw Error(fmt::format("{}: {} input channels do not match weights {} with group {}", n.describe(), c,
                            graph::shape_string(w.shape()), g.group));
  }
  Tensor y(DType::kInt32, output_shape(x.shape(), m, g));
  const Int32View xv(n, x);
  int32_t* out = y.data<int32_t>();
  const int64_t kk = g.kh * g.kw, plane = h * wd, opix = g.oh * g.ow;

  // The scatter of one input pixel's products into the output accumulators.
  auto scatter = [&](int64_t iy, int64_t ix, int64_t ky, int64_t kx, auto&& add) {
    const int64_t oy = iy * g.sh + ky * g.dh - g.ph, ox = ix * g.sw + kx * g.dw - g.pw;
    if (oy >= 0 && oy < g.oh && ox >= 0 && ox < g.ow) add(oy * g.ow + ox);
  };

  if (use_gemm(p, xv.data, x.size(), o)) {
    std::atomic<int64_t> wraps{0};
    parallel_for(batch, o.threads, [&](int64_t b0, int64_t b1) {
      int64_t wrapped = 0;
      PairPanel xp;
      xp.resize(cg, plane);
      std::vector<uint32_t> cols(size_t(mg * kk * plane)), acc(size_t(mg * opix));
      for (int64_t b = b0; b < b1; ++b) {
        for (int64_t gi = 0; gi < g.group; ++gi) {
          for (int64_t ci = 0; ci < cg; ++ci) {
            const int32_t* src = xv.data + (b * c + gi * cg + ci) * plane;
            for (int64_t q = 0; q < plane; ++q) xp.at(ci, q) = int16_t(src[q]);
          }
          gemm_wrap32(p.rows[size_t(gi)], xp, cols.data(), plane, o.portable_kernels);
          std::fill(acc.begin(), acc.end(), 0u);
          for (int64_t r = 0; r < mg; ++r) {
            uint32_t* a = acc.data() + r * opix;
            for (int64_t t = 0; t < kk; ++t) {
              const uint32_t* col = cols.data() + (r * kk + t) * plane;
              for (int64_t iy = 0; iy < h; ++iy) {
                for (int64_t ix = 0; ix < wd; ++ix) {
                  scatter(iy, ix, t / g.kw, t % g.kw, [&](int64_t q) { a[q] += col[iy * wd + ix]; });
                }
              }
            }
          }
          for (int64_t r = 0; r < mg; ++r) {
            const int64_t oc = gi * mg + r;
            const uint32_t bias = uint32_t(p.bias[size_t(oc)]);
            int32_t* o_row = out + (b * m + oc) * opix;
            for (int64_t q = 0; q < opix; ++q) {
              const int32_t v = int32_t(acc[size_t(r * opix + q)] + bias);
              o_row[q] = int32_t(requantize(v, p.shifts[size_t(oc)], p.rq));
              if (o.wraps) wrapped += accumulator_wraps(v, p.shifts[size_t(oc)], p.rq.acc_bits);
            }
          }
        }
      }
      wraps += wrapped;
    });
    if (o.wraps) o.wraps->add(n.name, wraps, y.size());
    return y;
  }

  std::vector<uint64_t> acc(size_t(m * opix));
  int64_t wrapped = 0;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oc = 0; oc < m; ++oc) {
      std::fill(acc.begin() + oc * opix, acc.begin() + (oc + 1) * opix, uint64_t(p.bias[size_t(oc)]));
    }
    for (int64_t ci = 0; ci < c; ++ci) {
      const int64_t gi = ci / cg;
      for (int64_t r = 0; r < mg; ++r) {
        const int64_t oc = gi * mg + r;
        for (int64_t t = 0; t < kk; ++t) {
          const int64_t wq = p.weights[size_t((ci * mg + r) * kk + t)];
          for (int64_t iy = 0; iy < h; ++iy) {
            for (int64_t ix = 0; ix < wd; ++ix) {
              const int64_t xq = xv.data[(b * c + ci) * plane + iy * wd + ix];
              scatter(iy, ix, t / g.kw, t % g.kw,
                      [&](int64_t q) { acc[size_t(oc * opix + q)] += uint64_t(xq * wq); });
            }
          }
        }
      }
    }
    for (int64_t oc = 0; oc < m; ++oc) {
      for (int64_t q = 0; q < opix; ++q) {
        const int64_t v = int64_t(acc[size_t(oc * opix + q)]);
        out[(b * m + oc) * opix + q] = int32_t(requantize(v, p.shifts[size_t(oc)], p.rq));
        if (o.wraps) wrapped += accumulator_wraps(v, p.shifts[size_t(oc)], p.rq.acc_bits);
      }
    }
  }
  if (o.wraps) o.wraps->add(n.name, wrapped, y.size());
  return y;
}

Tensor run_qgemm(const Node& n, const IntInputs& in, const IntNodePlan& p, const IntRunOptions& o) {
  const Tensor& x = need_input(n, in, 0);
  const Tensor& w = need_input(n, in, 1);
  const int64_t nout = w.shape()[0], k = w.shape()[1];
  if (x.rank() < 1 || x.shape().back() != k) {
    throw Error(fmt::format("{}: input {} does not end in the weights' depth {}", n.describe(),
                            graph::shape_string(x.shape()), k));
  }
  const int64_t rows = x.size() / std::max<int64_t>(k, 1);
  Shape ys = x.shape();
  ys.back() = nout;
  Tensor y(DType::kInt32, ys);
  const Int32View xv(n, x);
  int32_t* out = y.data<int32_t>();
  if (use_gemm(p, xv.data, x.size(), o)) {
    std::atomic<int64_t> wraps{0};
    parallel_for(rows, rows >= 64 ? o.threads : 1, [&](int64_t r0, int64_t r1) {
      int64_t wrapped = 0;
      RowPanel a;
      a.resize(r1 - r0, k);
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t kk = 0; kk < k; ++kk) a.row(r - r0)[kk] = int16_t(xv.data[r * k + kk]);
      }
      std::vector<uint32_t> acc(size_t((r1 - r0) * nout));
      gemm_wrap32(a, p.pairs, acc.data(), nout, o.portable_kernels);
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t j = 0; j < nout; ++j) {
          const uint32_t v = acc[size_t((r - r0) * nout + j)] + uint32_t(p.bias[size_t(j)]);
          out[r * nout + j] = int32_t(requantize(int32_t(v), p.shifts[size_t(j)], p.rq));
          if (o.wraps) wrapped += accumulator_wraps(int32_t(v), p.shifts[size_t(j)], p.rq.acc_bits);
        }
      }
      wraps += wrapped;
    });
    if (o.wraps) o.wraps->add(n.name, wraps, y.size());
    return y;
  }
  int64_t wrapped = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < nout; ++j) {
      uint64_t acc = uint64_t(p.bias[size_t(j)]);
      for (int64_t kk = 0; kk < k; ++kk) acc += uint64_t(int64_t(xv.data[r * k + kk]) * p.weights[size_t(j * k + kk)]);
      out[r * nout + j] = int32_t(requantize(int64_t(acc), p.shifts[size_t(j)], p.rq));
      if (o.wraps) wrapped += accumulator_wraps(int64_t(acc), p.shifts[size_t(j)], p.rq.acc_bits);
    }
  }
  if (o.wraps) o.wraps->add(n.name, wrapped, y.size());
  return y;
}

Tensor run_qmatmul(const Node& n, const IntInputs& in) {
  const Tensor& a = need_input(n, in, 0);
  const Tensor& b = need_input(n, in, 1);
  const Requant rq = requant_of(n);
  const int64_t shift = n.attr_int("shift");
  if (a.rank() < 1 || b.rank() < 1) throw Error(fmt::format("{}: operands must have rank >= 1", n.describe()));
  // NumPy matmul: a rank-1 operand gains a dimension that the result drops again.
  Shape as = a.shape(), bs = b.shape();
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  const int64_t mm = as[as.size() - 2], k = as.back(), nn = bs.back();
  if (bs[bs.size() - 2] != k) {
    throw Error(fmt::format("{}: shapes {} and {} do not chain", n.describe(), graph::shape_string(a.shape()),
                            graph::shape_string(b.shape())));
  }
  const size_t rank = std::max(as.size(), bs.size());
  Shape batch(rank - 2, 1), ab(rank - 2, 1), bb(rank - 2, 1);
  for (size_t i = 0; i + 2 < rank; ++i) {
    const int64_t da = i + as.size() >= rank ? as[i + as.size() - rank] : 1;
    const int64_t db = i + bs.size() >= rank ? bs[i + bs.size() - rank] : 1;
    if (da != db && da != 1 && db != 1) {
      throw Error(fmt::format("{}: batch dimensions of {} and {} do not broadcast", n.describe(),
                              graph::shape_string(a.shape()), graph::shape_string(b.shape())));
    }
    ab[i] = da;
    bb[i] = db;
    batch[i] = std::max(da, db);
  }
  const std::vector<int64_t> av = a.to_int64(), bv = b.to_int64();
  const int64_t nbatch = graph::num_elements(batch);
  std::vector<int64_t> out(size_t(nbatch * mm * nn));
  for (int64_t t = 0; t < nbatch; ++t) {
    int64_t rem = t, ao = 0, bo = 0, astride = 1, bstride = 1;
    for (size_t i = batch.size(); i-- > 0;) {
      const int64_t idx = rem % batch[i];
      rem /= batch[i];
      if (ab[i] != 1) ao += idx * astride;
      if (bb[i] != 1) bo += idx * bstride;
      astride *= ab[i];
      bstride *= bb[i];
    }
    const int64_t* pa = av.data() + ao * mm * k;
    const int64_t* pb = bv.data() + bo * k * nn;
    for (int64_t i = 0; i < mm; ++i) {
      for (int64_t j = 0; j < nn; ++j) {
        uint64_t acc = 0;
        for (int64_t q = 0; q < k; ++q) acc += uint64_t(pa[i * k + q] * pb[q * nn + j]);
        out[size_t((t * mm + i) * nn + j)] = requantize(int64_t(acc), shift, rq);
      }
    }
  }
  Shape ys = batch;
  if (!a_vec) ys.push_back(mm);
  if (!b_vec) ys.push_back(nn);
  return int_tensor(ys, out);
}

}  // namespace tauvta::cpu
