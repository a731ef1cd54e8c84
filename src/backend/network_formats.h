// Moving binary points of a compiled network in place. The network's float graph is quantized
// again with the new formats (every other activation keeps its own), the quantized graph is
// swapped in, every accelerator layer whose requantization changed gets its ALU immediates and
// bias/shift constants rewritten at the patch sites lowering recorded, and CPU layers take their
// nodes from the new graph. No layer is lowered again; a change that would need other
// instructions (a shift split into more pieces, a residual add that no longer fuses) is refused
// naming the layer, and the network is left as it was.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "backend/network.h"

namespace tauvta::backend {

struct FormatPatch {
  std::vector<std::string> patched_layers;  // accelerator layers whose immediates/constants changed
  std::vector<std::string> cpu_layers;      // CPU layers whose node changed
};

// `changes`: activation (float value name) -> frac_bits.
FormatPatch set_formats(CompiledNetwork& net, const std::map<std::string, int>& changes);

// Records what `net` was quantized from (the float graph, options, and every activation's format)
// so its formats can be set later.
void attach_quant_source(CompiledNetwork& net, const graph::Graph& float_graph, const graph::QuantizeResult& q,
                         const graph::QuantizeOptions& options);

// The activation formats (float value name -> frac_bits) the network computes with.
std::map<std::string, int> network_formats(const CompiledNetwork& net);

}  // namespace tauvta::backend
