#include "cli/usage_errors.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace tauvta::cli {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t(0));
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_word(std::string_view word, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(1, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    size_t d = edit_distance(word, c);
    if (word.size() >= 2 && c.starts_with(word)) d = std::min<size_t>(d, 1);  // "prec" -> precision
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::optional<std::string> unknown_command_error(CLI::App& app, int argc, const char* const* argv) {
  CLI::App* current = &app;
  std::string path = "tauvta";
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    const std::vector<CLI::App*> subs = current->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) return std::nullopt;
    if (!word.empty() && word.front() == '-') {
      // An option where a command word must come: CLI11 would only say a subcommand is required.
      const std::string name(word.substr(0, word.find('=')));
      if (current->get_require_subcommand_min() == 0 || current->get_option_no_throw(name) != nullptr) {
        return std::nullopt;
      }
      return fmt::format("unknown option '{}' for '{}'; it takes a command first ({} --help lists them)", name,
                         path, path);
    }
    const auto found = std::find_if(subs.begin(), subs.end(), [&](CLI::App* s) { return s->check_name(std::string(word)); });
    if (found != subs.end()) {
      current = *found;
      path += " " + current->get_name();
      continue;
    }
    if (current->get_require_subcommand_min() == 0) return std::nullopt;  // a positional argument
    std::vector<std::string> names;
    for (CLI::App* s : subs) names.push_back(s->get_name());
    std::sort(names.begin(), names.end());
    const std::optional<std::string> close = closest_word(word, names);
    if (close) {
      return fmt::format("unknown command '{}' for '{}'; did you mean '{}'? ({} --help lists them)", word, path,
                         *close, path);
    }
    return fmt::format("unknown command '{}' for '{}'; the commands are {}", word, path, fmt::join(names, ", "));
  }
  return std::nullopt;
}

std::string usage_error_line(CLI::App& app, const CLI::ParseError& e) {
  std::string path = "tauvta";
  CLI::App* at = &app;
  for (;;) {  // the deepest command the parser entered
    const std::vector<CLI::App*> parsed = at->get_subcommands();
    if (parsed.empty()) break;
    at = parsed.front();
    path += " " + at->get_name();
  }
  std::string what = e.what();
  while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
  for (char& c : what) c = c == '\n' ? ' ' : c;
  // An option the command does not have: name the closest one it does.
  const std::string extra = "The following argument was not expected: ";
  if (what.rfind(extra, 0) == 0) {
    std::string word = what.substr(extra.size());
    word = word.substr(0, word.find('='));
    if (word.rfind("--", 0) == 0) {
      std::vector<std::string> names;
      for (const CLI::Option* o : at->get_options()) {
        for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
      }
      std::sort(names.begin(), names.end());
      if (const std::optional<std::string> close = closest_word(word, names)) {
        return fmt::format("{}; did you mean '{}'? (see {} --help)", what, *close, path);
      }
    }
  }
  return fmt::format("{} (see {} --help)", what, path);
}

}  // namespace tauvta::cli
