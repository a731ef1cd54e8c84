// Post-training quantization to power-of-two fixed point, the arithmetic of VTA's GEMM core and
// tensor ALU. quantize() is a pure Graph -> Graph transform: calibration statistics come in
// (cpu/calibration.h gathers them), a graph of tauvta integer operators comes out, each carrying
// its shifts and clip bounds as attributes. docs/quantization.md describes the operator set.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "graph/graph.h"

namespace tauvta::graph {

// How a value's binary point is chosen from its statistics.
enum class CalibStatistic {
  kMax,         // no value clips: the largest frac_bits that holds the observed extremes
  kPercentile,  // the chosen percentile of |x| just fits; the rarer outliers clip
  kMse,         // the frac_bits minimizing the expected squared quantization error
};
const char* calib_statistic_name(CalibStatistic s);  // "max", "percentile", "mse"
CalibStatistic parse_calib_statistic(const std::string& name);  // throws naming the value

// Statistics of one value over all calibration samples: signed extremes and a log-linear
// histogram of magnitudes per sign (32 bins per octave), so that every statistic above is
// computed after one pass over the data and histograms of batches merge exactly.
class ValueHistogram {
 public:
  static constexpr int kSubBins = 32;   // bins per octave
  static constexpr int kMinExp = -48;   // |x| < 2^kMinExp counts as zero
  static constexpr int kMaxExp = 48;    // |x| >= 2^kMaxExp lands in the top bin

  ValueHistogram();
  void add(std::span<const float> values);
  void merge(const ValueHistogram& other);

  uint64_t count() const { return count_; }
  float min() const { return min_; }  // 0 when empty
  float max() const { return max_; }
  float abs_max() const;
  // The magnitude below which `percent` percent of the values lie (upper bin edge).
  float abs_percentile(double percent) const;
  // Expected squared error per value when quantized to `bits` with `frac_bits` (rounding to the
  // nearest step, clipping to the two's-complement range).
  double quantization_mse(int bits, int frac_bits) const;

 private:
  static int bin_of(float magnitude);
  static double bin_lower(int bin);
  static double bin_upper(int bin);
  std::vector<uint64_t> pos_, neg_;
  uint64_t zeros_ = 0, count_ = 0;
  float min_ = 0, max_ = 0;
};

// Calibration statistics by value name (names of the float graph given to quantize()).
using CalibrationStats = std::map<std::string, ValueHistogram>;

// frac_bits are searched in this range; a value whose statistics put it outside (all zeros, or a
// 1-bit format that cannot hold a positive value) gets the nearest bound.
inline constexpr int kMinFracBits = -32;
inline constexpr int kMaxFracBits = 48;

// The frac_bits for `bits`-wide values with these statistics. `percentile` is used by kPercentile.
int choose_frac_bits(const ValueHistogram& h, int bits, CalibStatistic stat, double percentile);

// Rounding of float -> fixed point everywhere (graph inputs, weights, biases, fallback outputs):
// nearest, ties to even (ONNX QuantizeLinear's rule), then clipped to the `bits`-wide range.
int64_t quantize_value(double x, int frac_bits, int bits);

// A weight's fixed-point format as an imported quantized model fixes it (graph/fake_quant.h):
// quantize() uses it in place of the weight statistic.
struct WeightFormat {
  std::vector<int> frac_bits;  // one (per tensor) or one per slice of `axis`
  int64_t axis = 0;
  int64_t qmin = 0, qmax = 0;  // the range of the integers the model holds (zero point removed)
  std::string node;            // "node 'w_q' (QuantizeLinear)": the node that quantized them
  std::string error;           // non-empty: what tauvta cannot represent (quantize() throws it)
};

struct QuantizeOptions {
  int act_bits = 8;   // activations (the config's input width; outputs have the same width)
  int wgt_bits = 8;   // weights (the config's weight width)
  int acc_bits = 32;  // accumulator (the config's acc width): wraps, holds biases
  CalibStatistic act_stat = CalibStatistic::kMax;
  double percentile = 99.99;
  CalibStatistic wgt_stat = CalibStatistic::kMse;  // weights: max or mse
  bool per_channel = false;  // per-output-channel weight frac_bits (and per-channel shifts)
  // Binary points chosen by the caller (the precision tools): float value name -> frac_bits of
  // its fixed-point form, in place of what calibration picks. A name no quantized activation
  // has is an error; a value the statistics never saw may still be given one here.
  std::map<std::string, int> formats;
  // Weight initializer -> the format an imported quantized model gives it (per tensor, or per
  // output channel whatever `per_channel` says).
  std::map<std::string, WeightFormat> weight_formats;
};

// One requantizing layer, for reports and the precision tools.
struct QuantLayer {
  std::string node;     // node name in the quantized graph
  std::string op_type;  // QConv, QGemm, ...
  std::string output;   // its (integer) output value
  int in_frac = 0;      // first input's frac_bits
  int wgt_frac = 0;     // weights' frac_bits (the smallest per-channel value when per-channel)
  int out_frac = 0;
  std::vector<int> shifts;  // one, or one per output channel
  int64_t clip_min = 0, clip_max = 0;
  double worst_case_acc = 0;  // largest |accumulator| the inputs' ranges allow (0: not a reduction)
};

struct QuantizeResult {
  Graph graph;
  std::vector<std::string> warnings;       // accumulator overflow risks, clipped biases, ...
  std::vector<std::string> cpu_fallbacks;  // nodes left in float between Dequantize/Quantize
  std::vector<QuantLayer> layers;
  // Every activation's frac_bits, by float value name, as quantize() chose it (or was given it):
  // the formats a caller can pass back through QuantizeOptions::formats.
  std::map<std::string, int> activation_formats;
  // Float graph value -> the quantized graph value holding its integer version (for per-layer
  // error reports). Values that only exist in float (fallback outputs) map to themselves.
  std::map<std::string, std::string> value_map;
};

// Thrown by quantize() when a value it needs a format for has no statistics (and no given or
// imported format): the model pipeline quantizes an imported quantized model without
// calibrating first and calibrates only when this says it must.
class MissingStatistics : public Error {
 public:
  using Error::Error;
};

// Thrown by quantize() when an imported quantized model's integer ranges (graph/fake_quant.h) do
// not fit the widths asked for (a W4A4 model at 2 bits): the model cannot run at that format,
// which an exploration can treat as an infeasible format rather than a failure.
class ImportedWidthError : public Error {
 public:
  using Error::Error;
};

// Quantizes a float graph (shapes inferred, constants and batch norms folded). Every graph input
// and every value an integer operator produces needs statistics in `stats`; a missing one is an
// error naming the value. Graph outputs stay float (a Dequantize produces each one).
QuantizeResult quantize(const Graph& g, const CalibrationStats& stats, const QuantizeOptions& options);

// The operators of the quantized op set (docs/quantization.md), Quantize and Dequantize included.
bool is_quantized_op(const std::string& op_type);

// Why quantization keeps a float operator as a float fallback ("a transcendental function (no
// integer form on the tensor ALU)", "mode 'linear' interpolates new values", ...), or "" when
// the only reason is that no integer form exists for it. Placement reports show the same text.
std::string float_fallback_why(const Node& n);

// The integer path (this pass, the integer executor, the accelerator's runner and artifacts)
// moves tensors between nodes, so a graph with sequences of tensors (ONNX's sequence type) stays
// on the float reference: throws tauvta::Error naming the first node that takes or makes one and
// why. quantize() checks it first; the model pipeline checks it before calibrating.
void refuse_sequences(const Graph& g);

// A requantizing node's SHR amount per output channel: its `shift` attribute is one int (per
// tensor) or a list with one entry per output channel. Throws naming the node otherwise.
std::vector<int64_t> requant_shifts(const Node& n, int64_t channels);

// Checks the integer attributes of every quantized operator against the value infos (widths,
// shifts within the accumulator, clip bounds ordered); throws naming the node.
void verify_quantized(const Graph& g);

}  // namespace tauvta::graph
