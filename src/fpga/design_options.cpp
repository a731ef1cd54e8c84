#include "fpga/design_options.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::fpga {

namespace {

std::string lowercase(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

const Device* device_for_target(const std::string& target) {
  const std::string t = lowercase(target);
  if (t == "pynq") return &find_device("pynq-z1");
  for (const Device& d : devices()) {
    if (t == d.name || t == lowercase(d.board)) return &d;
  }
  return nullptr;
}

const Device& device_of(const hw::HwConfig& config, const std::string& name) {
  if (!name.empty()) return find_device(name);  // any case; throws listing the devices
  if (const Device* d = device_for_target(config.target)) return *d;
  throw Error(fmt::format("TARGET '{}' names no board tauvta has a device model of (pynq-z1, ultra96, zcu104); "
                          "pass --device",
                          config.target));
}

int dsp_product_limit(const Device& device) { return int(std::floor(device.total.dsp * 0.95)); }

double block_ram_fmax_mhz(const Device& device) {
  // RAMB36 maximum frequency without ECC: 7-series -1 388 MHz (DS187); UltraScale+ -1 645 MHz,
  // -2 737 MHz (DS925).
  if (device.family == Family::kXc7) return 388;
  return std::strcmp(device.speed_grade, "-1") == 0 ? 645 : 737;
}

int max_dsp_products(const hw::HwConfig& config, const Device& device) {
  const hw::Implementation& impl = config.impl;
  if (impl.dsp_limit != hw::Implementation::kDspLimitBoard) return impl.dsp_limit;
  if (!hw::binds_to_dsp(impl.binding, config.inp_width(), config.wgt_width())) return 0;
  const int limit = dsp_product_limit(device);
  return double(config.macs_per_cycle()) > limit ? limit : 0;
}

rtl::RtlOptions rtl_options(const hw::HwConfig& config, const Device& device) {
  return rtl::options_of(config, max_dsp_products(config, device));
}

}  // namespace tauvta::fpga
