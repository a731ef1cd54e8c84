// Errors a user can act on. Everything that rejects input (a config key, an instruction field,
// an out-of-range address, a deadlocked program) throws tauvta::Error with the context in the
// message; the CLI prints it as one line and exits 1. InternalError marks a broken invariant.
#pragma once

#include <stdexcept>
#include <string>

namespace tauvta {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& what) : std::logic_error("internal error: " + what) {}
};

}  // namespace tauvta
