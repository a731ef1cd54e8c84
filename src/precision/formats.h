// Per-layer fixed-point formats inside the config's word length W: a value's binary point,
// written Qx.y with 1 + x + y = W (x integer bits, y = frac_bits; either may be negative when the
// binary point lies outside the word). The tunable values are the ones quantization chooses a
// binary point for: what requantizing layers write and the graph's quantized inputs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "backend/network.h"
#include "graph/quantize.h"

namespace tauvta::precision {

using Formats = std::map<std::string, int>;  // float value name -> frac_bits

std::string q_name(int bits, int frac);  // "Q3.4" for 8 bits, frac 4
// "Qx.y" (1 + x + y must equal `bits`) or a plain frac_bits integer; throws naming `what`.
int parse_q(const std::string& text, int bits, const std::string& what);

// One tunable format, in graph order.
struct FormatSlot {
  std::string value;          // float value name (the key of Formats)
  std::string int_value;      // its name in the quantized graph
  std::string node;           // the quantized node writing it
  std::string op;             // QConv, QGemm, Quantize, ...
  int bits = 8;
  int frac = 0;
  int64_t network_layer = -1;  // the accelerator layer writing it (-1: written on the host)
};

// The slots of a quantization result; `net` (compiled from q.graph) sets network_layer.
std::vector<FormatSlot> format_slots(const graph::QuantizeResult& q, const backend::CompiledNetwork* net);

// The slots of a compiled network's quantized graph (an artifact holds no float graph: the
// value is the quantized graph's name, which equals the float one except for graph outputs).
std::vector<FormatSlot> format_slots(const backend::CompiledNetwork& net);

// A formats file: one `LAYER=Qx.y` (or `LAYER=frac_bits`) per line, blank lines and `#` comments
// allowed. LAYER is a slot's float value, its quantized value or the node writing it (for a fused
// layer, the node of its first operator). Returns the named slots' formats by float value name;
// throws naming the file, the line and what is wrong (unknown layer, a layer given twice, a format
// that is not W bits).
Formats read_formats_file(const std::string& path, const std::vector<FormatSlot>& slots, int bits);

// Q0.(W-1) for every slot: OTune's starting point.
Formats uniform_formats(const std::vector<FormatSlot>& slots, int frac);
Formats formats_of(const std::vector<FormatSlot>& slots);

}  // namespace tauvta::precision
