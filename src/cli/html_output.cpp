#include "cli/html_output.h"

#include "cli/cli_io.h"
#include "cli/commands.h"

namespace tauvta::cli {

nlohmann::json roofline_extra(const hw::HwConfig& c) {
  return {{"peak_gops", c.peak_gops()},
          {"dram_gbps", c.dram_gbps()},
          {"clock_mhz", c.timing.clock_mhz}};
}

void write_html_report(const std::string& path, report::Page page, bool force) {
  if (page.command.empty()) page.command = invocation();
  write_text(path, report::render_html(page), force);
}

}  // namespace tauvta::cli
