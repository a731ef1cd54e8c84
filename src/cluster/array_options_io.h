// The job-array options as a run uses and records them: the worker binary filled in (this
// process's own executable, unless set) and checked; and as JSON for the reports.
#pragma once

#include <nlohmann/json.hpp>

#include "cluster/array_round.h"

namespace tauvta::cluster {

ArrayOptions resolved_array_options(const ArrayOptions& o);
nlohmann::json to_json(const ArrayOptions& o);

}  // namespace tauvta::cluster
