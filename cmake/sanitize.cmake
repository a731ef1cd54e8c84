# Sanitizer and fuzzing builds (docs/fuzzing.md).
#
# TAUVTA_SANITIZE=address,undefined (any -fsanitize= list) compiles and links everything in the
# build directory with those sanitizers and frame pointers; UBSan findings abort instead of
# printing and carrying on, so a test or a fuzzer cannot miss one. CI runs the test suite in such a
# build.
#
# TAUVTA_FUZZ=ON (clang only) builds one libFuzzer target per loader under fuzz/: the libraries
# get -fsanitize=fuzzer-no-link (coverage instrumentation), the targets -fsanitize=fuzzer (the
# driver). It implies TAUVTA_SANITIZE=address,undefined unless another list is given.
set(TAUVTA_SANITIZE "" CACHE STRING "Comma-separated -fsanitize= list for the whole build (e.g. address,undefined)")
option(TAUVTA_FUZZ "Build the libFuzzer targets under fuzz/ (needs clang)" OFF)

if(TAUVTA_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "TAUVTA_FUZZ needs clang (libFuzzer); configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  if(TAUVTA_SANITIZE STREQUAL "")
    set(TAUVTA_SANITIZE "address,undefined" CACHE STRING "" FORCE)
  endif()
endif()

if(NOT TAUVTA_SANITIZE STREQUAL "")
  set(tauvta_sanitize_flags -fsanitize=${TAUVTA_SANITIZE} -fno-omit-frame-pointer)
  if(TAUVTA_SANITIZE MATCHES "undefined")
    list(APPEND tauvta_sanitize_flags -fno-sanitize-recover=undefined)
  endif()
  add_compile_options(${tauvta_sanitize_flags})
  add_link_options(-fsanitize=${TAUVTA_SANITIZE})
  message(STATUS "tauvta: sanitizers ${TAUVTA_SANITIZE}")
endif()

if(TAUVTA_FUZZ)
  # Coverage instrumentation for every library; only the fuzz targets link the libFuzzer driver.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
