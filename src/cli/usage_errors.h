// Usage errors as one line like every other error: a mistyped command word (`tauvta runn
// model.onnx`, `tauvta precision tun`) named as such with the closest command, instead of CLI11's
// "A subcommand is required"; CLI11's own messages prefixed and pointed at the command's --help.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace tauvta::cli {

// Levenshtein distance (insertions, deletions, substitutions).
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a plausible typo (at most a third
// of the word's letters, at least 1, or a prefix of the candidate); nullopt otherwise.
std::optional<std::string> closest_word(std::string_view word, const std::vector<std::string>& candidates);

// Walks the command words of argv through `app`'s subcommands; at the first word that is not a
// subcommand of a command that needs one, returns the one-line error (without "tauvta: error: ")
// naming the word, the command it was given to, and the closest command or the list of them.
std::optional<std::string> unknown_command_error(CLI::App& app, int argc, const char* const* argv);

// CLI11's parse error as one line (without "tauvta: error: "), naming the command whose --help
// tells the options: "--batch: Value 0 not in range 1 to 4096 (see tauvta run --help)".
std::string usage_error_line(CLI::App& app, const CLI::ParseError& e);

}  // namespace tauvta::cli
