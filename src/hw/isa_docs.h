// The ISA's documentation text, generated from the field table (isa_fields.def) so it cannot
// drift from the code: the field layout `tauvta config show` prints, and the token tables of
// docs/isa.md, which keeps each between <!-- isa-table:begin:NAME --> and <!-- isa-table:end -->.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hw/isa_layout.h"

namespace tauvta::hw {

// Every format's fields with their bit ranges and the unused gaps, then the micro-op fields.
std::string layout_text(const IsaLayout& layout);

struct DocBlock {
  std::string name;  // the NAME of its markers
  std::string text;  // what goes between them, ending in a newline
};

// docs/isa.md's generated blocks: "every-instruction", one per format ("load-store", "gemm",
// "alu", "finish"), and "default-layout" (layout_text of the default config, fenced).
std::vector<DocBlock> isa_doc_blocks();

// `markdown` with every block's text replaced by the generated one. Throws tauvta::Error naming
// a block whose markers are missing, so a block cannot silently drop out of the docs.
std::string regenerate_isa_doc(std::string_view markdown);

}  // namespace tauvta::hw
