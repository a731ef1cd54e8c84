// Where a network overflows, per layer: the overflow rate, the rate per output channel and a map of
// one image's positions (rates averaged over channels), from overflow instruments run over a set
// of images. What the precision report's page draws as its per-layer bars and overflow map.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "backend/network_instruments.h"
#include "precision/formats.h"

namespace tauvta::precision {

// One entry per observed accelerator layer: {value, layer, op, format, overflow_rate,
// channel_rates: [C], map: {height, width, rates: [H*W] row-major}}. `formats` names each slot's
// format (slots missing from it are shown with their calibrated format).
nlohmann::json overflow_maps_json(const backend::NetworkInstruments& inst, const std::vector<FormatSlot>& slots,
                                  const Formats& formats);

// Instruments that observe overflows on every accelerator layer.
backend::InstrumentRequest overflow_everywhere();

}  // namespace tauvta::precision
