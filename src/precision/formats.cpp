#include "precision/formats.h"

#include <charconv>
#include <fstream>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::precision {

std::string q_name(int bits, int frac) { return fmt::format("Q{}.{}", bits - 1 - frac, frac); }

namespace {

bool parse_int(const std::string& s, int& v) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  return ec == std::errc() && p == end;
}

}  // namespace

int parse_q(const std::string& text, int bits, const std::string& what) {
  int v = 0;
  if (parse_int(text, v)) return v;
  if (text.size() > 1 && (text[0] == 'Q' || text[0] == 'q')) {
    const size_t dot = text.find('.', 1);
    int x = 0, y = 0;
    if (dot != std::string::npos && parse_int(text.substr(1, dot - 1), x) && parse_int(text.substr(dot + 1), y)) {
      if (1 + x + y != bits) {
        throw Error(fmt::format("{}: {} has 1 + {} + {} = {} bits, the config's word is {} bits (Q{}.{} or Q{}.{}, ...)",
                                what, text, x, y, 1 + x + y, bits, 0, bits - 1, 1, bits - 2));
      }
      return y;
    }
  }
  throw Error(fmt::format("{}: '{}' is not a format (write Qx.y with 1 + x + y = {}, or frac_bits)", what, text, bits));
}

Formats read_formats_file(const std::string& path, const std::vector<FormatSlot>& slots, int bits) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot read the formats file", path));
  Formats out;
  std::map<std::string, int> given_on;  // float value -> line that set it
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const std::string where = fmt::format("{}:{}", path, no);
    const size_t eq = line.rfind('=');
    if (eq == std::string::npos || eq == 0) throw Error(fmt::format("{}: '{}' is not LAYER=Qx.y", where, line));
    auto trim = [](std::string t) {
      while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.pop_back();
      return t.substr(std::min(t.size(), t.find_first_not_of(" \t")));
    };
    const std::string name = trim(line.substr(0, eq)), format = trim(line.substr(eq + 1));
    const FormatSlot* slot = nullptr;
    for (const FormatSlot& s : slots) {
      if (s.value == name || s.int_value == name || s.node == name) slot = &s;
    }
    if (!slot) throw Error(fmt::format("{}: no layer or value '{}' with a format (see tauvta precision show)", where, name));
    if (auto g = given_on.find(slot->value); g != given_on.end()) {
      throw Error(fmt::format("{}: '{}' was already given a format on line {}", where, name, g->second));
    }
    out[slot->value] = parse_q(format, bits, where + ": " + name);
    given_on[slot->value] = no;
  }
  return out;
}

std::vector<FormatSlot> format_slots(const graph::QuantizeResult& q, const backend::CompiledNetwork* net) {
  std::map<std::string, std::string> float_of;  // quantized value -> float value
  for (const auto& [f, i] : q.value_map) float_of[i] = f;
  std::vector<FormatSlot> out;
  for (const graph::Node& n : q.graph.nodes) {
    for (const std::string& o : n.outputs) {
      auto f = float_of.find(o);
      if (f == float_of.end() || !q.activation_formats.count(f->second)) continue;
      const graph::ValueInfo* vi = q.graph.info(o);
      if (!vi || !vi->quant.quantized()) continue;
      FormatSlot s{f->second, o, n.name, n.op_type, vi->quant.bits, vi->quant.frac_bits, -1};
      if (net) {
        for (size_t i = 0; i < net->layers.size(); ++i) {
          const backend::NetworkLayer& l = net->layers[i];
          if (l.placement != backend::Placement::kVta) continue;
          for (const std::string& lo : l.outputs) {
            if (lo == o) s.network_layer = int64_t(i);
          }
        }
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::vector<FormatSlot> format_slots(const backend::CompiledNetwork& net) {
  graph::QuantizeResult q;
  q.graph = net.graph;
  for (const graph::Node& n : net.graph.nodes) {
    const bool sets_format = n.op_type == "Quantize" || n.attrs.count("clip_min") || n.op_type == "QConcat";
    if (!sets_format) continue;
    for (const std::string& o : n.outputs) {
      q.value_map[o] = o;
      if (const graph::ValueInfo* vi = net.graph.info(o)) q.activation_formats[o] = vi->quant.frac_bits;
    }
  }
  return format_slots(q, &net);
}

Formats uniform_formats(const std::vector<FormatSlot>& slots, int frac) {
  Formats f;
  for (const FormatSlot& s : slots) f[s.value] = frac;
  return f;
}

Formats formats_of(const std::vector<FormatSlot>& slots) {
  Formats f;
  for (const FormatSlot& s : slots) f[s.value] = s.frac;
  return f;
}

}  // namespace tauvta::precision
