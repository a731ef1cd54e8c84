// What a driver of the generated accelerator (tauvta_accelerator) needs: the AXI4-Lite register
// map (VTA's driver's, one 4 KiB window per module) and the event counters, in the order the
// control slave exposes them. src/rtl/verilog/tauvta_control.v implements the map; the top
// (accelerator_rtl.cpp) wires the events in this order.
#pragma once

#include <array>
#include <cstdint>

namespace tauvta::rtl {

namespace reg {
inline constexpr uint32_t kFetchCtrl = 0x0000, kInsnCount = 0x0010, kInsnAddr = 0x0018;
inline constexpr uint32_t kLoadCtrl = 0x1000, kInpBase = 0x1010, kWgtBase = 0x1018;
inline constexpr uint32_t kComputeCtrl = 0x2000, kDoneIn = 0x2010, kDoneOut = 0x2018;
inline constexpr uint32_t kUopBase = 0x2020, kAccBase = 0x2028;
inline constexpr uint32_t kStoreCtrl = 0x3000, kOutBase = 0x3010;
inline constexpr uint32_t kCounters = 0x4000;  // counter k: low word at +8k, high at +8k+4
inline constexpr uint32_t kStart = 0x1, kAutoRestart = 0x81;  // ap_ctrl values VTA's driver writes
}  // namespace reg

// Stages of the generated datapath before its GEMM core or ALU (tauvta_compute): the micro-op
// read, the index computation, the hazard check with the buffer reads. An instruction's fill and
// drain on the RTL is this plus the unit's latency.
inline constexpr int kDatapathFrontEndStages = 3;

// Counter k counts, from a fetch start until FINISH has executed, the cycles (or one-cycle
// events) its name says.
inline constexpr std::array<const char*, 20> kAcceleratorCounters = {
    "cycles",
    "fetch_insns",        "fetch_stall_queue",
    "load_busy",          "load_wait_token",    "load_wait_push",    "load_insns",
    "compute_busy",       "compute_wait_token", "compute_wait_push", "compute_insns",
    "store_busy",         "store_wait_token",   "store_wait_push",   "store_insns",
    "fetch_read_beats",   "load_read_beats",    "compute_read_beats", "store_write_beats",
    "compute_hazard_stall",  // a micro-op waited for an accumulator write in flight
};

}  // namespace tauvta::rtl
