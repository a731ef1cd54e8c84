#include "graph/conv_geometry.h"

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::graph {

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

std::vector<int64_t> ints_of_rank(const Node& n, const char* key, size_t rank, int64_t fallback) {
  std::vector<int64_t> v = n.attr_ints_or(key, std::vector<int64_t>(rank, fallback));
  if (v.size() != rank) {
    throw Error(fmt::format("{}: attribute '{}' has {} values, the input has {} spatial dimensions", n.describe(),
                            key, v.size(), rank));
  }
  return v;
}

// Common part: kernel (from the attribute or the weight), strides, dilations, explicit pads.
WindowGeometry base_geometry(const Node& n, const Shape& x, const Shape* w) {
  if (x.size() < 3) {
    throw Error(fmt::format("{}: input has shape {}; expected [N, C, spatial...] with at least one spatial "
                            "dimension", n.describe(), shape_string(x)));
  }
  const size_t rank = x.size() - 2;
  WindowGeometry g;
  if (n.has_attr("kernel_shape")) {
    g.kernel = ints_of_rank(n, "kernel_shape", rank, 1);
  } else if (w != nullptr) {
    if (w->size() != x.size()) {
      throw Error(fmt::format("{}: weight shape {} does not match input shape {} (rank {} expected)", n.describe(),
                              shape_string(*w), shape_string(x), x.size()));
    }
    g.kernel.assign(w->begin() + 2, w->end());
  } else {
    throw Error(fmt::format("{}: missing attribute 'kernel_shape'", n.describe()));
  }
  g.strides = ints_of_rank(n, "strides", rank, 1);
  g.dilations = ints_of_rank(n, "dilations", rank, 1);
  const std::vector<int64_t> pads = n.attr_ints_or("pads", std::vector<int64_t>(2 * rank, 0));
  if (pads.size() != 2 * rank) {
    throw Error(fmt::format("{}: attribute 'pads' has {} values, expected {} (begin and end per spatial "
                            "dimension)", n.describe(), pads.size(), 2 * rank));
  }
  g.pads_begin.assign(pads.begin(), pads.begin() + int64_t(rank));
  g.pads_end.assign(pads.begin() + int64_t(rank), pads.end());
  g.group = n.attr_int_or("group", 1);
  g.output.assign(rank, -1);
  // -1 is an unknown weight dimension (shape inference); anything else must be a real window.
  for (size_t i = 0; i < rank; ++i) {
    if (g.kernel[i] == 0 || g.kernel[i] < -1 || g.strides[i] < 1 || g.dilations[i] < 1 ||
        g.pads_begin[i] < 0 || g.pads_end[i] < 0) {
      throw Error(fmt::format("{}: kernel {}, strides {}, dilations {} must be positive and pads {} "
                              "non-negative",
                              n.describe(), shape_string(g.kernel), shape_string(g.strides),
                              shape_string(g.dilations), shape_string(pads)));
    }
  }
  const std::string auto_pad = n.attr_string_or("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" &&
      auto_pad != "VALID") {
    throw Error(fmt::format("{}: auto_pad '{}' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID",
                            n.describe(), auto_pad));
  }
  return g;
}

// Conv and pools: the forward sliding window.
void forward_output(const Node& n, const Shape& x, WindowGeometry& g, bool ceil_mode) {
  const std::string auto_pad = n.attr_string_or("auto_pad", "NOTSET");
  for (size_t i = 0; i < g.spatial_rank(); ++i) {
    const int64_t in = x[i + 2], k = g.kernel[i], s = g.strides[i], d = g.dilations[i];
    if (k < 0) continue;  // kernel from an unknown weight dimension
    const int64_t extent = (k - 1) * d + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      if (in < 0) continue;
      const int64_t out = ceil_div(in, s);
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + extent - in);
      const int64_t small = total / 2, large = total - total / 2;
      g.pads_begin[i] = auto_pad == "SAME_UPPER" ? small : large;
      g.pads_end[i] = auto_pad == "SAME_UPPER" ? large : small;
      g.output[i] = out;
      continue;
    }
    if (auto_pad == "VALID") g.pads_begin[i] = g.pads_end[i] = 0;
    if (in < 0) continue;
    const int64_t span = in + g.pads_begin[i] + g.pads_end[i] - extent;
    if (span < 0) {
      throw Error(fmt::format("{}: the window (extent {}) is larger than spatial dimension {} of size {} plus "
                              "padding {}+{}", n.describe(), extent, i, in, g.pads_begin[i], g.pads_end[i]));
    }
    int64_t out = (ceil_mode ? ceil_div(span, s) : span / s) + 1;
    // A window that would start in the end padding is dropped (PyTorch's rule, ONNX since 1.15).
    if (ceil_mode && (out - 1) * s >= in + g.pads_begin[i]) --out;
    g.output[i] = out;
  }
}

}  // namespace

WindowGeometry conv_geometry(const Node& n, const Shape& x, const Shape& w) {
  WindowGeometry g = base_geometry(n, x, &w);
  if (w.size() != x.size()) {
    throw Error(fmt::format("{}: weight shape {} does not match input shape {} (rank {} expected)", n.describe(),
                            shape_string(w), shape_string(x), x.size()));
  }
  for (size_t i = 0; i < g.spatial_rank(); ++i) {
    if (w[i + 2] >= 0 && g.kernel[i] != w[i + 2]) {
      throw Error(fmt::format("{}: kernel_shape {} does not match the weight shape {}", n.describe(),
                              shape_string(g.kernel), shape_string(w)));
    }
  }
  forward_output(n, x, g, false);
  return g;
}

WindowGeometry conv_transpose_geometry(const Node& n, const Shape& x, const Shape& w) {
  WindowGeometry g = base_geometry(n, x, &w);
  if (w.size() != x.size()) {
    throw Error(fmt::format("{}: weight shape {} does not match input shape {} (rank {} expected)", n.describe(),
                            shape_string(w), shape_string(x), x.size()));
  }
  const size_t rank = g.spatial_rank();
  g.output_padding = ints_of_rank(n, "output_padding", rank, 0);
  const std::string auto_pad = n.attr_string_or("auto_pad", "NOTSET");
  const bool has_output_shape = n.has_attr("output_shape");
  std::vector<int64_t> output_shape;
  if (has_output_shape) {
    output_shape = n.attr_ints("output_shape");
    if (output_shape.size() == rank + 2) output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
    if (output_shape.size() != rank) {
      throw Error(fmt::format("{}: attribute 'output_shape' has {} values, the input has {} spatial dimensions",
                              n.describe(), n.attr_ints("output_shape").size(), rank));
    }
  }
  for (size_t i = 0; i < rank; ++i) {
    const int64_t in = x[i + 2], k = g.kernel[i], s = g.strides[i], d = g.dilations[i];
    if (in < 0 || k < 0) continue;
    const int64_t full = s * (in - 1) + g.output_padding[i] + (k - 1) * d + 1;
    int64_t out;
    if (has_output_shape || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = has_output_shape ? output_shape[i] : in * s;
      const int64_t total = std::max<int64_t>(0, full - out);
      // The ONNX rule: SAME_UPPER puts the odd pad at the end, anything else at the beginning.
      g.pads_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else {
      if (auto_pad == "VALID") g.pads_begin[i] = g.pads_end[i] = 0;
      out = full - g.pads_begin[i] - g.pads_end[i];
      if (out <= 0) {
        throw Error(fmt::format("{}: pads {}+{} leave no output in spatial dimension {} (full size {})", n.describe(),
                                g.pads_begin[i], g.pads_end[i], i, full));
      }
    }
    g.pads_end[i] = full - g.pads_begin[i] - out;
    g.output[i] = out;
  }
  return g;
}

WindowGeometry pool_geometry(const Node& n, const Shape& x) {
  WindowGeometry g = base_geometry(n, x, nullptr);
  g.ceil_mode = n.attr_int_or("ceil_mode", 0) != 0;
  g.count_include_pad = n.attr_int_or("count_include_pad", 0) != 0;
  forward_output(n, x, g, g.ceil_mode);
  return g;
}

}  // namespace tauvta::graph
