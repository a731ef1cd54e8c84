// Running another program and reading what it printed: the Slurm client's sbatch, squeue and
// scancel. The arguments go to the program as they are (no shell, so nothing in a path or a
// partition name is interpreted); stdout and stderr are read whole through pipes.
#pragma once

#include <string>
#include <vector>

namespace tauvta::cluster {

struct ProcessResult {
  int exit_code = 0;    // the program's exit status; 128+N when it died of signal N
  std::string out, err;
};

// Runs argv[0] (looked up on PATH) with argv. Throws tauvta::Error when it cannot be started,
// naming the program (e.g. "sbatch: not found on PATH (is its package installed?)").
ProcessResult run_process(const std::vector<std::string>& argv);

// The first line of `text` without its newline, at most `max` characters (for one-line errors).
std::string first_line(const std::string& text, size_t max = 300);

}  // namespace tauvta::cluster
