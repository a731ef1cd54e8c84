// Differential tests: sim::Simulator against the scalar ReferenceInterpreter on random programs
// (random configs and named configs, serialized and pipelined styles), comparing all of DRAM
// byte for byte; plus hand-computed checks of the reference itself so that a misunderstanding
// shared by both cannot hide. See tests/sim/README.md.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/disasm.h"
#include "hw/hw_config.h"
#include "hw/isa_layout.h"
#include "runtime/device.h"
#include "runtime/driver.h"
#include "sim/dram.h"
#include "sim/random_programs.h"
#include "sim/reference_interpreter.h"
#include "sim/simulator.h"

namespace tauvta::testing {
namespace {

using hw::AluOp;
using hw::MemId;

constexpr uint8_t kUop = uint8_t(MemId::kUop), kWgt = uint8_t(MemId::kWgt),
                  kInp = uint8_t(MemId::kInp), kAcc = uint8_t(MemId::kAcc);

// ---- running both ---------------------------------------------------------------------------

void put(std::vector<uint8_t>& d, size_t at, std::initializer_list<uint8_t> bytes) {
  for (uint8_t b : bytes) d.at(at++) = b;
}
void put32(std::vector<uint8_t>& d, size_t at, std::initializer_list<int32_t> words) {
  for (int32_t w : words) {
    for (int b = 0; b < 4; ++b) d.at(at++) = uint8_t(uint32_t(w) >> (8 * b));
  }
}

struct Outcome {
  std::optional<std::string> error;  // set when the run threw tauvta::Error
  std::vector<uint8_t> dram;
};

Outcome run_reference(const hw::HwConfig& config, std::span<const hw::RawInsn> insns,
                      const std::vector<uint8_t>& image) {
  Outcome o;
  ReferenceInterpreter ref(config, image.size());
  ref.dram() = image;
  try {
    const RefRunStats st = ref.run(insns);
    if (st.not_executed != 0) o.error = fmt::format("{} instructions after FINISH", st.not_executed);
    for (uint64_t t : st.leftover_tokens) {
      if (t != 0) o.error = "tokens left over at FINISH";
    }
  } catch (const Error& e) {
    o.error = e.what();
  }
  o.dram = ref.dram();
  return o;
}

Outcome run_simulator(const hw::HwConfig& config, std::span<const hw::RawInsn> insns,
                      const std::vector<uint8_t>& image, const sim::RunOptions& options = {}) {
  Outcome o;
  sim::Dram dram(image.size());
  dram.write(0, image);
  sim::Simulator s(config, dram);
  try {
    s.run(insns, options);
  } catch (const Error& e) {
    o.error = e.what();
  }
  o.dram.resize(image.size());
  dram.read(0, o.dram);
  return o;
}

std::string disassembly(const hw::HwConfig& config, std::span<const hw::RawInsn> insns) {
  try {
    return hw::disassemble_program(hw::IsaLayout(config), insns);
  } catch (const Error& e) {
    return std::string("(disassembly failed: ") + e.what() + ")";
  }
}

// Empty when equal; otherwise a description of the first difference and the count.
std::string compare_dram(const std::vector<uint8_t>& want, const std::vector<uint8_t>& got) {
  if (want.size() != got.size()) return fmt::format("DRAM sizes {} vs {}", want.size(), got.size());
  size_t first = want.size(), count = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] != got[i]) {
      if (first == want.size()) first = i;
      ++count;
    }
  }
  if (count == 0) return {};
  std::string s = fmt::format("{} DRAM bytes differ; first at byte {:#x}: reference {:#04x}, "
                              "simulator {:#04x}\n  reference bytes:",
                              count, first, want[first], got[first]);
  const size_t lo = first & ~size_t(15), hi = std::min(want.size(), lo + 32);
  for (size_t i = lo; i < hi; ++i) s += fmt::format(" {:02x}", want[i]);
  s += "\n  simulator bytes:";
  for (size_t i = lo; i < hi; ++i) s += fmt::format(" {:02x}", got[i]);
  return s;
}

void expect_same(const RandomProgram& p, const std::string& what,
                 const sim::RunOptions& options = {}) {
  const Outcome ref = run_reference(p.config, p.insns, p.dram);
  ASSERT_FALSE(ref.error) << what << ": the reference rejected a generated program (generator or "
                          << "reference bug): " << *ref.error << "\n"
                          << disassembly(p.config, p.insns);
  const Outcome simr = run_simulator(p.config, p.insns, p.dram, options);
  const std::string diff = simr.error ? "simulator threw: " + *simr.error
                                      : compare_dram(ref.dram, simr.dram);
  EXPECT_TRUE(diff.empty()) << what << " (seed " << p.seed << ", config " << p.config.name()
                            << ", style " << style_name(p.style) << ", token depth "
                            << p.config.timing.token_queue_depth << ", cmd depth "
                            << p.config.timing.cmd_queue_depth << ", alu_mul "
                            << p.config.impl.alu_mul << "): " << diff << "\nprogram:\n"
                            << disassembly(p.config, p.insns);
}

// ---- differential: random configs -------------------------------------------------------------

class RandomConfigDiff : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RandomConfigDiff, SerializedMatchesReference) {
  const uint64_t seed = GetParam();
  const hw::HwConfig c = random_config(seed);
  expect_same(random_program(c, seed, ProgramStyle::kSerialized), "random config");
}

TEST_P(RandomConfigDiff, PipelinedMatchesReference) {
  const uint64_t seed = GetParam();
  const hw::HwConfig c = random_config(seed);
  expect_same(random_program(c, seed + 1000000, ProgramStyle::kPipelined), "random config");
}

TEST_P(RandomConfigDiff, PortableKernelsMatchReference) {
  const uint64_t seed = GetParam() + 5000;
  const hw::HwConfig c = random_config(seed);
  sim::RunOptions o;
  o.portable_kernels = true;
  expect_same(random_program(c, seed, ProgramStyle::kSerialized), "portable kernels", o);
}

// TAUVTA_DIFF_SEEDS=N widens the sweep (default 200 seeds, each its own random config).
uint64_t seed_count() {
  const char* env = std::getenv("TAUVTA_DIFF_SEEDS");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : 200;
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomConfigDiff, ::testing::Range<uint64_t>(0, seed_count()));

// SRAM contents persist between runs on one board: run two programs back to back on one
// simulator and one reference (the second sees the first's SRAM).
TEST(Persistence, SramSurvivesBetweenRuns) {
  for (uint64_t seed = 0; seed < 30; ++seed) {
    const hw::HwConfig c = random_config(seed + 300);
    const RandomProgram a = random_program(c, seed, ProgramStyle::kSerialized);
    const RandomProgram b = random_program(c, seed + 1, ProgramStyle::kSerialized);
    ASSERT_EQ(a.dram.size(), b.dram.size());
    ReferenceInterpreter ref(c, a.dram.size());
    sim::Dram dram(a.dram.size());
    sim::Simulator s(c, dram);
    for (const RandomProgram* p : {&a, &b}) {
      ref.dram() = p->dram;
      dram.write(0, p->dram);
      ref.run(p->insns);
      s.run(p->insns);
    }
    std::vector<uint8_t> got(a.dram.size());
    dram.read(0, got);
    const std::string diff = compare_dram(ref.dram(), got);
    EXPECT_TRUE(diff.empty()) << "seed " << seed << " config " << c.name() << ": " << diff;
  }
}

// run_at fetches the program from DRAM, as the fetch module does.
TEST(Persistence, RunAtFetchesTheProgramFromDram) {
  for (uint64_t seed = 0; seed < 10; ++seed) {
    const hw::HwConfig c = random_config(seed + 500);
    RandomProgram p = random_program(c, seed, ProgramStyle::kSerialized);
    const uint64_t at = (p.dram.size() + 15) / 16 * 16;
    std::vector<uint8_t> image = p.dram;
    image.resize(at + p.insns.size() * 16, 0);
    std::memcpy(image.data() + at, p.insns.data(), p.insns.size() * 16);
    const Outcome ref = run_reference(c, p.insns, image);
    ASSERT_FALSE(ref.error) << *ref.error;
    sim::Dram dram(image.size());
    dram.write(0, image);
    sim::Simulator s(c, dram);
    s.run_at(at, uint32_t(p.insns.size()));
    std::vector<uint8_t> got(image.size());
    dram.read(0, got);
    const std::string diff = compare_dram(ref.dram, got);
    EXPECT_TRUE(diff.empty()) << "seed " << seed << " config " << c.name() << ": " << diff;
  }
}

// A timing-only run reads and writes no data.
TEST(Persistence, TimingOnlyLeavesDramAlone) {
  for (uint64_t seed = 0; seed < 10; ++seed) {
    const hw::HwConfig c = random_config(seed + 400);
    const RandomProgram p = random_program(c, seed, ProgramStyle::kPipelined);
    sim::RunOptions o;
    o.timing_only = true;
    const Outcome r = run_simulator(c, p.insns, p.dram, o);
    ASSERT_FALSE(r.error) << *r.error;
    EXPECT_TRUE(r.dram == p.dram) << "seed " << seed;
  }
}

// ---- differential: named configs --------------------------------------------------------------

struct NamedConfig {
  const char* name;
  hw::HwConfig (*make)();
};

hw::HwConfig load_repo_config(const char* file) {
  return hw::HwConfig::load(std::string(TAUVTA_SOURCE_DIR) + "/configs/" + file);
}

const NamedConfig kNamedConfigs[] = {
    {"default_1x16_i8w8a32", [] { return hw::HwConfig{}; }},
    {"pynq_w4a4", [] { return load_repo_config("pynq_w4a4.json"); }},
    {"pynq_w2a2", [] { return load_repo_config("pynq_w2a2.json"); }},
    {"pynq_w1a1", [] { return load_repo_config("pynq_w1a1.json"); }},
    {"pynq_b4_blk8", [] { return load_repo_config("pynq_b4_blk8.json"); }},
    {"b4_8x2_i16w16a64", [] { return make_config(4, 4, 6, 2, 3, 1, 6, 5, 4, 5); }},
    {"b2_2x16_i4w2a16", [] { return make_config(2, 1, 4, 1, 1, 4, 6, 5, 4, 5); }},
    {"b1_16x8_i1w1a16", [] { return make_config(0, 0, 4, 0, 4, 3, 5, 4, 4, 6); }},
    {"b1_8x8_i8w8a32_A6I3", [] { return make_config(3, 3, 5, 0, 3, 3, 6, 3, 3, 6); }},
    {"b2_4x8_i2w16a32", [] { return make_config(1, 4, 5, 1, 2, 3, 5, 4, 3, 4); }},
    {"b1_1x1_i8w8a64", [] { return make_config(3, 3, 6, 0, 0, 0, 5, 4, 4, 4); }},
};

class NamedConfigDiff
    : public ::testing::TestWithParam<std::tuple<size_t, uint64_t>> {};

TEST_P(NamedConfigDiff, BothStylesMatchReference) {
  const auto [which, seed] = GetParam();
  const NamedConfig& nc = kNamedConfigs[which];
  const hw::HwConfig c = nc.make();
  expect_same(random_program(c, seed, ProgramStyle::kSerialized), nc.name);
  expect_same(random_program(c, seed + 777, ProgramStyle::kPipelined), nc.name);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, NamedConfigDiff,
    ::testing::Combine(::testing::Range<size_t>(0, std::size(kNamedConfigs)),
                       ::testing::Range<uint64_t>(0, 6)),
    [](const ::testing::TestParamInfo<NamedConfigDiff::ParamType>& p) {
      return fmt::format("{}_seed{}", kNamedConfigs[std::get<0>(p.param)].name,
                         std::get<1>(p.param));
    });

// ---- differential: programs built through the runtime ------------------------------------------

// A runtime::Driver that runs every program on the simulator (a SimDriver) and on a reference
// interpreter started from the same DRAM, and records every run whose DRAM differs afterwards.
// The reference's SRAM persists across runs like the board's, so kernels the runtime's micro-op
// cache keeps resident between synchronize() calls are resident in both.
class DifferentialDriver final : public runtime::Driver {
 public:
  DifferentialDriver(const hw::HwConfig& config, uint64_t dram_bytes)
      : inner_(config, dram_bytes), ref_(config, dram_bytes), bytes_(dram_bytes) {}

  const hw::HwConfig& config() const override { return inner_.config(); }
  uint64_t allocate(uint64_t bytes) override { return inner_.allocate(bytes); }
  void free(uint64_t addr) override { inner_.free(addr); }
  uint64_t alignment() const override { return inner_.alignment(); }
  void write(uint64_t addr, std::span<const uint8_t> bytes) override { inner_.write(addr, bytes); }
  void read(uint64_t addr, std::span<uint8_t> bytes) const override { inner_.read(addr, bytes); }

  sim::RunReport run(std::span<const hw::RawInsn> program,
                     const sim::RunOptions& options) override {
    std::vector<uint8_t> before(bytes_);
    inner_.read(0, before);
    ref_.dram() = before;
    std::string problem;
    try {
      ref_.run(program);
    } catch (const Error& e) {
      problem = std::string("reference threw: ") + e.what();
    }
    sim::RunReport report;
    try {
      report = inner_.run(program, options);
    } catch (const Error& e) {
      mismatches_.push_back(fmt::format("run {}: simulator threw: {}\n{}", runs_, e.what(),
                                        disassembly(config(), program)));
      ++runs_;
      throw;
    }
    if (problem.empty()) {
      std::vector<uint8_t> after(bytes_);
      inner_.read(0, after);
      problem = compare_dram(ref_.dram(), after);
    }
    if (!problem.empty()) {
      mismatches_.push_back(
          fmt::format("run {}: {}\n{}", runs_, problem, disassembly(config(), program)));
    }
    ++runs_;
    return report;
  }

  const std::vector<std::string>& mismatches() const { return mismatches_; }
  uint64_t runs() const { return runs_; }

 private:
  runtime::SimDriver inner_;
  ReferenceInterpreter ref_;
  uint64_t bytes_;
  std::vector<std::string> mismatches_;
  uint64_t runs_ = 0;
};

void expect_runtime_matches(const hw::HwConfig& c, uint64_t seed, const std::string& what) {
  auto driver = std::make_unique<DifferentialDriver>(c, uint64_t(1) << 20);
  DifferentialDriver* d = driver.get();
  runtime::Device device(std::move(driver));
  try {
    run_random_runtime_program(device, seed);
  } catch (const Error& e) {
    ADD_FAILURE() << what << " (seed " << seed << ", config " << c.name()
                  << "): the runtime program failed: " << e.what();
  }
  EXPECT_GE(d->runs(), 1u);
  for (const std::string& m : d->mismatches()) {
    ADD_FAILURE() << what << " (seed " << seed << ", config " << c.name() << ", token depth "
                  << c.timing.token_queue_depth << ", cmd depth " << c.timing.cmd_queue_depth
                  << "): " << m;
  }
}

class RuntimeDiff : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RuntimeDiff, RandomConfigMatchesReference) {
  const uint64_t seed = GetParam();
  expect_runtime_matches(random_config(seed + 9000), seed, "runtime-built program");
}

class RuntimeDiffDefault : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RuntimeDiffDefault, DefaultConfigMatchesReference) {
  expect_runtime_matches(hw::HwConfig{}, GetParam(), "runtime-built program, default config");
}

// TAUVTA_RUNTIME_DIFF_SEEDS=N widens the sweep (default 40).
uint64_t runtime_seed_count() {
  const char* env = std::getenv("TAUVTA_RUNTIME_DIFF_SEEDS");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : 40;
}

INSTANTIATE_TEST_SUITE_P(Seeds, RuntimeDiff, ::testing::Range<uint64_t>(0, runtime_seed_count()));
// The default config is the slowest to run through the reference: every 4th seed.
INSTANTIATE_TEST_SUITE_P(Seeds, RuntimeDiffDefault,
                         ::testing::Range<uint64_t>(0, runtime_seed_count(), 4));

// Generated programs are race-free by construction: the simulator's hazard checker must agree.
TEST(GeneratedPrograms, HaveNoHazards) {
  for (uint64_t seed = 0; seed < 40; ++seed) {
    const hw::HwConfig c = random_config(seed);
    for (ProgramStyle style : {ProgramStyle::kSerialized, ProgramStyle::kPipelined}) {
      const RandomProgram p = random_program(c, seed, style);
      sim::Dram dram(p.dram.size());
      dram.write(0, p.dram);
      sim::Simulator s(c, dram);
      sim::RunOptions o;
      o.check_hazards = true;
      const sim::RunReport r = s.run(p.insns, o);
      std::string msgs;
      for (const sim::Hazard& h : r.hazards) msgs += "\n  " + h.message();
      EXPECT_TRUE(r.hazards.empty()) << "seed " << seed << " " << c.name() << " "
                                     << style_name(style) << ":" << msgs << "\n"
                                     << disassembly(c, p.insns);
    }
  }
}

// Both reject the same malformed programs.
TEST(ErrorAgreement, OutOfRangeAndSwitchedOffMul) {
  const hw::HwConfig c = make_config(3, 3, 5, 0, 1, 1, 4, 3, 3, 3);  // depths 16/8/8/8
  const hw::IsaLayout L(c);
  std::vector<uint8_t> image(4096, 0);
  std::vector<std::pair<const char*, std::vector<hw::Insn>>> cases = {
      {"INP load past the buffer", {load_insn(kInp, 6, 0, 1, 3, 3)}},
      {"INP pads past the buffer", {load_insn(kInp, 0, 0, 1, 1, 1, {2, 2, 1, 1})}},
      {"ACC load past DRAM", {load_insn(kAcc, 0, 4095, 1, 1, 1)}},
      {"WGT load past the buffer", {load_insn(kWgt, 7, 0, 1, 2, 2)}},
      {"UOP load past the buffer", {load_insn(kUop, 15, 0, 1, 2, 2)}},
      {"STORE past the output buffer", {store_insn(7, 0, 1, 2, 2)}},
      {"STORE past DRAM", {store_insn(0, 2047, 1, 2, 2)}},
      {"GEMM uop past the buffer", {gemm_insn(false, {.uop_bgn = 15, .uop_end = 17})}},
      {"GEMM acc index past the buffer",
       {gemm_insn(false, {.uop_bgn = 0, .uop_end = 1, .iter_out = 3, .dst_out = 4})}},
      {"ALU dst index past the buffer",
       {alu_insn(AluOp::kAdd, true, 1, {.iter_out = 9, .dst_out = 1})}},
      {"ALU src index past the buffer (read even with use_imm)",
       {alu_insn(AluOp::kAdd, true, 1, {.iter_out = 9, .src_out = 1})}},
  };
  hw::HwConfig no_mul = c;
  no_mul.impl.alu_mul = false;
  for (auto& [what, body] : cases) {
    const auto insns = encode_serialized(c, body);
    const Outcome r = run_reference(c, insns, image);
    const Outcome s = run_simulator(c, insns, image);
    EXPECT_TRUE(r.error.has_value()) << what << ": reference accepted it";
    EXPECT_TRUE(s.error.has_value()) << what << ": simulator accepted it";
  }
  const auto mul = encode_serialized(no_mul, {alu_insn(AluOp::kMul, true, 3, {})});
  EXPECT_TRUE(run_reference(no_mul, mul, image).error.has_value());
  EXPECT_TRUE(run_simulator(no_mul, mul, image).error.has_value());
  // Deadlock: compute pops a token nobody pushes.
  hw::Insn pop = alu_insn(AluOp::kAdd, true, 1, {});
  pop.pop_prev = true;
  const std::vector<hw::RawInsn> dead = {L.encode(pop), L.encode(hw::Insn{})};
  const Outcome rd = run_reference(c, dead, image);
  ASSERT_TRUE(rd.error.has_value());
  EXPECT_NE(rd.error->find("deadlock"), std::string::npos) << *rd.error;
  EXPECT_TRUE(run_simulator(c, dead, image).error.has_value());
}

// ---- hand-computed cases where the reference and the simulator were seen to disagree ----------

void expect_both_bytes(const hw::HwConfig& c, const std::vector<hw::Insn>& body,
                       const std::vector<uint8_t>& image, size_t at, const std::vector<int>& want,
                       const char* what) {
  const auto insns = encode_serialized(c, body);
  const Outcome r = run_reference(c, insns, image);
  const Outcome s = run_simulator(c, insns, image);
  ASSERT_FALSE(r.error) << what << ": reference: " << *r.error;
  EXPECT_FALSE(s.error) << what << ": simulator: " << *s.error;
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(int(r.dram.at(at + k)), want[k] & 0xFF) << what << ": reference byte " << k;
    if (!s.error) {
      EXPECT_EQ(int(s.dram.at(at + k)), want[k] & 0xFF) << what << ": simulator byte " << k;
    }
  }
}

// vta.cc's ALU: `inp_idx_T src_offset` (I+1 bits) accumulates the src factors, then
// `acc_idx_T src_idx = uop.src + src_offset_in` (A+1 bits). docs/vta_isa.md: "the hardware wraps ... src
// offsets at 2^(I+1)". So the OFFSET wraps at 2^(I+1), the SUM at 2^(A+1).
TEST(AluSrcIndex, OffsetWrapsAtInputWidthSumAtAccumulatorWidth) {
  {  // A = 6, I = 3: uop src 7 + offsets 0, 5, 10 -> 7, 12, 17 (not 17 mod 16 = 1).
    const hw::HwConfig c = make_config(3, 3, 5, 0, 0, 0, 4, 3, 3, 6);  // 1x1x1, acc elem 4 bytes
    std::vector<uint8_t> img(4096, 0);
    put32(img, 0, {0 | (7 << 6)});  // ALU uop: dst 0 [5:0], src 7 [8:6]
    for (int k = 0; k < 24; ++k) put32(img, size_t(64 + 4 * k), {100 + k});  // ACC elems 16..39
    const std::vector<hw::Insn> base = {load_insn(kUop, 0, 0, 1, 1, 1),
                                        load_insn(kAcc, 0, 16, 1, 24, 24)};
    auto body = base;
    body.push_back(alu_insn(AluOp::kAdd, false, 0, {.iter_out = 3, .dst_out = 1, .src_out = 5}));
    body.push_back(store_insn(0, 1000, 1, 3, 3));
    // acc[0] = 100 + 107, acc[1] = 101 + 112, acc[2] = 102 + 117.
    expect_both_bytes(c, body, img, 1000, {207, 213, 219}, "src factor 5");
    body = base;
    body.push_back(alu_insn(AluOp::kAdd, false, 0, {.iter_out = 3, .dst_out = 1, .src_out = 13}));
    body.push_back(store_insn(0, 1000, 1, 3, 3));
    // offsets 0, 13, 26 mod 16 = 10 -> src 7, 20, 17.
    expect_both_bytes(c, body, img, 1000, {207, 221, 219}, "src factor 13");
  }
  {  // A = 2, I = 5: the uop's 5-bit src field 9 is index 9 mod 2^(A+1) = 1.
    const hw::HwConfig c = make_config(3, 3, 5, 0, 0, 0, 4, 5, 3, 2);
    std::vector<uint8_t> img(4096, 0);
    put32(img, 0, {0 | (9 << 2)});         // ALU uop: dst 0 [1:0], src 9 [6:2]
    put32(img, 64, {10, 20, 30, 40});       // ACC elements 16..19
    expect_both_bytes(c,
                      {load_insn(kUop, 0, 0, 1, 1, 1), load_insn(kAcc, 0, 16, 1, 4, 4),
                       alu_insn(AluOp::kAdd, false, 0, {}), store_insn(0, 1000, 1, 1, 1)},
                      img, 1000, {30}, "src field wider than the accumulator index");
  }
}

// vta.cc's modules read their command (load_queue.read()) before they block on a dependency
// token, so an instruction waiting for a token no longer holds a command-queue slot. With
// command queues of depth 1, this program runs on the hardware: store 0 waits for the ALU's
// token outside the queue, store 1 takes the slot, fetch reaches the ALU.
TEST(Scheduling, InstructionWaitingForTokenFreesItsCommandSlot) {
  hw::HwConfig c = make_config(3, 3, 5, 0, 1, 1, 4, 3, 3, 3);
  c.timing.cmd_queue_depth = 1;
  const hw::IsaLayout L(c);
  hw::Insn st0 = store_insn(0, 10, 1, 1, 1), st1 = store_insn(0, 11, 1, 1, 1);
  st0.pop_prev = true;   // waits for the ALU below (later in program order)
  st1.push_prev = true;  // tells FINISH the stores are done
  hw::Insn alu = alu_insn(AluOp::kAdd, true, 1, {.iter_out = 0});
  alu.push_next = true;
  hw::Insn fin;
  fin.pop_next = true;
  const std::vector<hw::RawInsn> p = {L.encode(st0), L.encode(st1), L.encode(alu), L.encode(fin)};
  const std::vector<uint8_t> img(4096, 0);
  const Outcome r = run_reference(c, p, img);
  EXPECT_FALSE(r.error) << *r.error;
  const Outcome s = run_simulator(c, p, img);
  EXPECT_FALSE(s.error) << *s.error;
}

// ---- the reference against hand-computed values ----------------------------------------------

// A tiny config: 1x2x2 int8 x int8 -> int32; inp elem 2 bytes, wgt 4, acc 8, out 2.
hw::HwConfig tiny() { return make_config(3, 3, 5, 0, 1, 1, 4, 3, 3, 3); }


TEST(RefInterpreter, DefaultFieldPositionsFromIsaDoc) {
  const RefGeometry g = RefGeometry::from(hw::HwConfig{});
  EXPECT_EQ(g.log_uop_depth, 13);
  EXPECT_EQ(g.log_inp_depth, 11);
  EXPECT_EQ(g.log_wgt_depth, 10);
  EXPECT_EQ(g.log_acc_depth, 11);
  EXPECT_EQ(g.inp_elem_bytes, 16u);
  EXPECT_EQ(g.wgt_elem_bytes, 256u);
  EXPECT_EQ(g.acc_elem_bytes, 64u);
  EXPECT_EQ(g.out_elem_bytes, 16u);
  // GEMM: reset [7], uop_bgn [20:8], uop_end [34:21], iter_out [48:35], iter_in [62:49],
  // dst_out [74:64], dst_in [85:75], src_out [96:86], src_in [107:97], wgt_out [117:108],
  // wgt_in [127:118].
  hw::RawInsn r;
  r.lo = 2 | (1ull << 7) | (5ull << 8) | (9ull << 21) | (3ull << 35) | (4ull << 49);
  r.hi = 6 | (7ull << 11) | (8ull << 22) | (10ull << 33) | (11ull << 44) | (12ull << 54);
  RefInsn i = ref_decode(g, r);
  EXPECT_EQ(i.opcode, 2u);
  EXPECT_TRUE(i.reset);
  EXPECT_EQ(i.uop_bgn, 5u);
  EXPECT_EQ(i.uop_end, 9u);
  EXPECT_EQ(i.iter_out, 3u);
  EXPECT_EQ(i.iter_in, 4u);
  EXPECT_EQ(i.dst_factor_out, 6u);
  EXPECT_EQ(i.dst_factor_in, 7u);
  EXPECT_EQ(i.src_factor_out, 8u);
  EXPECT_EQ(i.src_factor_in, 10u);
  EXPECT_EQ(i.wgt_factor_out, 11u);
  EXPECT_EQ(i.wgt_factor_in, 12u);
  // ALU: alu_opcode [110:108], use_imm [111], imm [127:112].
  r.lo = 4 | (1ull << 3);
  r.hi = (3ull << 44) | (1ull << 47) | (0xFFFEull << 48);
  i = ref_decode(g, r);
  EXPECT_EQ(i.opcode, 4u);
  EXPECT_TRUE(i.pop_prev);
  EXPECT_EQ(i.alu_opcode, 3u);
  EXPECT_TRUE(i.use_imm);
  EXPECT_EQ(i.imm, -2);
  // LOAD: memory_type [9:7], sram_base [25:10], dram_base [57:26], y_size [79:64],
  // x_size [95:80], x_stride [111:96], pads [127:112].
  r.lo = 0 | (1ull << 6) | (2ull << 7) | (0x1234ull << 10) | (0xABCDEFull << 26);
  r.hi = 3 | (5ull << 16) | (7ull << 32) | (0x4321ull << 48);
  i = ref_decode(g, r);
  EXPECT_TRUE(i.push_next);
  EXPECT_EQ(i.memory_type, 2u);
  EXPECT_EQ(i.sram_base, 0x1234u);
  EXPECT_EQ(i.dram_base, 0xABCDEFu);
  EXPECT_EQ(i.y_size, 3u);
  EXPECT_EQ(i.x_size, 5u);
  EXPECT_EQ(i.x_stride, 7u);
  EXPECT_EQ(i.y_pad_0, 1u);
  EXPECT_EQ(i.y_pad_1, 2u);
  EXPECT_EQ(i.x_pad_0, 3u);
  EXPECT_EQ(i.x_pad_1, 4u);
}

// The reference's own decoder and hw::IsaLayout's encoder agree on random instructions.
TEST(RefInterpreter, DecoderAgreesWithIsaLayoutEncoder) {
  for (uint64_t seed = 0; seed < 60; ++seed) {
    const hw::HwConfig c = random_config(seed);
    const RandomProgram p = random_program(c, seed, ProgramStyle::kSerialized);
    const hw::IsaLayout L(c);
    const RefGeometry g = RefGeometry::from(c);
    for (size_t k = 0; k < p.insns.size(); ++k) {
      const hw::Insn a = L.decode(p.insns[k], k);
      const RefInsn b = ref_decode(g, p.insns[k], k);
      ASSERT_EQ(unsigned(a.opcode), b.opcode);
      EXPECT_EQ(a.pop_prev, b.pop_prev);
      EXPECT_EQ(a.pop_next, b.pop_next);
      EXPECT_EQ(a.push_prev, b.push_prev);
      EXPECT_EQ(a.push_next, b.push_next);
      if (a.is_mem()) {
        EXPECT_EQ(a.memory_type, b.memory_type);
        EXPECT_EQ(a.sram_base, b.sram_base);
        EXPECT_EQ(a.dram_base, b.dram_base);
        EXPECT_EQ(a.y_size, b.y_size);
        EXPECT_EQ(a.x_size, b.x_size);
        EXPECT_EQ(a.x_stride, b.x_stride);
        EXPECT_EQ(a.y_pad_0, b.y_pad_0);
        EXPECT_EQ(a.x_pad_1, b.x_pad_1);
      } else {
        EXPECT_EQ(a.uop_bgn, b.uop_bgn);
        EXPECT_EQ(a.uop_end, b.uop_end);
        EXPECT_EQ(a.iter_out, b.iter_out);
        EXPECT_EQ(a.iter_in, b.iter_in);
        EXPECT_EQ(a.dst_factor_out, b.dst_factor_out);
        EXPECT_EQ(a.dst_factor_in, b.dst_factor_in);
        EXPECT_EQ(a.src_factor_out, b.src_factor_out);
        EXPECT_EQ(a.src_factor_in, b.src_factor_in);
        if (a.opcode == hw::Opcode::kAlu) {
          EXPECT_EQ(a.alu_opcode, b.alu_opcode);
          EXPECT_EQ(a.use_imm, b.use_imm);
          EXPECT_EQ(a.imm, b.imm);
        } else {
          EXPECT_EQ(a.reset, b.reset);
          EXPECT_EQ(a.wgt_factor_out, b.wgt_factor_out);
          EXPECT_EQ(a.wgt_factor_in, b.wgt_factor_in);
        }
      }
    }
  }
}

TEST(RefInterpreter, OneUopGemm) {
  const hw::HwConfig c = tiny();
  ReferenceInterpreter ref(c, 1024);
  auto& d = ref.dram();
  put(d, 0, {0, 0, 0, 0});              // uop word 0: acc 0, inp 0, wgt 0
  put(d, 16, {3, 0xFE});                // INP element 8: {3, -2}
  put(d, 32, {1, 2, 0xFD, 4});          // WGT element 8: oc0 {1, 2}, oc1 {-3, 4}
  put32(d, 64, {1000, -1});             // ACC element 8: {1000, -1}
  ref.run(encode_serialized(c, {load_insn(kUop, 0, 0, 1, 1, 1), load_insn(kInp, 0, 8, 1, 1, 1),
                                load_insn(kWgt, 0, 8, 1, 1, 1), load_insn(kAcc, 0, 8, 1, 1, 1),
                                gemm_insn(false, {}), store_insn(0, 100, 1, 1, 1)}));
  // oc0: 1000 + 3*1 + (-2)*2 = 999; oc1: -1 + 3*(-3) + (-2)*4 = -18.
  EXPECT_EQ(ref.acc_lane(0, 0), 999);
  EXPECT_EQ(ref.acc_lane(0, 1), -18);
  EXPECT_EQ(d[200], 999 & 0xFF);  // 0xE7
  EXPECT_EQ(d[201], 0xEE);        // -18
}

TEST(RefInterpreter, EachAluOp) {
  const hw::HwConfig c = tiny();
  struct Case {
    AluOp op;
    bool imm;
    int32_t value;
    int64_t lane0, lane1;  // acc[0] = {100, -7}, acc[1] = {3, -30}
  };
  const Case cases[] = {
      {AluOp::kMin, true, 5, 5, -7},       {AluOp::kMax, true, 5, 100, 5},
      {AluOp::kMin, false, 0, 3, -30},     {AluOp::kMax, false, 0, 100, -7},
      {AluOp::kAdd, false, 0, 103, -37},   {AluOp::kAdd, true, -100, 0, -107},
      // tensor shift amounts are the low 5 bits of acc[1], signed: 3 -> >>3; -30 = ...00010 -> >>2
      {AluOp::kShr, true, 2, 25, -2},      {AluOp::kShr, false, 0, 12, -2},
      {AluOp::kMul, false, 0, 300, 210},   {AluOp::kMul, true, -3, -300, 21},
  };
  for (const Case& k : cases) {
    ReferenceInterpreter ref(c, 1024);
    auto& d = ref.dram();
    put32(d, 0, {100, -7, 3, -30});
    put32(d, 64, {0 | (1 << 3)});  // uop: dst 0, src 1 (src field at bit A = 3)
    ref.run(encode_serialized(c, {load_insn(kAcc, 0, 0, 1, 2, 2), load_insn(kUop, 0, 16, 1, 1, 1),
                                  alu_insn(k.op, k.imm, k.value, {}),
                                  store_insn(0, 100, 1, 1, 1)}));
    const int64_t l0 = k.lane0, l1 = k.lane1;
    EXPECT_EQ(ref.acc_lane(0, 0), l0) << hw::alu_op_name(uint8_t(k.op)) << " imm " << k.imm;
    EXPECT_EQ(ref.acc_lane(0, 1), l1) << hw::alu_op_name(uint8_t(k.op)) << " imm " << k.imm;
    EXPECT_EQ(d[200], uint8_t(l0));
    EXPECT_EQ(d[201], uint8_t(l1));
  }
}

TEST(RefInterpreter, ShiftAmountAndWrapping16BitAcc) {
  // acc 16 bits: the shift amount is the low 4 bits, signed (-8..7).
  const hw::HwConfig c = make_config(3, 3, 4, 0, 1, 1, 4, 3, 3, 3);
  auto w16 = [](int64_t v) { return int64_t(int16_t(uint16_t(uint64_t(v) & 0xFFFF))); };
  const struct {
    AluOp op;
    int32_t imm;
    int64_t want0, want1;  // acc[0] = {0x1234, -0x1234}
  } cases[] = {
      {AluOp::kShr, -3, w16(0x1234 * 8), w16(-0x1234 * 8)},    // -3: left shift by 3, wrapping
      {AluOp::kShr, 17, 0x1234 >> 1, -0x1234 >> 1},             // 17 = 0b10001 -> low 4 bits 1
      {AluOp::kShr, 8, w16(0x1234 * 256), w16(-0x1234 * 256)},  // 0b1000 = -8: left shift by 8
      {AluOp::kShr, 7, 0x1234 >> 7, -0x1234 >> 7},
      {AluOp::kAdd, 0x7000, w16(0x1234 + 0x7000), -0x1234 + 0x7000},
      {AluOp::kMul, 0x100, w16(0x123400), w16(-0x123400)},
      {AluOp::kMin, -32768, -32768, -32768},
      {AluOp::kMax, -32768, 0x1234, -0x1234},
  };
  for (const auto& k : cases) {
    ReferenceInterpreter ref(c, 1024);
    auto& d = ref.dram();
    put(d, 0, {0x34, 0x12, 0xCC, 0xED});  // {0x1234, -0x1234}
    ref.run(encode_serialized(c, {load_insn(kAcc, 0, 0, 1, 1, 1), alu_insn(k.op, true, k.imm, {})}));
    EXPECT_EQ(ref.acc_lane(0, 0), k.want0) << hw::alu_op_name(uint8_t(k.op)) << " " << k.imm;
    EXPECT_EQ(ref.acc_lane(0, 1), k.want1) << hw::alu_op_name(uint8_t(k.op)) << " " << k.imm;
  }
}

TEST(RefInterpreter, SubByteLanes) {
  // 4-bit: 1x2x2; inp elem 1 byte, wgt elem 2 bytes, out elem 1 byte.
  const hw::HwConfig c = make_config(2, 2, 5, 0, 1, 1, 4, 3, 3, 3);
  ReferenceInterpreter ref(c, 1024);
  auto& d = ref.dram();
  put(d, 0, {0, 0, 0, 0});
  put(d, 8, {0x2F});        // INP element 8: lane0 = 0xF = -1, lane1 = 2
  put(d, 16, {0x31, 0x0E}); // WGT element 8: oc0 {1, 3}, oc1 {-2, 0}
  ref.run(encode_serialized(c, {load_insn(kUop, 0, 0, 1, 1, 1), load_insn(kInp, 0, 8, 1, 1, 1),
                                load_insn(kWgt, 0, 8, 1, 1, 1), gemm_insn(false, {}),
                                store_insn(0, 100, 1, 1, 1)}));
  EXPECT_EQ(ref.inp_lane(0, 0), -1);
  EXPECT_EQ(ref.inp_lane(0, 1), 2);
  EXPECT_EQ(ref.wgt_lane(0, 2), -2);
  EXPECT_EQ(ref.acc_lane(0, 0), 5);  // -1*1 + 2*3
  EXPECT_EQ(ref.acc_lane(0, 1), 2);  // -1*-2 + 2*0
  EXPECT_EQ(d[100], 0x25);           // out lane0 = 5 (low nibble), lane1 = 2

  // 1-bit and 2-bit lanes: bit k / bits [2k+1:2k] of the packed bytes.
  // inp 8 x 1 bit (1 byte), wgt 8x8 x 2 bits (16 bytes), out 8 x 1 bit.
  const hw::HwConfig c1 = make_config(0, 1, 4, 0, 3, 3, 4, 3, 3, 3);
  ReferenceInterpreter r1(c1, 1024);
  put(r1.dram(), 0, {0, 0, 0, 0});
  put(r1.dram(), 8, {0xB2});    // INP element 8, lanes 0..7: bits 0,1,0,0,1,1,0,1
  put(r1.dram(), 128, {0x1B});  // WGT element 8, oc0 ic0..3: 0b11, 0b10, 0b01, 0b00
  r1.run(encode_serialized(c1, {load_insn(kUop, 0, 0, 1, 1, 1), load_insn(kInp, 0, 8, 1, 1, 1),
                                load_insn(kWgt, 0, 8, 1, 1, 1), gemm_insn(false, {})}));
  const int64_t bits[] = {0, -1, 0, 0, -1, -1, 0, -1};
  for (int k = 0; k < 8; ++k) EXPECT_EQ(r1.inp_lane(0, uint64_t(k)), bits[k]) << k;
  EXPECT_EQ(r1.wgt_lane(0, 0), -1);  // 0b11
  EXPECT_EQ(r1.wgt_lane(0, 1), -2);  // 0b10
  EXPECT_EQ(r1.wgt_lane(0, 2), 1);
  EXPECT_EQ(r1.wgt_lane(0, 3), 0);
  EXPECT_EQ(r1.acc_lane(0, 0), (0 * -1) + (-1 * -2) + 0 + 0);  // = 2
}

TEST(RefInterpreter, BatchAndUnequalBlocks) {
  // batch 2, BLOCK_IN 2, BLOCK_OUT 1: inp lanes b*2+ic, wgt lanes oc*2+ic, acc lanes b*1+oc.
  const hw::HwConfig c = make_config(3, 3, 5, 1, 1, 0, 4, 3, 3, 3);
  ReferenceInterpreter ref(c, 1024);
  auto& d = ref.dram();
  put(d, 0, {0, 0, 0, 0});
  put(d, 8, {1, 2, 3, 4});  // INP element 2 (4 bytes)
  put(d, 4, {5, 6});        // WGT element 2 (2 bytes)
  ref.run(encode_serialized(c, {load_insn(kUop, 0, 0, 1, 1, 1), load_insn(kInp, 0, 2, 1, 1, 1),
                                load_insn(kWgt, 0, 2, 1, 1, 1), gemm_insn(false, {}),
                                store_insn(0, 50, 1, 1, 1)}));
  EXPECT_EQ(ref.acc_lane(0, 0), 17);  // 1*5 + 2*6
  EXPECT_EQ(ref.acc_lane(0, 1), 39);  // 3*5 + 4*6
  EXPECT_EQ(d[100], 17);
  EXPECT_EQ(d[101], 39);
}

TEST(RefInterpreter, AluSourceWrapsAtInputWidth) {
  // A = 6 (64 accumulators), I = 3: ALU src offsets wrap at 2^(I+1) = 16, so a src factor of 16
  // keeps reading acc[5] while dst moves.
  const hw::HwConfig c = make_config(3, 3, 5, 0, 0, 0, 4, 3, 3, 6);  // 1x1x1: acc elem 4 bytes
  ReferenceInterpreter ref(c, 1024);
  auto& d = ref.dram();
  put32(d, 0, {0 | (5 << 6)});  // uop dst 0, src 5
  put32(d, 16, {10, 20, 30, 0, 0, 7});  // ACC elements 4..9 -> acc[0..5] = 10,20,30,0,0,7
  ref.run(encode_serialized(c, {load_insn(kUop, 0, 0, 1, 1, 1), load_insn(kAcc, 0, 4, 1, 6, 6),
                                alu_insn(AluOp::kAdd, false, 0,
                                         {.iter_out = 3, .dst_out = 1, .src_out = 16})}));
  EXPECT_EQ(ref.acc_lane(0, 0), 17);
  EXPECT_EQ(ref.acc_lane(1, 0), 27);
  EXPECT_EQ(ref.acc_lane(2, 0), 37);
  EXPECT_EQ(ref.acc_lane(5, 0), 7);
}

TEST(RefInterpreter, PaddedLoadLayout) {
  const hw::HwConfig c = tiny();  // inp elem 2 bytes, depth 8
  ReferenceInterpreter ref(c, 1024);
  auto& d = ref.dram();
  for (int k = 0; k < 8; ++k) put(d, size_t(16 + 2 * k), {uint8_t(0x10 + k), uint8_t(0x80 + k)});
  // Fill the buffer with 0x11 pattern first, then a 1x2 block with y_pad_0=1, x_pad_0=1,
  // x_pad_1=0 at sram 1: rows of 3 elements: [pad pad pad][pad d0 d1] -> elements 1..6.
  ref.run(encode_serialized(c, {load_insn(kInp, 0, 8, 1, 8, 8),
                                load_insn(kInp, 1, 10, 1, 2, 5, {1, 0, 1, 0})}));
  const auto& s = ref.inp_sram();
  const uint8_t want[16] = {0x10, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x82, 0x13, 0x83, 0x17, 0x87};
  for (int k = 0; k < 16; ++k) EXPECT_EQ(s[size_t(k)], want[k]) << "byte " << k;
}

TEST(RefInterpreter, PipelinedTokensNeedTheRoundRobin) {
  // A pipelined program with token queues of depth 1 runs to completion and balances its tokens.
  hw::HwConfig c = random_config(3);
  c.timing.token_queue_depth = 1;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    const RandomProgram p = random_program(c, seed, ProgramStyle::kPipelined);
    ReferenceInterpreter ref(c, p.dram.size());
    ref.dram() = p.dram;
    const RefRunStats st = ref.run(p.insns);
    EXPECT_EQ(st.executed, p.insns.size());
    for (uint64_t t : st.leftover_tokens) EXPECT_EQ(t, 0u);
  }
}

}  // namespace
}  // namespace tauvta::testing
