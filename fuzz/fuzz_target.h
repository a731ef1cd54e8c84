// One fuzz target per loader: TAUVTA_FUZZ_TARGET(name) defines the entry point that feeds one
// input to the loader. A tauvta::Error is the loader refusing the input cleanly and ends the
// input quietly; anything else escaping the entry (another exception, a FuzzFinding from a
// round-trip check) is a finding. The same entries are linked into the test suite, which replays
// tests/data/fuzz_regressions/<name>/ and fuzz/corpus/<name>/ through them (docs/fuzzing.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tauvta::fuzz {

using Entry = void (*)(const uint8_t* data, size_t size);

// A broken invariant the fuzz target checks itself (a round trip that does not return the same
// value): never a user error, always a finding.
class FuzzFinding : public std::logic_error {
 public:
  explicit FuzzFinding(const std::string& what) : std::logic_error("fuzz finding: " + what) {}
};

inline void check(bool ok, const std::string& what) {
  if (!ok) throw FuzzFinding(what);
}

// name -> entry, filled by TAUVTA_FUZZ_TARGET's registrars.
std::map<std::string, Entry>& registry();

struct Registrar {
  Registrar(const char* name, Entry e) { registry()[name] = e; }
};

// Runs the entry and swallows tauvta::Error (the clean refusal); everything else propagates.
void run_entry(Entry e, const uint8_t* data, size_t size);
// libFuzzer's side: run_entry, and any other exception printed and turned into an abort (a crash
// libFuzzer records with its input).
int fuzz_one(Entry e, const uint8_t* data, size_t size);

// The input written to a file (for loaders that take a path), removed by the destructor. One
// path per process and `ext`, under /dev/shm when it exists.
class TempFile {
 public:
  TempFile(std::string_view bytes, const std::string& ext);
  TempFile(const uint8_t* data, size_t size, const std::string& ext)
      : TempFile(std::string_view(reinterpret_cast<const char*>(data), size), ext) {}
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Sets the process-wide tensor byte limit for the scope of one input (graph::tensor_byte_limit),
// restoring the previous one: the test suite runs the entries in its own process.
class TensorLimitScope {
 public:
  explicit TensorLimitScope(int64_t bytes);
  ~TensorLimitScope();
  TensorLimitScope(const TensorLimitScope&) = delete;
  TensorLimitScope& operator=(const TensorLimitScope&) = delete;

 private:
  int64_t saved_;
};

// Reads fixed-size little-endian values off the front of the input (zero past its end).
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  uint8_t u8() { return n_ ? (--n_, *p_++) : 0; }
  uint16_t u16() { return uint16_t(u8() | (uint16_t(u8()) << 8)); }
  uint32_t u32() { return uint32_t(u16() | (uint32_t(u16()) << 16)); }
  const uint8_t* data() const { return p_; }
  size_t size() const { return n_; }
  void skip(size_t k) {
    k = k < n_ ? k : n_;
    p_ += k;
    n_ -= k;
  }

 private:
  const uint8_t* p_;
  size_t n_;
};

}  // namespace tauvta::fuzz

#ifdef TAUVTA_FUZZ_ENTRY_ONLY
#define TAUVTA_FUZZ_MAIN(name)
#else
// The libFuzzer driver calls this once per input.
#define TAUVTA_FUZZ_MAIN(name)                                                          \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {             \
    return ::tauvta::fuzz::fuzz_one(tauvta_fuzz_entry_##name, data, size);              \
  }
#endif

#define TAUVTA_FUZZ_TARGET(name)                                                                \
  static void tauvta_fuzz_entry_##name(const uint8_t* data, size_t size);                      \
  static const ::tauvta::fuzz::Registrar tauvta_fuzz_registrar_##name(#name, tauvta_fuzz_entry_##name); \
  TAUVTA_FUZZ_MAIN(name)                                                                        \
  static void tauvta_fuzz_entry_##name(const uint8_t* data, size_t size)
