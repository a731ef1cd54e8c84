// Internal to the quantization pass: the state of one quantize() run. It maps every float value to
// its integer and float versions in the graph being built, inserting Quantize and Dequantize
// nodes where a value crosses between an integer operator and a float fallback.
#pragma once

#include <cmath>
#include <map>
#include <set>
#include <string>

#include "graph/quantize.h"

namespace tauvta::graph::detail {

// The activation (Relu or Clip) folded into a requantizing node's clip bounds.
struct Fusion {
  const Node* act = nullptr;  // nullptr: nothing fused
  const Node* fake_quant = nullptr;  // an imported FakeQuant after it (or after act), fused too
  double lo = -INFINITY, hi = INFINITY;
  std::string output;  // the float value the fused node computes
};

class QuantBuilder {
 public:
  QuantBuilder(const Graph& src, const CalibrationStats& stats, const QuantizeOptions& options);

  // Each returns false when the node cannot be quantized (it then becomes a float fallback).
  bool linear_layer(const Node& n, std::set<std::string>& fused);  // Conv, ConvTranspose, Gemm, MatMul
  // Throws naming a given format that matched no activation.
  void check_formats_used() const;
  void matmul(const Node& n, std::set<std::string>& fused);         // activation x activation
  bool elementwise(const Node& n, std::set<std::string>& fused);    // Add, Sub, Mul
  bool clip(const Node& n);                                         // standalone Relu, Clip
  void fake_quant(const Node& n);  // an imported FakeQuant no producer absorbed: QClip or nothing
  bool average_pool(const Node& n);
  void concat(const Node& n);
  void pass_through(const Node& n);
  // `why` goes into QuantizeResult::cpu_fallbacks after the node's description.
  void float_fallback(const Node& n, const std::string& why = "float kernel between Dequantize and Quantize");

  void finish_outputs();
  QuantizeResult take_result();

 private:
  std::string int_input(const std::string& v);
  std::string float_input(const std::string& v);
  std::string int_output(const std::string& v, int frac_bits, int bits);
  const ValueHistogram& stats_of(const std::string& v) const;
  int activation_frac(const std::string& v);
  int frac_of(const std::string& int_value) const;
  int bits_of(const std::string& int_value) const;
  std::string fresh(const std::string& base);
  std::string add_initializer(const std::string& base, Tensor t, QuantParams q);
  Fusion find_fusion(const Node& n) const;
  // Throws the error an imported FakeQuant carries, or that its integer range does not fit the
  // activation width.
  void check_fake_quant(const Node& fq) const;
  // The formats of imported FakeQuant nodes: their outputs', and their inputs' (a value read by
  // one gets its format unless something else gives it one).
  std::map<std::string, int> imported_;
  // The format an imported model gives a linear layer's weights (nullptr: none); throws what it
  // cannot represent.
  const WeightFormat* imported_weight_format(const Node& n, bool channel_axis0, int64_t channels);
  // Clip bounds of a requantizing node writing `bits`-wide values at `frac_bits`.
  std::pair<int64_t, int64_t> clip_bounds(const Fusion& f, int frac_bits, int bits) const;
  // A constant operand quantized at 16 bits (the ALU immediate width), frac at most `frac_cap`.
  std::string constant_operand(const std::string& init, int frac_cap);
  void check_accumulator(const Node& n, double worst, const std::string& where);
  // Requantization shifts (accumulator binary point minus output binary point) outside
  // -(acc_bits - 1)..(acc_bits - 1) cannot be done. An illegal shift is brought back to the
  // nearest useful one: a too-large shift to acc_bits - out_bits (the largest at which the
  // accumulator still holds the whole output range, and so the bias; acc_bits - 1 when outputs
  // are as wide as the accumulator), a too-negative one to -(acc_bits - 1).
  int max_shift() const { return opt_.acc_bits - 1; }
  int fitted_shift() const { return opt_.acc_bits > opt_.act_bits ? opt_.acc_bits - opt_.act_bits : max_shift(); }
  // `f_out` of `value` moved when a shift from an accumulator binary point in [acc_lo, acc_hi]
  // would be illegal, with a warning naming node `n`; the value's recorded format follows.
  int fit_output_frac(const Node& n, const std::string& value, int f_out, int acc_lo, int acc_hi);
  void add_requant_attrs(Node& q, int64_t shift, std::pair<int64_t, int64_t> clip, int out_bits,
                         const Fusion& f) const;
  void emit(Node n) { res_.graph.nodes.push_back(std::move(n)); }

  const Graph& src_;
  const CalibrationStats& stats_;
  QuantizeOptions opt_;
  QuantizeResult res_;
  std::map<std::string, std::string> int_of_, float_of_;
  std::set<std::string> names_;  // every name used in either graph
};

}  // namespace tauvta::graph::detail
