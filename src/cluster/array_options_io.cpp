#include "cluster/array_options_io.h"

#include <filesystem>

namespace tauvta::cluster {

ArrayOptions resolved_array_options(const ArrayOptions& o) {
  ArrayOptions r = o;
  if (r.worker.empty()) r.worker = std::filesystem::read_symlink("/proc/self/exe");
  r.check();
  return r;
}

nlohmann::json to_json(const ArrayOptions& o) {
  return {{"partition", o.partition},       {"array_size", o.array_size},   {"time_limit", o.time_limit},
          {"cpus_per_task", o.cpus_per_task}, {"poll_seconds", o.poll_seconds}, {"retries", o.retries},
          {"worker", o.worker.string()},     {"sbatch_extra", o.sbatch_extra}};
}

}  // namespace tauvta::cluster
