#include "fpga/device.h"

#include <array>
#include <cctype>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::fpga {

const char* resource_name(ResourceKind k) {
  switch (k) {
    case ResourceKind::kLut: return "LUT";
    case ResourceKind::kFf: return "FF";
    case ResourceKind::kDsp: return "DSP";
    case ResourceKind::kBram: return "BRAM36";
    case ResourceKind::kUram: return "URAM";
  }
  return "?";
}

double get(const Resources& r, ResourceKind k) { return get(const_cast<Resources&>(r), k); }

double& get(Resources& r, ResourceKind k) {
  switch (k) {
    case ResourceKind::kLut: return r.lut;
    case ResourceKind::kFf: return r.ff;
    case ResourceKind::kDsp: return r.dsp;
    case ResourceKind::kBram: return r.bram36;
    case ResourceKind::kUram: return r.uram;
  }
  return r.lut;
}

namespace {

// Switching characteristics, rounded from the data sheets' tables (Zynq-7000 DS187 for the -1
// xc7z020; Zynq UltraScale+ DS925 for -1 and -2). Net delays are typical routed values, not
// data-sheet entries: they are the model's assumption (docs/fpga_model.md).
constexpr SwitchingDelays kXc7Speed1{
    .ff_clk_to_q = 0.46, .ff_setup = 0.06, .lut = 0.12, .net = 0.55, .carry_per_bit = 0.03,
    .carry_entry = 0.45, .dsp_mult = 3.0, .dsp_cascade = 1.6, .bram_clk_to_q = 2.45,
    .bram_setup = 0.55, .uncertainty = 0.25};
constexpr SwitchingDelays kXcupSpeed1{
    .ff_clk_to_q = 0.10, .ff_setup = 0.03, .lut = 0.12, .net = 0.30, .carry_per_bit = 0.015,
    .carry_entry = 0.20, .dsp_mult = 1.75, .dsp_cascade = 0.9, .bram_clk_to_q = 1.20,
    .bram_setup = 0.40, .uncertainty = 0.15};
constexpr SwitchingDelays kXcupSpeed2{
    .ff_clk_to_q = 0.09, .ff_setup = 0.03, .lut = 0.10, .net = 0.27, .carry_per_bit = 0.013,
    .carry_entry = 0.18, .dsp_mult = 1.55, .dsp_cascade = 0.8, .bram_clk_to_q = 1.05,
    .bram_setup = 0.35, .uncertainty = 0.15};

const std::array<Device, 3> kDevices = {{
    {"pynq-z1", "Pynq-Z1", "xc7z020clg400-1", Family::kXc7, "-1",
     {.lut = 53200, .ff = 106400, .dsp = 220, .bram36 = 140, .uram = 0}, 100.0, kXc7Speed1},
    {"ultra96", "Ultra96", "xczu3eg-sbva484-1-e", Family::kXcup, "-1",
     {.lut = 70560, .ff = 141120, .dsp = 360, .bram36 = 216, .uram = 0}, 333.0, kXcupSpeed1},
    {"zcu104", "ZCU104", "xczu7ev-ffvc1156-2-e", Family::kXcup, "-2",
     {.lut = 230400, .ff = 460800, .dsp = 1728, .bram36 = 312, .uram = 96}, 333.0, kXcupSpeed2},
}};

}  // namespace

std::span<const Device> devices() { return kDevices; }

const Device& find_device(const std::string& name) {
  // Any case, the board's own spelling ("Pynq-Z1", "ZCU104") and VTA's target name "pynq".
  std::string n = name;
  for (char& c : n) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (n == "pynq") n = "pynq-z1";
  for (const Device& d : kDevices) {
    if (n == d.name) return d;
  }
  throw Error(fmt::format("device '{}' is not one of pynq-z1, ultra96, zcu104{}", name,
                          n == "de10nano" || n == "de10-nano" ? " (the DE10-Nano is an Intel board: no device model)" : ""));
}

Resources platform(const Device& device, int bus_bits) {
  const double b = bus_bits;
  Resources r;
  // AXI SmartConnect from the four masters (fetch, load, compute, store) to one PS port, with the
  // AXI4-Lite path to the control slave: Xilinx's product guide PG247 gives about 2-3k LUTs and
  // 3-4k FFs for a 4-to-1 crossbar with its width and clock converters, growing with the data
  // width (its FIFOs and converters carry the data bits).
  r.lut += 2500 + 10 * b;
  r.ff += 3500 + 15 * b;
  // Processor system reset and the AXI4-Lite path's protocol converter (PG164, PG101).
  r.lut += 20 + 150;
  r.ff += 40 + 200;
  (void)device;  // the same IP on every board: only the bus width changes the estimate
  return r;
}

}  // namespace tauvta::fpga
