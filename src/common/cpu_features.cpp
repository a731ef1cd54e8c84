#include "common/cpu_features.h"

namespace tauvta {

namespace {

// __builtin_cpu_init must run before __builtin_cpu_supports when called from code that may run
// before the constructors that would otherwise do it (static initializers of other files).
bool supports_all(bool (*ask)()) {
  __builtin_cpu_init();
  return ask();
}

}  // namespace

bool cpu_has_avx2() {
  static const bool has = supports_all([] { return bool(__builtin_cpu_supports("avx2")); });
  return has;
}

bool cpu_has_avx2_fma() {
  static const bool has =
      supports_all([] { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); });
  return has;
}

bool cpu_has_avx512f() {
  static const bool has = supports_all([] { return bool(__builtin_cpu_supports("avx512f")); });
  return has;
}

bool cpu_has_avx512bw() {
  static const bool has = supports_all(
      [] { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"); });
  return has;
}

bool cpu_has_vnni() {
  static const bool has = supports_all([] {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
  });
  return has;
}

}  // namespace tauvta
