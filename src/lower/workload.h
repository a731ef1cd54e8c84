// Workload: what one accelerator operator computes, independent of how it is tiled. The four
// task families of TVM's VTA templates (conv2d_packed, dense_packed, group_conv2d_packed,
// conv2d_transpose_packed) share one description in unblocked sizes; a dense layer is a 1x1
// convolution on a 1x1 image. Workloads key the tuning records and the per-layer reports.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace tauvta::lower {

enum class OpKind : uint8_t { kConv2d, kDense, kGroupConv2d, kConv2dTranspose };
inline constexpr int kNumOpKinds = 4;

// "conv2d", "dense", "group_conv2d", "conv2d_transpose" (the `tauvta op` names).
const char* op_kind_name(OpKind k);
// The AutoTVM task name: "conv2d_packed.vta", ...
const char* op_kind_task(OpKind k);
// Parses either form; throws tauvta::Error naming the value.
OpKind parse_op_kind(const std::string& name);

struct ConvWorkload {
  OpKind kind = OpKind::kConv2d;
  int64_t batch = 1;
  int64_t in_channels = 0, height = 1, width = 1;  // input, unblocked
  int64_t out_channels = 0;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t groups = 1;
  int64_t output_pad_h = 0, output_pad_w = 0;  // conv2d_transpose only

  int64_t out_height() const;
  int64_t out_width() const;
  // Multiply-accumulates of the real (unpadded) computation.
  uint64_t macs() const;
  // Checks sizes are positive and consistent (groups divide the channels, pads non-negative,
  // the output non-empty); throws tauvta::Error naming the field and value.
  void validate() const;
  // "conv2d 1x64x56x56 -> 64 k3x3 s1x1 p1,1,1,1 d1x1 g1"
  std::string to_string() const;
  friend bool operator==(const ConvWorkload&, const ConvWorkload&) = default;
  friend auto operator<=>(const ConvWorkload&, const ConvWorkload&) = default;
};

// The workload as a JSON object of its unblocked sizes (artifacts, tuning records whose blocked
// arguments cannot say it exactly); from_json validates and throws tauvta::Error naming the key.
nlohmann::json workload_to_json(const ConvWorkload& w);
ConvWorkload workload_from_json(const nlohmann::json& j);

}  // namespace tauvta::lower
