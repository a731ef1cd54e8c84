#include "dse/result_cache.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::dse {

namespace {

std::string file_text(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) return {};
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Calls on_line(key, line) for every finished line; returns the bytes those lines take (a last
// line without its newline, which a killed writer leaves, is not finished). A malformed finished
// line is an error naming the file and line.
template <class F>
size_t parse_lines(const std::string& text, const std::filesystem::path& path, F on_line) {
  size_t good = 0, line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = text.find('\n', pos);
    ++line_no;
    if (nl == std::string::npos) break;
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    good = pos;
    if (line.empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const std::exception& e) {
      throw Error(fmt::format("{}: line {} is not JSON ({})", path.string(), line_no, e.what()));
    }
    if (!j.is_object() || !j.contains("cache_key") || !j["cache_key"].is_string()) {
      throw Error(fmt::format("{}: line {} has no cache_key", path.string(), line_no));
    }
    on_line(j["cache_key"].get<std::string>(), std::move(line));
  }
  return good;
}

}  // namespace

ResultCache::ResultCache(const std::filesystem::path& path) : path_(path) {
  const std::string text = file_text(path);
  // Kept as text: a parsed exhaustive cache holds hundreds of thousands of objects.
  const size_t good = parse_lines(text, path, [&](std::string key, std::string line) {
    entries_[std::move(key)] = std::move(line);
  });
  // A run killed mid-line leaves a last line without its newline: cut it off so appends start
  // on a fresh line (the evaluation it held is computed again).
  if (good < text.size()) {
    const size_t line_no = size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(good), '\n')) + 1;
    repair_note_ = fmt::format("{}: line {} was cut off by a killed run and is dropped", path.string(), line_no);
    std::filesystem::resize_file(path, good);
  }
  if (!path.parent_path().empty()) std::filesystem::create_directories(path.parent_path());
  file_ = std::fopen(path.string().c_str(), "ab");
  if (!file_) throw Error(fmt::format("{}: cannot open for appending", path.string()));
}

std::map<std::string, std::string> ResultCache::read_lines(const std::filesystem::path& path) {
  std::map<std::string, std::string> out;
  parse_lines(file_text(path), path, [&](std::string key, std::string line) { out[std::move(key)] = std::move(line); });
  return out;
}

void ResultCache::absorb(const std::filesystem::path& other) {
  auto lines = read_lines(other);
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, line] : lines) entries_.try_emplace(key, std::move(line));
}

bool ResultCache::contains(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.count(key) > 0;
}

ResultCache::~ResultCache() {
  if (file_) std::fclose(file_);
}

std::string ResultCache::make_key(const std::string& design, const std::string& workload, int64_t budget,
                                  const std::string& settings) {
  return fmt::format("{}|{}|budget{}|{}", design, workload, budget, settings);
}

std::optional<nlohmann::json> ResultCache::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return nlohmann::json::parse(it->second);
}

void ResultCache::put(const std::string& key, const nlohmann::json& value) {
  nlohmann::json j = value;
  j["cache_key"] = key;
  std::string line = j.dump();
  std::lock_guard<std::mutex> lock(mu_);
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fputc('\n', file_) == EOF ||
      std::fflush(file_) != 0) {
    throw Error(fmt::format("{}: write failed", path_.string()));
  }
  entries_[key] = std::move(line);
}

size_t ResultCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

}  // namespace tauvta::dse
