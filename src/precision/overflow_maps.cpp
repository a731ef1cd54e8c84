#include "precision/overflow_maps.h"

namespace tauvta::precision {

backend::InstrumentRequest overflow_everywhere() {
  backend::InstrumentRequest r;
  r.specs.push_back(backend::parse_instrument_spec("overflow"));
  return r;
}

nlohmann::json overflow_maps_json(const backend::NetworkInstruments& inst, const std::vector<FormatSlot>& slots,
                                  const Formats& formats) {
  const backend::CompiledNetwork& net = inst.network();
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const sim::LayerInstruments* li = inst.layer(i);
    if (!li) continue;
    const sim::LayerObservation& o = li->observation();
    const sim::OutputMap& m = li->map();
    std::string value = net.layers[i].outputs.at(0), format;
    for (const FormatSlot& s : slots) {
      if (s.network_layer != int64_t(i)) continue;
      value = s.value;
      const auto f = formats.find(s.value);
      format = q_name(s.bits, f == formats.end() ? s.frac : f->second);
    }
    // overflow_map counts each element of one image (C*H*W) over every observed image.
    const double images = inst.images() > 0 ? double(inst.images()) : 1.0;
    std::vector<double> spatial(size_t(m.h * m.w), 0.0);
    if (o.overflow_map.size() == size_t(m.c * m.h * m.w)) {
      for (int64_t c = 0; c < m.c; ++c) {
        for (size_t p = 0; p < spatial.size(); ++p) spatial[p] += double(o.overflow_map[size_t(c) * spatial.size() + p]);
      }
      for (double& r : spatial) r /= images * double(m.c);
    }
    std::vector<double> channels;
    for (uint64_t n : o.channel_overflows) channels.push_back(o.channel_elements() ? double(n) / double(o.channel_elements()) : 0.0);
    out.push_back({{"value", value},
                   {"layer", net.layers[i].name},
                   {"op", net.layers[i].op},
                   {"format", format},
                   {"overflow_rate", o.overflow_rate()},
                   {"channel_rates", channels},
                   {"map", {{"height", m.h}, {"width", m.w}, {"rates", spatial}}}});
  }
  return out;
}

}  // namespace tauvta::precision
