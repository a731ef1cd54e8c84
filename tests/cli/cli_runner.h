// Runs the tauvta binary built beside the tests and captures its exit code and output, for the
// end-to-end CLI tests of every module.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace tauvta::testing {

struct CliResult {
  int code = -1;    // exit status, -1 when the command did not exit normally
  std::string out;  // stdout and stderr together
};

inline CliResult run_tauvta(const std::string& args) {
  const std::string cmd = std::string(TAUVTA_CLI_PATH) + " " + args + " 2>&1";
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) {
    r.out = "popen failed";
    return r;
  }
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace tauvta::testing
