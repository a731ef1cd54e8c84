// A config's implementation on one device: the board its TARGET names, the DSP limit "board"
// resolved for that board, and the rtl::RtlOptions the generator and the resource model take. Every
// command that sizes or generates a design resolves it here, so `dse`, `hw resources` and `rtl`
// build the same datapath from the same file. Allocation-free apart from error messages.
#pragma once

#include <string>

#include "fpga/device.h"
#include "hw/hw_config.h"
#include "rtl/datapath_shape.h"

namespace tauvta::fpga {

// The device a config's TARGET names ("pynq" and "pynq-z1", "ultra96", "zcu104"); null for a
// target tauvta has no device model of (VTA's "de10nano" is an Intel board, "sim", "tsim", ...).
const Device* device_for_target(const std::string& target);
// `name` when given (a device name or "pynq"/"ZCU104" in any case), else the config's TARGET's
// device. Throws tauvta::Error naming the target and the devices when there is none.
const Device& device_of(const hw::HwConfig& config, const std::string& name = "");

// Products HLS may put in DSP slices under a DSP limit: the device's DSPs less a 5% margin for
// what else the design uses them for.
int dsp_product_limit(const Device& device);
// The block RAMs' maximum clock for the device's speed grade (data sheets DS187, DS925).
double block_ram_fmax_mhz(const Device& device);

// The products the config's DSP limit allows in DSP slices on `device` (0: no limit): its number,
// or for "board" dsp_product_limit when the products bound to DSPs are more than that.
int max_dsp_products(const hw::HwConfig& config, const Device& device);
rtl::RtlOptions rtl_options(const hw::HwConfig& config, const Device& device);

}  // namespace tauvta::fpga
