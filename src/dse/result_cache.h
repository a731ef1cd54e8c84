// The exploration's on-disk cache: one JSON line per evaluation (dse/evaluator.h), appended and
// flushed as each finishes, keyed by (design, workload, budget, tuner settings). Opening it reads
// every finished line back; a last line a killed run left unfinished is cut off with a note, any
// other malformed line is an error naming the file and line. Thread-safe.
#pragma once

#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace tauvta::dse {

class ResultCache {
 public:
  explicit ResultCache(const std::filesystem::path& path);
  ~ResultCache();
  ResultCache(const ResultCache&) = delete;
  ResultCache& operator=(const ResultCache&) = delete;

  static std::string make_key(const std::string& design, const std::string& workload, int64_t budget,
                              const std::string& settings);
  // Every finished line of `path` by key (a missing file: none). Unlike opening a cache, a torn
  // last line is skipped, not cut off: the file may belong to a process still writing it.
  static std::map<std::string, std::string> read_lines(const std::filesystem::path& path);
  // Takes in the finished lines of another cache file (read_lines), e.g. an earlier attempt's.
  void absorb(const std::filesystem::path& other);
  bool contains(const std::string& key) const;
  std::optional<nlohmann::json> find(const std::string& key) const;
  void put(const std::string& key, const nlohmann::json& value);  // appended and flushed
  size_t size() const;
  const std::string& repair_note() const { return repair_note_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::map<std::string, std::string> entries_;  // key -> its line (parsed when found)
  std::string repair_note_;
  std::FILE* file_ = nullptr;
  mutable std::mutex mu_;
};

}  // namespace tauvta::dse
