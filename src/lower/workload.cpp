#include "lower/workload.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "graph/tensor.h"

namespace tauvta::lower {

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::kConv2d: return "conv2d";
    case OpKind::kDense: return "dense";
    case OpKind::kGroupConv2d: return "group_conv2d";
    case OpKind::kConv2dTranspose: return "conv2d_transpose";
  }
  return "?";
}

const char* op_kind_task(OpKind k) {
  switch (k) {
    case OpKind::kConv2d: return "conv2d_packed.vta";
    case OpKind::kDense: return "dense_packed.vta";
    case OpKind::kGroupConv2d: return "group_conv2d_packed.vta";
    case OpKind::kConv2dTranspose: return "conv2d_transpose_packed.vta";
  }
  return "?";
}

OpKind parse_op_kind(const std::string& name) {
  for (int i = 0; i < kNumOpKinds; ++i) {
    const OpKind k = OpKind(i);
    if (name == op_kind_name(k) || name == op_kind_task(k)) return k;
  }
  throw Error(fmt::format("unknown operator '{}' (conv2d, dense, group_conv2d, conv2d_transpose)", name));
}

int64_t ConvWorkload::out_height() const {
  if (kind == OpKind::kConv2dTranspose) {
    return (height - 1) * stride_h - pad_top - pad_bottom + dilation_h * (kernel_h - 1) + output_pad_h + 1;
  }
  return (height + pad_top + pad_bottom - dilation_h * (kernel_h - 1) - 1) / stride_h + 1;
}

int64_t ConvWorkload::out_width() const {
  if (kind == OpKind::kConv2dTranspose) {
    return (width - 1) * stride_w - pad_left - pad_right + dilation_w * (kernel_w - 1) + output_pad_w + 1;
  }
  return (width + pad_left + pad_right - dilation_w * (kernel_w - 1) - 1) / stride_w + 1;
}

uint64_t ConvWorkload::macs() const {
  const uint64_t k = uint64_t(kernel_h * kernel_w);
  if (kind == OpKind::kConv2dTranspose) {
    return uint64_t(batch * height * width) * uint64_t(in_channels) * uint64_t(out_channels / groups) * k;
  }
  return uint64_t(batch) * uint64_t(out_channels) * uint64_t(out_height() * out_width()) *
         uint64_t(in_channels / groups) * k;
}

void ConvWorkload::validate() const {
  auto positive = [](const char* field, int64_t v) {
    if (v < 1) throw Error(fmt::format("workload: {} must be at least 1, got {}", field, v));
  };
  positive("batch", batch);
  positive("in_channels", in_channels);
  positive("height", height);
  positive("width", width);
  positive("out_channels", out_channels);
  positive("kernel_h", kernel_h);
  positive("kernel_w", kernel_w);
  positive("stride_h", stride_h);
  positive("stride_w", stride_w);
  positive("dilation_h", dilation_h);
  positive("dilation_w", dilation_w);
  positive("groups", groups);
  for (auto [f, v] : {std::pair{"pad_top", pad_top}, std::pair{"pad_left", pad_left},
                      std::pair{"pad_bottom", pad_bottom}, std::pair{"pad_right", pad_right},
                      std::pair{"output_pad_h", output_pad_h}, std::pair{"output_pad_w", output_pad_w}}) {
    if (v < 0) throw Error(fmt::format("workload: {} must not be negative, got {}", f, v));
  }
  if (in_channels % groups != 0 || out_channels % groups != 0) {
    throw Error(fmt::format("workload: groups {} must divide in_channels {} and out_channels {}", groups,
                            in_channels, out_channels));
  }
  if (out_height() < 1 || out_width() < 1) {
    throw Error(fmt::format("workload {}: the output is empty", to_string()));
  }
  const int64_t limit = int64_t(1) << 20;
  for (auto [f, v] : {std::pair{"batch", batch}, std::pair{"in_channels", in_channels},
                      std::pair{"height", height}, std::pair{"width", width},
                      std::pair{"out_channels", out_channels}, std::pair{"kernel_h", kernel_h},
                      std::pair{"kernel_w", kernel_w}, std::pair{"stride_h", stride_h},
                      std::pair{"stride_w", stride_w}, std::pair{"dilation_h", dilation_h},
                      std::pair{"dilation_w", dilation_w}, std::pair{"pad_top", pad_top},
                      std::pair{"pad_left", pad_left}, std::pair{"pad_bottom", pad_bottom},
                      std::pair{"pad_right", pad_right}}) {
    if (v > limit) throw Error(fmt::format("workload: {} {} exceeds {}", f, v, limit));
  }
  if (kind == OpKind::kConv2dTranspose) {
    // ONNX and PyTorch: output padding below the stride or the dilation.
    if (output_pad_h >= std::max(stride_h, dilation_h) || output_pad_w >= std::max(stride_w, dilation_w)) {
      throw Error(fmt::format("workload: output padding {}x{} must be smaller than the stride {}x{} or the "
                              "dilation {}x{}",
                              output_pad_h, output_pad_w, stride_h, stride_w, dilation_h, dilation_w));
    }
  } else if (output_pad_h != 0 || output_pad_w != 0) {
    throw Error(fmt::format("workload: output padding {}x{} is only for conv2d_transpose", output_pad_h, output_pad_w));
  }
  // Host copies of the operands are int64: refuse sizes the process would not hold.
  graph::check_tensor_size(graph::DType::kInt64, {batch, in_channels, height, width}, "workload: the input,");
  graph::check_tensor_size(graph::DType::kInt64, {batch, out_channels, out_height(), out_width()},
                           "workload: the output,");
  graph::check_tensor_size(graph::DType::kInt64, {out_channels, in_channels / groups, kernel_h, kernel_w},
                           "workload: the weights,");
}

std::string ConvWorkload::to_string() const {
  if (kind == OpKind::kDense) {
    return fmt::format("dense {}x{} -> {}", batch, in_channels, out_channels);
  }
  std::string s = fmt::format("{} {}x{}x{}x{} -> {} k{}x{} s{}x{} p{},{},{},{} d{}x{} g{}", op_kind_name(kind), batch,
                              in_channels, height, width, out_channels, kernel_h, kernel_w, stride_h, stride_w,
                              pad_top, pad_left, pad_bottom, pad_right, dilation_h, dilation_w, groups);
  if (kind == OpKind::kConv2dTranspose) s += fmt::format(" op{}x{}", output_pad_h, output_pad_w);
  return s;
}

nlohmann::json workload_to_json(const ConvWorkload& w) {
  return {{"kind", op_kind_name(w.kind)}, {"batch", w.batch}, {"in_channels", w.in_channels},
          {"height", w.height}, {"width", w.width}, {"out_channels", w.out_channels},
          {"kernel", {w.kernel_h, w.kernel_w}}, {"stride", {w.stride_h, w.stride_w}},
          {"pads", {w.pad_top, w.pad_left, w.pad_bottom, w.pad_right}},
          {"dilation", {w.dilation_h, w.dilation_w}}, {"groups", w.groups},
          {"output_padding", {w.output_pad_h, w.output_pad_w}}};
}

ConvWorkload workload_from_json(const nlohmann::json& j) {
  ConvWorkload w;
  try {
  // Sizes only from JSON integers: nlohmann casts a float, undefined for one out of range (1e300).
  const auto size = [&](const nlohmann::json& v) {
    if (!v.is_number_integer()) throw Error(fmt::format("workload {}: {} is not an integer", j.dump(), v.dump()));
    return v.get<int64_t>();
  };
  w.kind = parse_op_kind(j.at("kind").get<std::string>());
  w.batch = size(j.at("batch"));
  w.in_channels = size(j.at("in_channels"));
  w.height = size(j.at("height"));
  w.width = size(j.at("width"));
  w.out_channels = size(j.at("out_channels"));
  w.kernel_h = size(j.at("kernel").at(0));
  w.kernel_w = size(j.at("kernel").at(1));
  w.stride_h = size(j.at("stride").at(0));
  w.stride_w = size(j.at("stride").at(1));
  w.pad_top = size(j.at("pads").at(0));
  w.pad_left = size(j.at("pads").at(1));
  w.pad_bottom = size(j.at("pads").at(2));
  w.pad_right = size(j.at("pads").at(3));
  w.dilation_h = size(j.at("dilation").at(0));
  w.dilation_w = size(j.at("dilation").at(1));
  w.groups = size(j.at("groups"));
  w.output_pad_h = size(j.at("output_padding").at(0));
  w.output_pad_w = size(j.at("output_padding").at(1));
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("workload {}: {}", j.dump(), e.what()));
  }
  w.validate();
  return w;
}

}  // namespace tauvta::lower
