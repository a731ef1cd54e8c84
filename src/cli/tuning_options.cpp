// Placeholder until lower/tuning_record lands: --tuning-log is refused with a clear message.
#include "cli/network_args.h"
#include "common/error.h"

namespace tauvta::cli {

backend::CompileOptions tuning_options(const std::string& path, const hw::HwConfig&, nlohmann::json&) {
  if (!path.empty()) throw Error("--tuning-log: reading tuning records is not built in yet");
  return {};
}

}  // namespace tauvta::cli
