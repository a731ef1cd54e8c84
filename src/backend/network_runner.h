// Runs a CompiledNetwork: accelerator layers on a simulated device (bit-exact functional core
// plus timing model), CPU layers on the integer reference, activations moving between the host's
// NCHW tensors and the accelerator's blocked DRAM layout only when the other side needs them.
// Timing-only runs schedule the program without any data.
#pragma once

#include <memory>
#include <set>
#include <vector>

#include "backend/network.h"
#include "backend/network_instruments.h"
#include "cpu/float_executor.h"
#include "cpu/int_executor.h"
#include "lower/loaded_program.h"
#include "runtime/device.h"
#include "rtl/accelerator_sim.h"
#include "sim/report.h"

namespace tauvta::backend {

class RtlDriver;

struct NetworkRunOptions {
  bool check_hazards = false;
  bool portable_kernels = false;  // the simulator's portable GEMM (identical results)
  int cpu_threads = 1;
  int64_t image_base = 0;  // dataset number of batch position 0 (what instruments record)
  int64_t valid_images = -1;  // batch positions holding real images (< 0: all)
};

struct LayerRun {
  sim::RunReport report;   // accelerator layers (zero for CPU layers)
  uint64_t rtl_cycles = 0; // on the RTL backend: the generated accelerator's cycles (Verilator)
  rtl::AcceleratorRun rtl;  // and all its event counters
  double cpu_seconds = 0;  // CPU layers' host time
};

struct NetworkRun {
  cpu::TensorMap outputs;
  std::vector<LayerRun> layers;  // parallel to CompiledNetwork::layers
  sim::RunReport total;          // every accelerator layer summed
  bool on_rtl = false;           // the accelerator layers ran on the RTL too (rtl_cycles set)
  uint64_t rtl_cycles = 0;       // their RTL cycles summed
  double sim_wall_seconds = 0;
  double cpu_seconds = 0;
  double wall_seconds = 0;
};

class NetworkRunner {
 public:
  // Loads the program onto a simulated board of the network's config. `net` must outlive this.
  // With `rtl`, every accelerator program also runs on the generated accelerator in Verilator
  // (backend/rtl_driver.h), checked bit for bit, its cycles kept per layer.
  explicit NetworkRunner(const CompiledNetwork& net, int cpu_threads = 1, bool rtl = false);
  ~NetworkRunner();

  NetworkRun run(const cpu::TensorMap& inputs, const NetworkRunOptions& options = {});

  // Observes the layers `request` names in every later run (replacing earlier instruments);
  // an empty request switches them off.
  NetworkInstruments* enable_instruments(const InstrumentRequest& request);
  NetworkInstruments* instruments() { return instruments_.get(); }

 private:
  void ensure_dram(const std::string& value, int block);
  const graph::Tensor& ensure_host(const std::string& value);
  void produced_on_host(const std::string& value, graph::Tensor t);
  void produced_in_dram(const std::string& value, int block);

  const CompiledNetwork& net_;
  std::unique_ptr<runtime::Device> device_;
  RtlDriver* rtl_ = nullptr;  // the device's driver on the RTL backend
  std::unique_ptr<lower::LoadedProgram> program_;
  std::unique_ptr<NetworkInstruments> instruments_;
  std::vector<std::unique_ptr<cpu::IntExecutor>> cpu_;
  // Run state: host copies and which DRAM forms ("value@block") hold the current value.
  std::map<std::string, graph::Tensor> host_;
  std::set<std::string> valid_;
};

// Cycles of every accelerator layer from the timing model alone.
NetworkRun time_network(const CompiledNetwork& net);

}  // namespace tauvta::backend
