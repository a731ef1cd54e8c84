#include "rtl/accelerator_sim.h"

#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"

extern char** environ;

namespace tauvta::rtl {

namespace {

// The memory port's parameters, the timing model's (hw::TimingParams), for the harness.
std::vector<std::string> harness_args(const hw::HwConfig& c) {
  const hw::TimingParams& t = c.timing;
  return {std::to_string(c.bus_bytes()), fmt::format("{:.17g}", c.dram_bytes_per_cycle()),
          std::to_string(t.dram_latency_cycles), std::to_string(t.write_latency_cycles),
          std::to_string(t.port_read_acceptance), std::to_string(t.port_write_acceptance),
          std::to_string(t.burst_overhead_cycles)};
}

}  // namespace

uint64_t AcceleratorRun::counter(std::string_view name) const {
  for (size_t k = 0; k < kAcceleratorCounters.size(); ++k) {
    if (name == kAcceleratorCounters[k]) return counters[k];
  }
  throw Error(fmt::format("rtl: no event counter named '{}'", name));
}

AcceleratorSim::AcceleratorSim(const hw::HwConfig& config, const RtlOptions& options,
                               const CosimToolchain& tools) {
  RtlDesign design = generate_rtl(config, options);
  design.top = "tauvta_accelerator";
  exe_ = build_cosim(design, tools);
  const std::vector<std::string> args = harness_args(config);
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
    throw Error(fmt::format("rtl: socketpair: {}", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sv[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, sv[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, sv[0]);
  std::vector<std::string> argv_s = {exe_.string()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(sv[1]);
  if (rc != 0) {
    ::close(sv[0]);
    throw Error(fmt::format("rtl: cannot start {}: {}", exe_.string(), std::strerror(rc)));
  }
  to_ = from_ = sv[0];
}

AcceleratorSim::~AcceleratorSim() {
  if (to_ >= 0) {
    const char q = 'Q';
    (void)::send(to_, &q, 1, MSG_NOSIGNAL);
    ::close(to_);
  }
  if (pid_ > 0) {
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

void AcceleratorSim::send(const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t k = ::send(to_, c, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) throw Error(fmt::format("rtl: the simulator {} stopped", exe_.string()));
    c += k, n -= size_t(k);
  }
}

void AcceleratorSim::receive(void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t k = ::recv(from_, c, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) throw Error(fmt::format("rtl: the simulator {} stopped", exe_.string()));
    c += k, n -= size_t(k);
  }
}

void AcceleratorSim::write(uint64_t addr, std::span<const uint8_t> bytes) {
  if (addr > kAddressSpace || bytes.size() > kAddressSpace - addr) {
    throw Error(fmt::format("rtl: DRAM bytes [{:#x}, {:#x}) are past the 32-bit AXI address space",
                            addr, addr + bytes.size()));
  }
  const uint64_t len = bytes.size();
  send("W", 1);
  send(&addr, 8);
  send(&len, 8);
  send(bytes.data(), bytes.size());
}

void AcceleratorSim::read(uint64_t addr, std::span<uint8_t> bytes) {
  const uint64_t len = bytes.size();
  send("R", 1);
  send(&addr, 8);
  send(&len, 8);
  receive(bytes.data(), bytes.size());
}

AcceleratorRun AcceleratorSim::run(uint64_t insn_addr, uint32_t count, uint64_t max_cycles) {
  if (insn_addr % 16 != 0 || insn_addr + uint64_t(count) * 16 > kAddressSpace) {
    throw Error(fmt::format("rtl: instructions at {:#x} must be 16-byte aligned and inside the "
                            "32-bit address space",
                            insn_addr));
  }
  send("X", 1);
  send(&insn_addr, 8);
  send(&count, 4);
  send(&max_cycles, 8);
  uint32_t status = 0;
  uint64_t n = 0;
  receive(&status, 4);
  receive(&n, 8);
  if (n != kAcceleratorCounters.size()) {
    throw Error(fmt::format("rtl: the simulator reported {} counters, expected {}", n,
                            kAcceleratorCounters.size()));
  }
  AcceleratorRun r;
  receive(r.counters.data(), 8 * n);
  if (status != 0) {
    throw Error(fmt::format("rtl: FINISH did not execute within {} cycles (the program or the "
                            "design deadlocked)",
                            max_cycles));
  }
  return r;
}

}  // namespace tauvta::rtl
