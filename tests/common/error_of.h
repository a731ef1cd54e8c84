// The message of the tauvta::Error a call throws ("no error" when it returns): must-fail tests
// compare whole one-line messages with it.
#pragma once

#include <functional>
#include <string>

#include "common/error.h"

namespace tauvta::testing {

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace tauvta::testing
