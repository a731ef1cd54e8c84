#include "lower/schedule.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace tauvta::lower {

namespace {

struct KnobRef {
  const char* name;
  Split Schedule::*split;
};
constexpr KnobRef kSplits[] = {{"tile_b", &Schedule::tile_b}, {"tile_h", &Schedule::tile_h},
                               {"tile_w", &Schedule::tile_w}, {"tile_ci", &Schedule::tile_ci},
                               {"tile_co", &Schedule::tile_co}};

bool dense_knob(const std::string& k) { return k == "tile_b" || k == "tile_ci" || k == "tile_co" || k == "oc_nthread"; }

int64_t parse_int(const std::string& s, const std::string& knob) {
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty()) throw Error(fmt::format("schedule knob {}: '{}' is not an integer", knob, s));
  return v;
}

void check_split(const std::string& knob, const Split& s) {
  if (s.inner < 1) throw Error(fmt::format("schedule knob {}: inner factor {} must be at least 1", knob, s.inner));
  if (s.outer < 1 && s.outer != -1) throw Error(fmt::format("schedule knob {}: outer factor {} must be at least 1 (or -1)", knob, s.outer));
}

void check_threads(const std::string& knob, int64_t v) {
  if (v != 1 && v != 2) throw Error(fmt::format("schedule knob {}: {} virtual threads (1 or 2)", knob, v));
}

}  // namespace

std::string Schedule::to_string(OpKind kind) const {
  std::string s;
  for (const KnobRef& k : kSplits) {
    if (kind == OpKind::kDense && !dense_knob(k.name)) continue;
    const Split& sp = this->*k.split;
    s += fmt::format("{}{}={}x{}", s.empty() ? "" : ",", k.name, sp.outer, sp.inner);
  }
  s += fmt::format(",oc_nthread={}", oc_nthread);
  if (kind != OpKind::kDense) s += fmt::format(",h_nthread={}", h_nthread);
  return s;
}

Schedule Schedule::parse(const std::string& text) {
  Schedule s;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(at, end - at);
    at = end + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw Error(fmt::format("schedule: '{}' is not knob=value", item));
    const std::string knob = item.substr(0, eq), value = item.substr(eq + 1);
    bool known = false;
    for (const KnobRef& k : kSplits) {
      if (knob != k.name) continue;
      known = true;
      const size_t x = value.find('x');
      Split sp;
      if (x == std::string::npos) {
        sp.inner = parse_int(value, knob);
      } else {
        sp.outer = parse_int(value.substr(0, x), knob);
        sp.inner = parse_int(value.substr(x + 1), knob);
      }
      check_split(knob, sp);
      s.*k.split = sp;
    }
    if (knob == "oc_nthread" || knob == "h_nthread") {
      known = true;
      const int64_t v = parse_int(value, knob);
      check_threads(knob, v);
      (knob == "oc_nthread" ? s.oc_nthread : s.h_nthread) = int(v);
    }
    if (!known) {
      throw Error(fmt::format("schedule: unknown knob '{}' (tile_b, tile_h, tile_w, tile_ci, tile_co, "
                              "oc_nthread, h_nthread)",
                              knob));
    }
  }
  return s;
}

nlohmann::json Schedule::to_entity(OpKind kind) const {
  nlohmann::json e = nlohmann::json::array();
  for (const KnobRef& k : kSplits) {
    if (kind == OpKind::kDense && !dense_knob(k.name)) continue;
    const Split& sp = this->*k.split;
    e.push_back({k.name, "sp", {sp.outer, sp.inner}});
  }
  e.push_back({"oc_nthread", "ot", oc_nthread});
  if (kind != OpKind::kDense) e.push_back({"h_nthread", "ot", h_nthread});
  return e;
}

Schedule Schedule::from_entity(const nlohmann::json& entity) {
  if (!entity.is_array()) throw Error("schedule entity: not a list of knobs");
  Schedule s;
  for (const nlohmann::json& k : entity) {
    if (!k.is_array() || k.size() != 3 || !k[0].is_string() || !k[1].is_string()) {
      throw Error(fmt::format("schedule entity: malformed knob {}", k.dump()));
    }
    const std::string name = k[0], kind = k[1];
    bool known = false;
    for (const KnobRef& r : kSplits) {
      if (name != r.name) continue;
      known = true;
      if (kind != "sp" || !k[2].is_array() || k[2].size() != 2 || !k[2][0].is_number_integer() ||
          !k[2][1].is_number_integer()) {
        throw Error(fmt::format("schedule knob {}: expected [\"{}\", \"sp\", [outer, inner]], got {}", name, name, k.dump()));
      }
      const Split sp{k[2][0].get<int64_t>(), k[2][1].get<int64_t>()};
      check_split(name, sp);
      s.*r.split = sp;
    }
    if (name == "oc_nthread" || name == "h_nthread") {
      known = true;
      if (kind != "ot" || !k[2].is_number_integer()) {
        throw Error(fmt::format("schedule knob {}: expected [\"{}\", \"ot\", N], got {}", name, name, k.dump()));
      }
      check_threads(name, k[2].get<int64_t>());
      (name == "oc_nthread" ? s.oc_nthread : s.h_nthread) = k[2].get<int>();
    }
    if (!known) throw Error(fmt::format("schedule entity: unknown knob '{}'", name));
  }
  return s;
}

}  // namespace tauvta::lower
