#include "fuzz_target.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "common/error.h"
#include "graph/tensor.h"

namespace tauvta::fuzz {

std::map<std::string, Entry>& registry() {
  static std::map<std::string, Entry> entries;
  return entries;
}

void run_entry(Entry e, const uint8_t* data, size_t size) {
  try {
    e(data, size);
  } catch (const Error& ex) {
    // The loader refused the input with a user error: the outcome we want for garbage.
    // TAUVTA_FUZZ_VERBOSE=1 prints it (to see how far a seed gets).
    static const bool verbose = std::getenv("TAUVTA_FUZZ_VERBOSE") != nullptr;
    if (verbose) std::fprintf(stderr, "tauvta::Error: %s\n", ex.what());
  }
}

int fuzz_one(Entry e, const uint8_t* data, size_t size) {
  try {
    run_entry(e, data, size);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "==tauvta fuzz== uncaught exception (not tauvta::Error): %s\n", ex.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "==tauvta fuzz== uncaught non-standard exception\n");
    std::abort();
  }
  return 0;
}

namespace {

std::filesystem::path temp_dir() {
  std::error_code ec;
  if (std::filesystem::is_directory("/dev/shm", ec)) return "/dev/shm";
  return std::filesystem::temp_directory_path();
}

}  // namespace

TempFile::TempFile(std::string_view bytes, const std::string& ext) {
  path_ = temp_dir() / ("tauvta-fuzz-" + std::to_string(::getpid()) + ext);
  std::ofstream f(path_, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), std::streamsize(bytes.size()));
  f.close();
  if (!f) throw std::runtime_error("fuzz harness: cannot write " + path_.string());
}

TempFile::~TempFile() {
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

TensorLimitScope::TensorLimitScope(int64_t bytes) : saved_(graph::tensor_byte_limit()) {
  graph::set_tensor_byte_limit(bytes);
}

TensorLimitScope::~TensorLimitScope() { graph::set_tensor_byte_limit(saved_); }

}  // namespace tauvta::fuzz
