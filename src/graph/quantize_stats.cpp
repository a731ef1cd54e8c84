// Value statistics and the choice of a binary point: the log-linear magnitude histogram, the
// max / percentile / minimum-MSE rules, and float -> fixed-point rounding.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "common/error.h"
#include "graph/quantize.h"

namespace tauvta::graph {

namespace {
constexpr int kBins = (ValueHistogram::kMaxExp - ValueHistogram::kMinExp) * ValueHistogram::kSubBins;
}

const char* calib_statistic_name(CalibStatistic s) {
  switch (s) {
    case CalibStatistic::kMax: return "max";
    case CalibStatistic::kPercentile: return "percentile";
    case CalibStatistic::kMse: return "mse";
  }
  return "?";
}

CalibStatistic parse_calib_statistic(const std::string& name) {
  if (name == "max") return CalibStatistic::kMax;
  if (name == "percentile") return CalibStatistic::kPercentile;
  if (name == "mse") return CalibStatistic::kMse;
  throw Error(fmt::format("calibration statistic '{}': expected max, percentile or mse", name));
}

ValueHistogram::ValueHistogram() : pos_(kBins, 0), neg_(kBins, 0) {}

// Bin of a magnitude >= 2^kMinExp from its float bits: the exponent picks the octave, the top
// five mantissa bits the sub-bin (kSubBins = 32).
int ValueHistogram::bin_of(float magnitude) {
  static_assert(kSubBins == 32, "bin_of reads five mantissa bits");
  const uint32_t bits = std::bit_cast<uint32_t>(magnitude);
  const int exp = int((bits >> 23) & 0xff) - 127;  // magnitude in [2^exp, 2^(exp+1))
  const int sub = int((bits >> 18) & 31);
  const int bin = (exp - kMinExp) * kSubBins + sub;
  return std::min(bin, kBins - 1);
}

double ValueHistogram::bin_lower(int bin) {
  const int oct = bin / kSubBins, sub = bin % kSubBins;
  return std::ldexp(1.0 + double(sub) / kSubBins, oct + kMinExp);
}

double ValueHistogram::bin_upper(int bin) {
  const int oct = bin / kSubBins, sub = bin % kSubBins;
  return std::ldexp(1.0 + double(sub + 1) / kSubBins, oct + kMinExp);
}

void ValueHistogram::add(std::span<const float> values) {
  const float tiny = std::ldexp(1.0f, kMinExp);
  for (const float v : values) {
    if (std::isnan(v)) continue;
    if (count_ == 0) {
      min_ = max_ = v;
    } else {
      min_ = std::min(min_, v);
      max_ = std::max(max_, v);
    }
    ++count_;
    const float m = std::fabs(v);
    if (m < tiny) {
      ++zeros_;
    } else if (v > 0) {
      ++pos_[size_t(bin_of(std::min(m, std::numeric_limits<float>::max())))];
    } else {
      ++neg_[size_t(bin_of(std::min(m, std::numeric_limits<float>::max())))];
    }
  }
}

void ValueHistogram::merge(const ValueHistogram& other) {
  if (other.count_ == 0) return;
  if (count_ == 0) {
    min_ = other.min_;
    max_ = other.max_;
  } else {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
  count_ += other.count_;
  zeros_ += other.zeros_;
  for (int b = 0; b < kBins; ++b) {
    pos_[size_t(b)] += other.pos_[size_t(b)];
    neg_[size_t(b)] += other.neg_[size_t(b)];
  }
}

float ValueHistogram::abs_max() const { return std::max(std::fabs(min_), std::fabs(max_)); }

float ValueHistogram::abs_percentile(double percent) const {
  if (count_ == 0) return 0;
  const double target = std::ceil(std::clamp(percent, 0.0, 100.0) / 100.0 * double(count_));
  double seen = double(zeros_);
  if (seen >= target) return 0;
  for (int b = 0; b < kBins; ++b) {
    seen += double(pos_[size_t(b)] + neg_[size_t(b)]);
    if (seen >= target) return float(std::min(bin_upper(b), double(abs_max())));
  }
  return abs_max();
}

double ValueHistogram::quantization_mse(int bits, int frac_bits) const {
  if (count_ == 0) return 0;
  const double step = std::ldexp(1.0, -frac_bits);
  const double qmax = std::ldexp(1.0, bits - 1) - 1;
  const double hi = qmax * step;                          // largest positive value
  const double lo = std::ldexp(1.0, bits - 1) * step;     // magnitude of the most negative one
  const double rounding = step * step / 12;               // uniform rounding noise
  auto bin_error = [&](double center, double limit) {
    if (center > limit) return (center - limit) * (center - limit);  // clipped
    if (center < step / 2) return center * center;                   // rounds to zero
    return rounding;
  };
  double sum = 0;
  for (int b = 0; b < kBins; ++b) {
    if (pos_[size_t(b)] == 0 && neg_[size_t(b)] == 0) continue;
    const double center = 0.5 * (bin_lower(b) + bin_upper(b));
    if (pos_[size_t(b)] != 0) {
      sum += double(pos_[size_t(b)]) * bin_error(std::min(center, double(max_)), hi);
    }
    if (neg_[size_t(b)] != 0) {
      sum += double(neg_[size_t(b)]) * bin_error(std::min(center, double(-min_)), lo);
    }
  }
  return sum / double(count_);
}

namespace {

// Largest frac_bits at which `magnitude` still rounds to at most `limit` steps.
int largest_fitting_frac(double magnitude, double limit) {
  for (int f = kMaxFracBits; f > kMinFracBits; --f) {
    if (std::ldexp(magnitude, f) < limit + 0.5) return f;
  }
  return kMinFracBits;
}

}  // namespace

int choose_frac_bits(const ValueHistogram& h, int bits, CalibStatistic stat, double percentile) {
  if (bits < 1 || bits > 32) throw Error(fmt::format("quantization width {} is not in 1..32", bits));
  const double qmax = std::ldexp(1.0, bits - 1) - 1;
  const double qmin_mag = std::ldexp(1.0, bits - 1);
  if (h.count() == 0 || h.abs_max() == 0) return std::clamp(bits - 1, kMinFracBits, kMaxFracBits);

  // The max rule: both extremes stay inside the range (a 1-bit format holds no positive value,
  // so only its negative extreme counts).
  int f_max = kMaxFracBits;
  if (h.max() > 0 && qmax > 0) f_max = std::min(f_max, largest_fitting_frac(h.max(), qmax));
  if (h.min() < 0) f_max = std::min(f_max, largest_fitting_frac(-double(h.min()), qmin_mag));
  if (h.max() > 0 && qmax == 0 && h.min() >= 0) f_max = kMinFracBits;  // nothing fits

  switch (stat) {
    case CalibStatistic::kMax:
      return f_max;
    case CalibStatistic::kPercentile: {
      const double v = h.abs_percentile(percentile);
      if (v == 0) return f_max;
      return std::max(f_max, largest_fitting_frac(v, qmax > 0 ? qmax : qmin_mag));
    }
    case CalibStatistic::kMse: {
      // Below f_max nothing clips and the step only grows, so the search starts there.
      int best = f_max;
      double best_err = h.quantization_mse(bits, f_max);
      const int last = std::min(kMaxFracBits, f_max + bits + 8);
      for (int f = f_max + 1; f <= last; ++f) {
        const double err = h.quantization_mse(bits, f);
        if (err < best_err) {
          best_err = err;
          best = f;
        }
      }
      return best;
    }
  }
  return f_max;
}

int64_t quantize_value(double x, int frac_bits, int bits) {
  if (std::isnan(x)) return 0;
  const double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1) - 1;
  const double r = std::nearbyint(std::ldexp(x, frac_bits));  // ties to even (default mode)
  return int64_t(std::clamp(r, lo, hi));
}

}  // namespace tauvta::graph
