// A convolution's bias carried by the GEMM core instead of the tensor ALU. When the host makes a
// layer's input (a folded first layer) and the last input-channel block has spare lanes, the host
// can fill some of them with constants; weights on those lanes then add any per-channel value to
// every accumulator during the reduction the layer runs anyway. The requantization's ADD (bias plus
// rounding constant, 2 ALU cycles per output vector) disappears. Exact: the accumulator sums
// modulo its width, so a value added there equals one added by the ALU afterwards.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hw/hw_config.h"

namespace tauvta::lower {

struct BiasLanes {
  std::vector<int64_t> constants;  // the input value each lane holds at every position
  std::vector<int32_t> weights;    // [channel][lane]: sum over lanes of constant x weight = value
};

// Writes every channel's `values[ch]` (the accumulator-format bias plus rounding constant) as a sum
// over `lanes` lanes of constant x weight, within the config's input and weight widths: lane 0
// holds -1, the others the most negative input, -2^(INP-1). nullopt when some value does not fit.
std::optional<BiasLanes> bias_lanes(const hw::HwConfig& c, const std::vector<int64_t>& values, int64_t lanes);

}  // namespace tauvta::lower
