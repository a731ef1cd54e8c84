// Per-layer formats files (precision::read_formats_file: `LAYER=Qx.y` lines) against a fixed set
// of format slots, for 8-, 4- and 2-bit words; a line naming a slot by its float value, quantized value or
// node all work. The formats read must name known slots only.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "fuzz_target.h"
#include "precision/formats.h"

TAUVTA_FUZZ_TARGET(precision_formats) {
  using namespace tauvta;
  // The slots of models/vgg7_fmnist.onnx on the Pynq config (its .formats files are seeds).
  static const std::vector<precision::FormatSlot> slots = [] {
    std::vector<precision::FormatSlot> out = {{"input", "input_q", "input_quantize", "Quantize", 8, 4, -1}};
    int64_t layer = 0;
    for (const char* node : {"/features/features.0/Conv", "/features/features.2/Conv", "/features/features.5/Conv",
                             "/features/features.7/Conv", "/features/features.10/Conv", "/features/features.12/Conv",
                             "/classifier/classifier.1/Gemm", "/classifier/classifier.3/Gemm"}) {
      const std::string value = std::string(node) + "_output_0";
      out.push_back({value, value + "_q", node, "QConv", 8, 3, layer++});
    }
    return out;
  }();
  const fuzz::TempFile in(data, size, ".formats");
  for (const int bits : {8, 4, 2}) {  // the word lengths of the seeds (W8, W4A4 and W2A2 models)
    precision::Formats f;
    try {
      f = precision::read_formats_file(in.path().string(), slots, bits);
    } catch (const Error&) {
      continue;
    }
    for (const auto& [value, frac] : f) {
      bool known = false;
      for (const precision::FormatSlot& s : slots) known = known || s.value == value;
      fuzz::check(known, fmt::format("read_formats_file returned unknown value '{}'", value));
      (void)precision::q_name(bits, frac);
    }
  }
}
