// JSON read from files, with the nesting depth bounded. nlohmann's parser itself is iterative, but
// dump() (error messages quote values), copies and comparisons recurse, so a file of a hundred
// thousand nested brackets would overflow the stack long after it parsed. parse_json_bounded
// refuses nesting deeper than kMaxJsonDepth while parsing, with a tauvta::Error naming `source`;
// syntax errors stay nlohmann::json::parse_error for the caller to word.
#pragma once

#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace tauvta {

// Far more than any file tauvta reads (a compiled network's manifest nests about 8 deep).
inline constexpr int kMaxJsonDepth = 256;

// `input` is anything nlohmann::json::parse takes: a string, a stream, an iterator pair (pass
// them as two arguments).
template <class... Input>
nlohmann::json parse_json_bounded(const std::string& source, Input&&... input) {
  const nlohmann::json::parser_callback_t limit = [&source](int depth, nlohmann::json::parse_event_t,
                                                             nlohmann::json&) {
    if (depth > kMaxJsonDepth) {
      throw Error(fmt::format("{}: JSON nested more than {} levels deep", source, kMaxJsonDepth));
    }
    return true;
  };
  return nlohmann::json::parse(std::forward<Input>(input)..., limit);
}

}  // namespace tauvta
