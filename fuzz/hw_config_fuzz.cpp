// Hardware configs: a vta_config.json (HwConfig::load: JSON parse, keys, ranges, encodability),
// or, when the input is not JSON, a VTA configuration name (HwConfig::from_name). A config that
// loads must survive to_json -> from_json and name -> from_name, and build its ISA layout.
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fuzz_target.h"
#include "hw/hw_config.h"
#include "hw/isa_layout.h"

TAUVTA_FUZZ_TARGET(hw_config) {
  using namespace tauvta;
  const std::string text(reinterpret_cast<const char*>(data), size);
  hw::HwConfig c;
  if (nlohmann::json::accept(text)) {
    fuzz::TempFile f(text, ".json");
    c = hw::HwConfig::load(f.path());
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j.is_object() && j.contains("TIMING")) {
      fuzz::check(c.with_timing(j.at("TIMING")) == c, "with_timing(TIMING) changed the config");
    }
  } else {
    if (size > 256) return;
    c = hw::HwConfig::from_name(text);
  }
  const hw::HwConfig back = hw::HwConfig::from_json(c.to_json(), "to_json");
  fuzz::check(back == c, fmt::format("from_json(to_json()) differs for {}", c.to_json().dump()));
  const hw::HwConfig named = hw::HwConfig::from_name(c.name());
  fuzz::check(named.name() == c.name(), fmt::format("from_name('{}') names itself '{}'", c.name(), named.name()));
  const hw::IsaLayout layout(c);
  (void)layout.uop();
  (void)c.peak_gops();
  (void)c.dram_gbps();
}
