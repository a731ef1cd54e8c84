// Co-simulation harness: drives a Verilated tauvta_compute from a text script on stdin and prints
// what it reads back. Compiled at test time against the Verilated model of one generated design
// (src/rtl/cosim.cpp); not part of any library.
//
//   W <mem> <addr> <hex>   host write of one buffer word (hex, most significant digit first)
//   R <mem> <addr>         host read; prints the word in hex
//   X <hex128>             run one GEMM/ALU instruction; prints "cycles N"
//   Q                      quit
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "Vtauvta_compute.h"
#include "verilated.h"

namespace {

// Hex text (MSB first) to little-endian 32-bit words.
std::vector<uint32_t> parse_hex(const std::string& hex, size_t words) {
  std::vector<uint32_t> w(words, 0);
  size_t bit = 0;
  for (size_t i = hex.size(); i-- > 0; bit += 4) {
    const char c = hex[i];
    const uint32_t d = c >= '0' && c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    if (bit / 32 < words) w[bit / 32] |= d << (bit % 32);
  }
  return w;
}

template <class Port>
constexpr size_t port_words() {
  if constexpr (std::is_integral_v<Port>) {
    return (sizeof(Port) + 3) / 4;
  } else {
    return sizeof(Port) / 4;
  }
}

template <class Port>
void set_port(Port& p, const std::vector<uint32_t>& w) {
  if constexpr (std::is_integral_v<Port>) {
    uint64_t v = w[0];
    if (w.size() > 1) v |= uint64_t(w[1]) << 32;
    p = Port(v);
  } else {
    for (size_t i = 0; i < port_words<Port>(); ++i) p[i] = w[i];
  }
}

template <class Port>
std::string get_port_hex(const Port& p) {
  std::vector<uint32_t> w(port_words<Port>());
  if constexpr (std::is_integral_v<Port>) {
    const uint64_t v = uint64_t(p);
    w[0] = uint32_t(v);
    if (w.size() > 1) w[1] = uint32_t(v >> 32);
  } else {
    for (size_t i = 0; i < w.size(); ++i) w[i] = p[i];
  }
  std::string s;
  char buf[9];
  for (size_t i = w.size(); i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%08x", w[i]);
    s += buf;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  auto ctx = std::make_unique<VerilatedContext>();
  ctx->commandArgs(argc, argv);
  auto top = std::make_unique<Vtauvta_compute>(ctx.get());
  auto tick = [&] {
    top->clk = 0;
    top->eval();
    top->clk = 1;
    top->eval();
  };
  top->rst = 1;
  top->start = 0;
  top->host_we = 0;
  top->host_re = 0;
  // The load and store modules' ports are idle: the host port stands in for them.
  top->ld_inp_we = 0;
  top->ld_wgt_we = 0;
  top->st_out_re = 0;
  tick();
  tick();
  top->rst = 0;
  const uint64_t max_cycles = 200000000;
  std::string cmd;
  while (std::cin >> cmd) {
    if (cmd == "W") {
      unsigned mem = 0, addr = 0;
      std::string hex;
      std::cin >> mem >> addr >> hex;
      top->host_mem = mem;
      top->host_addr = addr;
      set_port(top->host_wdata, parse_hex(hex, port_words<decltype(top->host_wdata)>()));
      top->host_we = 1;
      tick();
      top->host_we = 0;
    } else if (cmd == "R") {
      unsigned mem = 0, addr = 0;
      std::cin >> mem >> addr;
      top->host_mem = mem;
      top->host_addr = addr;
      top->host_re = 1;
      tick();
      top->host_re = 0;
      top->eval();
      std::cout << get_port_hex(top->host_rdata) << "\n";
    } else if (cmd == "X") {
      std::string hex;
      std::cin >> hex;
      set_port(top->insn, parse_hex(hex, 4));
      top->start = 1;
      tick();
      top->start = 0;
      uint64_t cycles = 1;
      while (top->busy) {
        tick();
        if (++cycles > max_cycles) {
          std::cout << "hang\n";
          return 3;
        }
      }
      std::cout << "cycles " << cycles << "\n";
    } else if (cmd == "Q") {
      break;
    } else {
      std::cerr << "cosim harness: unknown command '" << cmd << "'\n";
      return 2;
    }
  }
  std::cout.flush();
  top->final();
  return 0;
}
