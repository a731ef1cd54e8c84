// Files whose headers declare far more data than they hold: every loader must refuse them from
// the declared size, with one line naming the file, the field and the value, quickly and without
// allocating what the header claims. Each load runs in a forked child whose peak RSS (wait4's
// ru_maxrss, minus the child's RSS at fork) must stay under kMaxGrowthMiB.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include "backend/artifact.h"
#include "common/error.h"
#include "common/fnv1a.h"
#include "graph/onnx_import.h"
#include "gzip_member.h"
#include "hw/hw_config.h"
#include "io/tensor_files.h"
#include "io_test_util.h"
#include "sim/dram.h"
#include "sim/simulator.h"

namespace tauvta::io {
namespace {

using io_testing::ScratchDir;
using io_testing::write_bytes;

constexpr double kMaxGrowthMiB = 200;
constexpr double kMaxSeconds = 1.0;

struct ChildResult {
  int status = -1;       // 0: tauvta::Error, 2: another exception, 3: returned normally
  std::string message;   // the error's text
  double growth_mib = 0; // peak RSS over the RSS at fork
  double seconds = 0;
};

long rss_kib() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

// Runs `load` in a forked child; the child reports its RSS at start and the error it got.
ChildResult run_in_child(const std::function<void()>& load) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string start = std::to_string(rss_kib()) + "\n";
    int code = 3;
    std::string msg;
    try {
      load();
    } catch (const Error& e) {
      code = 0;
      msg = e.what();
    } catch (const std::exception& e) {
      code = 2;
      msg = e.what();
    }
    const std::string out = start + msg;
    if (write(fds[1], out.data(), out.size()) < 0) code = 4;
    close(fds[1]);
    _exit(code);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n = 0;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  ChildResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const size_t nl = out.find('\n');
  const long start_kib = nl == std::string::npos ? 0 : std::stol(out.substr(0, nl));
  r.message = nl == std::string::npos ? out : out.substr(nl + 1);
  r.growth_mib = double(ru.ru_maxrss - start_kib) / 1024.0;
  return r;
}

// The load must fail with a tauvta::Error containing every one of `parts`, in bounded time and
// memory.
void expect_clean_refusal(const std::function<void()>& load, std::initializer_list<std::string> parts) {
  const ChildResult r = run_in_child(load);
  EXPECT_EQ(r.status, 0) << "expected a tauvta::Error; got status " << r.status << ": " << r.message;
  for (const std::string& p : parts) EXPECT_NE(r.message.find(p), std::string::npos) << r.message << "\nlacks: " << p;
  EXPECT_EQ(r.message.find('\n'), std::string::npos) << "not one line: " << r.message;
  EXPECT_LT(r.seconds, kMaxSeconds) << r.message;
  EXPECT_LT(r.growth_mib, kMaxGrowthMiB) << r.message;
  std::printf("    [hostile] %.1f MiB peak growth, %.3f s: %s\n", r.growth_mib, r.seconds, r.message.c_str());
}

// A v1.0 .npy file with the given dict and no data.
std::string npy_header(const std::string& dict) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  return out + header;
}

std::string be32(uint32_t v) {
  return {char(v >> 24), char((v >> 16) & 0xff), char((v >> 8) & 0xff), char(v & 0xff)};
}

// One gzip member holding `zeros` zero bytes after `prefix`, and `repeat` more members of zeros
// (gzip readers decompress concatenated members as one stream).
std::string gzip_bomb(const std::string& prefix, size_t zeros, int repeat) {
  std::string out = fuzz::gzip_member(prefix + std::string(zeros, '\0'), 9);
  const std::string more = fuzz::gzip_member(std::string(zeros, '\0'), 9);
  for (int i = 0; i < repeat; ++i) out += more;
  return out;
}

TEST(HostileHeaders, NpyShapeOfTerabytes) {
  ScratchDir dir;
  const auto path = dir / "huge.npy";
  write_bytes(path, npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }"));
  expect_clean_refusal([&] { read_npy(path); }, {path.string(), "shape [1099511627776]", "4398046511104 bytes"});
}

TEST(HostileHeaders, NpyShapeOfAGigabyteOverNoData) {
  // Under the 4 GiB tensor limit, so only the file size can refuse it before allocation.
  ScratchDir dir;
  const auto path = dir / "gig.npy";
  write_bytes(path, npy_header("{'descr': '|u1', 'fortran_order': False, 'shape': (1610612736,), }"));
  expect_clean_refusal([&] { read_npy(path); }, {path.string(), "truncated data", "1610612736 bytes"});
}

TEST(HostileHeaders, IdxClaimingTwoToThe62Items) {
  ScratchDir dir;
  const auto path = dir / "huge-idx3-ubyte";
  write_bytes(path, be32(0x00000802) + be32(0x80000000u) + be32(0x80000000u));
  expect_clean_refusal([&] { read_idx(path); }, {path.string(), "[2147483648,2147483648]", "implausibly large"});
}

TEST(HostileHeaders, IdxClaimingAGigabyteOverAFewBytes) {
  ScratchDir dir;
  const auto path = dir / "short-idx3-ubyte";
  write_bytes(path, be32(0x00000803) + be32(1024) + be32(1024) + be32(1024) + "abc");
  expect_clean_refusal([&] { read_idx(path); }, {path.string(), "[1024,1024,1024]", "needs 1073741824 data bytes"});
}

TEST(HostileHeaders, IdxGzipBombBehindASmallHeader) {
  // 8 labels, then 512 MiB of zeros in 33 gzip members: the reader stops at the declared size
  // plus a bounded count of trailing bytes instead of inflating the whole file into memory.
  ScratchDir dir;
  const auto path = dir / "bomb-idx1-ubyte.gz";
  write_bytes(path, gzip_bomb(be32(0x00000801) + be32(8), size_t(16) << 20, 32));
  expect_clean_refusal([&] { read_idx(path); }, {path.string(), "unexpected bytes after the data of shape [8]"});
}

TEST(HostileHeaders, TensorPbDimsOfTerabytes) {
  ScratchDir dir;
  const auto path = dir / "huge.pb";
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::FLOAT);
  p.add_dims(int64_t(1) << 40);
  p.set_raw_data("");
  write_bytes(path, p.SerializeAsString());
  expect_clean_refusal([&] { read_tensor_pb(path); }, {path.string(), "raw_data has 0 bytes", "[1099511627776]"});
}

TEST(HostileHeaders, TensorPbDimsOfAGigabyteInTypedFields) {
  ScratchDir dir;
  const auto path = dir / "gig.pb";
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::FLOAT);
  p.add_dims(int64_t(1) << 28);
  p.add_float_data(1.0f);
  write_bytes(path, p.SerializeAsString());
  expect_clean_refusal([&] { read_tensor_pb(path); }, {path.string(), "float_data holds 1 values", "[268435456]"});
}

TEST(HostileHeaders, OnnxInitializerDimsOfAGigabyte) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::TensorProto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(int64_t(1) << 28);
  w->set_raw_data(std::string(16, '\0'));
  const std::string bytes = m.SerializeAsString();
  expect_clean_refusal([&] { graph::import_onnx_bytes(bytes, "hostile.onnx"); },
                       {"hostile.onnx: initializer 'w'", "raw_data has 16 bytes", "[268435456]"});
}

// An artifact around `manifest` and `blob` with a valid checksum.
std::vector<uint8_t> artifact(const std::string& manifest, const std::string& blob, uint64_t mlen, uint64_t blen) {
  std::vector<uint8_t> out = {'T', 'A', 'U', 'V', 'T', 'A', 0x1a, '\n'};
  const auto put = [&](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(uint8_t(v >> (8 * i)));
  };
  put(backend::kArtifactVersion, 4);
  put(mlen, 8);
  out.insert(out.end(), manifest.begin(), manifest.end());
  put(blen, 8);
  out.insert(out.end(), blob.begin(), blob.end());
  put(fnv1a64(std::string_view(reinterpret_cast<const char*>(out.data()), out.size())), 8);
  return out;
}

TEST(HostileHeaders, ArtifactSectionLengthOf2To60) {
  const std::vector<uint8_t> bytes = artifact("{}", "", uint64_t(1) << 60, 0);
  expect_clean_refusal([&] { backend::deserialize_network(bytes, "hostile.tauvta"); },
                       {"hostile.tauvta", "truncated artifact"});
}

TEST(HostileHeaders, ArtifactTensorShapeOfAGigabyteOverAnEmptySection) {
  nlohmann::json m;
  m["config"] = hw::HwConfig{}.to_json();
  m["graph"] = {{"name", "g"}, {"opset", 13}, {"inputs", nlohmann::json::array()},
                {"outputs", nlohmann::json::array()}, {"nodes", nlohmann::json::array()},
                {"initializers", {{"w", {{"dtype", 0}, {"shape", {int64_t(1) << 28}}, {"offset", 0}, {"bytes", 0}}}}},
                {"values", nlohmann::json::object()}};
  const std::string manifest = m.dump();
  const std::vector<uint8_t> bytes = artifact(manifest, "", manifest.size(), 0);
  expect_clean_refusal([&] { backend::deserialize_network(bytes, "hostile.tauvta"); },
                       {"hostile.tauvta: corrupted artifact", "1073741824 bytes holds 0"});
}

TEST(HostileHeaders, ConfigJsonNested200000Deep) {
  // 400 KB of brackets: parsing is iterative, but quoting the value in an error message recursed
  // once per level and overflowed the stack; the nesting is refused while parsing.
  ScratchDir dir;
  const auto path = dir / "deep.json";
  write_bytes(path, "{\"LOG_BATCH\": " + std::string(200000, '[') + std::string(200000, ']') + "}");
  expect_clean_refusal([&] { hw::HwConfig::load(path); }, {path.string(), "nested more than 256 levels"});
}

TEST(HostileHeaders, SimulatorFetchOfFourBillionInstructions) {
  expect_clean_refusal(
      [&] {
        sim::Dram dram(1 << 20);
        sim::Simulator s(hw::HwConfig{}, dram);
        s.run_at(0, 0xffffffffu);
      },
      {"instruction fetch", "past the end of DRAM"});
}

}  // namespace
}  // namespace tauvta::io
