#include "cpu/op_registry.h"

#include <algorithm>
#include <array>

namespace tauvta::cpu {

namespace {

constexpr std::array kTable = {
#define TAUVTA_TENSOR_ENTRY(name) FloatOpEntry{FloatOp::k##name, #name, &op_##name, nullptr},
#define TAUVTA_VALUE_ENTRY(name) FloatOpEntry{FloatOp::k##name, #name, nullptr, &op_##name},
    TAUVTA_FLOAT_OPS(TAUVTA_TENSOR_ENTRY, TAUVTA_VALUE_ENTRY)
#undef TAUVTA_TENSOR_ENTRY
#undef TAUVTA_VALUE_ENTRY
};
static_assert(kTable.size() == size_t(FloatOp::kCount), "float op table and FloatOp enum disagree");

constexpr bool table_in_enum_order_and_sorted() {
  for (size_t i = 0; i < kTable.size(); ++i) {
    if (kTable[i].op != FloatOp(i)) return false;
    if (i > 0 && !(kTable[i - 1].name < kTable[i].name)) return false;
  }
  return true;
}
static_assert(table_in_enum_order_and_sorted(), "keep TAUVTA_FLOAT_OPS sorted and unique");

}  // namespace

const FloatOpEntry* find_float_op(std::string_view op_type) {
  auto it = std::lower_bound(kTable.begin(), kTable.end(), op_type,
                             [](const FloatOpEntry& e, std::string_view n) { return e.name < n; });
  return it != kTable.end() && it->name == op_type ? &*it : nullptr;
}

const std::vector<FloatOpEntry>& float_op_table() {
  static const std::vector<FloatOpEntry> table(kTable.begin(), kTable.end());
  return table;
}

}  // namespace tauvta::cpu
