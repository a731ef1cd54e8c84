#include "dse/result_cache.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::dse {

ResultCache::ResultCache(const std::filesystem::path& path) : path_(path) {
  std::string text;
  if (std::filesystem::exists(path)) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  // A run killed mid-line leaves a last line without its newline: cut it off so appends start
  // on a fresh line (the evaluation it held is computed again).
  size_t good = 0, line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = text.find('\n', pos);
    ++line_no;
    if (nl == std::string::npos) {
      repair_note_ = fmt::format("{}: line {} was cut off by a killed run and is dropped", path.string(), line_no);
      break;
    }
    const std::string line = text.substr(pos, nl - pos);
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
    // Kept as text: a parsed exhaustive cache holds hundreds of thousands of objects.
    entries_[j["cache_key"].get<std::string>()] = line;
  }
  if (good < text.size()) std::filesystem::resize_file(path, good);
  if (!path.parent_path().empty()) std::filesystem::create_directories(path.parent_path());
  file_ = std::fopen(path.string().c_str(), "ab");
  if (!file_) throw Error(fmt::format("{}: cannot open for appending", path.string()));
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
