#include "cli/version_info.h"

#include <cpuid.h>

#include <fmt/format.h>

#include "common/cpu_features.h"
#include "report/html_page.h"

#ifndef TAUVTA_BUILD_TYPE
#define TAUVTA_BUILD_TYPE "unknown"
#endif

namespace tauvta::cli {
namespace {

std::string compiler() {
#if defined(__clang__)
  return fmt::format("clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  return fmt::format("GCC {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  return "unknown compiler";
#endif
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TAUVTA_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define TAUVTA_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TAUVTA_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define TAUVTA_TSAN 1
#endif

std::string sanitizers() {
  std::string s;
#ifdef TAUVTA_ASAN
  s += "address ";
#endif
#ifdef TAUVTA_TSAN
  s += "thread ";
#endif
  return s.empty() ? "none" : s.substr(0, s.size() - 1);
}

// AMX (tile registers): CPUID leaf 7, EDX bit 24. Reported for oneDNN's int8 reference path; the
// simulator's own kernels use AVX-512 VNNI or AVX2.
bool cpu_has_amx() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  return (d >> 24) & 1;
}

}  // namespace

std::string version_text() {
  const bool vnni = cpu_has_vnni(), avx2 = cpu_has_avx2();
  const char* gemm = vnni ? "AVX-512 VNNI" : avx2 ? "AVX2" : "portable C++";
  return fmt::format(
      "tauvta {}\n"
      "build: {}, {}, C++{}, sanitizers: {}\n"
      "this CPU: AVX-512 VNNI {}, AVX2 {}, AMX {}; simulator GEMM kernels: {}",
      report::version(), TAUVTA_BUILD_TYPE, compiler(), __cplusplus / 100 % 100, sanitizers(), vnni ? "yes" : "no",
      avx2 ? "yes" : "no", cpu_has_amx() ? "yes" : "no", gemm);
}

}  // namespace tauvta::cli
