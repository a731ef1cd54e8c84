// Comparisons and logic: Equal, Greater, GreaterOrEqual, Less, LessOrEqual (broadcasting, bool
// out), Not, And, Or, Xor (bool), and Where (three-way broadcast). Exported transformers build
// their masks and shape selections from these; constant folding evaluates most of them away.
#include <fmt/format.h>

#include "cpu/float_ops_broadcast.h"
#include "cpu/float_ops_dispatch.h"
#include "cpu/op_registry.h"

namespace tauvta::cpu {

namespace {

enum class Cmp { kEq, kGt, kGe, kLt, kLe };

std::vector<Tensor> compare(const OpArgs& a, Cmp kind) {
  const Tensor &x = a.in(0), &y = a.in(1);
  if (x.dtype() != y.dtype()) {
    a.fail(fmt::format("operands have different dtypes ({} and {})", graph::dtype_name(x.dtype()),
                       graph::dtype_name(y.dtype())));
  }
  if (x.dtype() == DType::kBool && kind != Cmp::kEq) a.fail("does not take dtype bool");
  Tensor out(DType::kBool, broadcast_shapes(a, x.shape(), y.shape()));
  dispatch_any(a, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    switch (kind) {
      case Cmp::kEq: broadcast_binary<T, T, bool>(x, y, out, [](T p, T q) { return p == q; }); break;
      case Cmp::kGt: broadcast_binary<T, T, bool>(x, y, out, [](T p, T q) { return p > q; }); break;
      case Cmp::kGe: broadcast_binary<T, T, bool>(x, y, out, [](T p, T q) { return p >= q; }); break;
      case Cmp::kLt: broadcast_binary<T, T, bool>(x, y, out, [](T p, T q) { return p < q; }); break;
      case Cmp::kLe: broadcast_binary<T, T, bool>(x, y, out, [](T p, T q) { return p <= q; }); break;
    }
  });
  return outputs(std::move(out));
}

template <class Op>
std::vector<Tensor> logical(const OpArgs& a, Op op) {
  a.expect_dtype(0, {DType::kBool});
  a.expect_dtype(1, {DType::kBool});
  const Tensor &x = a.in(0), &y = a.in(1);
  Tensor out(DType::kBool, broadcast_shapes(a, x.shape(), y.shape()));
  broadcast_binary<bool, bool, bool>(x, y, out, op);
  return outputs(std::move(out));
}

}  // namespace

std::vector<Tensor> op_Equal(const OpArgs& a) { return compare(a, Cmp::kEq); }
std::vector<Tensor> op_Greater(const OpArgs& a) { return compare(a, Cmp::kGt); }
std::vector<Tensor> op_GreaterOrEqual(const OpArgs& a) { return compare(a, Cmp::kGe); }
std::vector<Tensor> op_Less(const OpArgs& a) { return compare(a, Cmp::kLt); }
std::vector<Tensor> op_LessOrEqual(const OpArgs& a) { return compare(a, Cmp::kLe); }
std::vector<Tensor> op_And(const OpArgs& a) { return logical(a, [](bool p, bool q) { return p && q; }); }
std::vector<Tensor> op_Or(const OpArgs& a) { return logical(a, [](bool p, bool q) { return p || q; }); }
std::vector<Tensor> op_Xor(const OpArgs& a) { return logical(a, [](bool p, bool q) { return p != q; }); }

std::vector<Tensor> op_Not(const OpArgs& a) {
  a.expect_dtype(0, {DType::kBool});
  const Tensor& x = a.in(0);
  Tensor out(DType::kBool, x.shape());
  const bool* px = x.data<bool>();
  bool* po = out.data<bool>();
  for (int64_t i = 0; i < x.size(); ++i) po[i] = !px[i];
  return outputs(std::move(out));
}

// out = cond ? x : y, the three broadcast together. The output index is walked once; each
// operand's offset follows from its own strides (0 along its broadcast dimensions).
std::vector<Tensor> op_Where(const OpArgs& a) {
  a.expect_dtype(0, {DType::kBool});
  const Tensor &c = a.in(0), &x = a.in(1), &y = a.in(2);
  if (x.dtype() != y.dtype()) {
    a.fail(fmt::format("X is {}, Y is {}", graph::dtype_name(x.dtype()), graph::dtype_name(y.dtype())));
  }
  const Shape shape = broadcast_shapes(a, broadcast_shapes(a, c.shape(), x.shape()), y.shape());
  Tensor out(x.dtype(), shape);
  const size_t r = shape.size();
  const std::vector<int64_t> sc = broadcast_strides(c.shape(), r), sx = broadcast_strides(x.shape(), r),
                             sy = broadcast_strides(y.shape(), r);
  dispatch_any(a, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const bool* pc = c.data<bool>();
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    T* po = out.data<T>();
    std::vector<int64_t> idx(r, 0);
    int64_t oc = 0, ox = 0, oy = 0;
    for (int64_t i = 0; i < out.size(); ++i) {
      po[i] = pc[oc] ? px[ox] : py[oy];
      for (size_t k = r; k-- > 0;) {  // odometer
        ++idx[k];
        oc += sc[k];
        ox += sx[k];
        oy += sy[k];
        if (idx[k] < shape[k]) break;
        oc -= sc[k] * shape[k];
        ox -= sx[k] * shape[k];
        oy -= sy[k] * shape[k];
        idx[k] = 0;
      }
    }
  });
  return outputs(std::move(out));
}

}  // namespace tauvta::cpu
