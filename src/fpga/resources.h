// Resources: FPGA resource counts in the units a Vivado utilization report uses (LUTs including
// LUTs used as memory or shift registers, flip-flops, DSP slices, 36 Kb block RAMs with an 18 Kb
// block counted as 0.5, UltraRAMs).
#pragma once

namespace tauvta::fpga {

struct Resources {
  double lut = 0, ff = 0, dsp = 0, bram36 = 0, uram = 0;

  Resources& operator+=(const Resources& o) {
    lut += o.lut;
    ff += o.ff;
    dsp += o.dsp;
    bram36 += o.bram36;
    uram += o.uram;
    return *this;
  }
  friend Resources operator+(Resources a, const Resources& b) { return a += b; }
};

enum class ResourceKind : unsigned char { kLut = 0, kFf, kDsp, kBram, kUram };
inline constexpr int kNumResourceKinds = 5;
const char* resource_name(ResourceKind k);  // "LUT", "FF", "DSP", "BRAM36", "URAM"
double get(const Resources& r, ResourceKind k);
double& get(Resources& r, ResourceKind k);

}  // namespace tauvta::fpga
