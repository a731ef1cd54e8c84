// Function multiversioning: GCC compiles a function once per listed ISA and picks the clone at
// load time (ifunc). Clang before 17 cannot clone function templates; clang builds (the fuzzing
// and sanitizer builds, docs/fuzzing.md) compile such functions once, for the baseline ISA.
#pragma once

#if defined(__clang__)
#define TAUVTA_TARGET_CLONES(...)
#else
#define TAUVTA_TARGET_CLONES(...) __attribute__((target_clones(__VA_ARGS__)))
#endif
