// Importing quantized models (docs/quantization.md, "Importing quantized models"): the fake
// quantization a QDQ or QONNX model carries becomes tauvta's fixed-point formats.
//
//   QuantizeLinear -> [Clip on the integer] -> DequantizeLinear     (ONNX QDQ, PyTorch)
//   Quant(x, scale, zeropoint, bitwidth) {signed, narrow, rounding_mode}, BipolarQuant(x, scale)
//                                                                   (QONNX: Brevitas, FINN)
//
// On an activation the pattern becomes one internal FakeQuant node, which the float reference
// runs with the model's own scale (so the float model is the fake-quantized one) and quantize()
// reads as the value's format and integer range, in place of calibration. On a constant weight
// the pattern is evaluated (the float weight the model computes with) and its format goes to
// FakeQuantImport::weights, which quantize() uses in place of the weight statistic, so the
// integers land exactly where the model put them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/quantize.h"

namespace tauvta::graph {

struct FakeQuantImport {
  Graph graph;
  std::map<std::string, WeightFormat> weights;  // float weight initializer -> its format
  std::vector<std::string> warnings;            // scales rounded to a power of two
};

// Rewrites every pattern above. A scale that is not a power of two is rounded to the nearest one
// (in log2) with a warning naming the node, the value and the relative change. What tauvta
// cannot represent (a non-zero zero point, a per-channel activation scale, ...) is recorded on the
// FakeQuant node (attribute `error`) or the WeightFormat, and quantize() throws it as a one-line
// error naming the node, the field and the value; the float model still runs. Malformed or
// unsupported nodes (a rounding mode other than ROUND, a scale that is not a constant) are errors
// here. Graphs without such patterns come back unchanged.
FakeQuantImport fold_fake_quant(const Graph& g);

// The FakeQuant node's float semantics, one element: `bipolar` ? (x >= 0 ? scale : -scale)
// : (clip(round_half_even(x / scale) + zero_point, qmin, qmax) - zero_point) * scale.
float fake_quant_value(float x, float scale, int64_t zero_point, int64_t qmin, int64_t qmax, bool bipolar);

}  // namespace tauvta::graph
