#include "precision/tuner.h"

#include <cmath>
#include <cstdint>

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_parse.h"

namespace tauvta::precision {

using nlohmann::json;

const char* tune_mode_name(TuneMode m) { return m == TuneMode::kOTune ? "otune" : "search"; }

TuneMode parse_tune_mode(const std::string& s) {
  if (s == "otune") return TuneMode::kOTune;
  if (s == "search") return TuneMode::kSearch;
  throw Error(fmt::format("--mode '{}': expected otune or search", s));
}

json evaluation_json(const Evaluation& e, const std::vector<FormatSlot>& slots, int bits) {
  json f = json::object(), q = json::object();
  for (const auto& [v, frac] : e.formats) {
    f[v] = frac;
    q[v] = q_name(bits, frac);
  }
  json layers = json::array();
  for (const FormatSlot& s : slots) {
    const int frac = e.formats.at(s.value);
    json l = {{"value", s.value}, {"node", s.node}, {"op", s.op}, {"format", q_name(bits, frac)}};
    // Real values (hls4ml's ranges plot): the format's largest and the largest seen before the cast.
    l["format_max"] = std::ldexp(double((int64_t(1) << (bits - 1)) - 1), -frac);
    if (auto it = e.overflow_rate.find(s.value); it != e.overflow_rate.end()) l["overflow_rate"] = it->second;
    if (auto it = e.pre_cast_max.find(s.value); it != e.pre_cast_max.end()) {
      l["pre_cast_max"] = it->second;
      l["observed_max"] = std::ldexp(double(it->second), -frac);
    }
    layers.push_back(std::move(l));
  }
  return {{"frac_bits", f}, {"formats", q}, {"layers", layers}, {"begin", e.begin}, {"images", e.images},
          {"correct", e.correct}, {"accuracy", e.accuracy}, {"seconds", e.seconds}};
}

namespace {

// Integers are read only from JSON integers: nlohmann converts a float with a cast, undefined for
// one out of range (a frac_bits of 3e9).
int64_t integer_at(const json& j, const char* key, int64_t lo, int64_t hi) {
  const json& v = j.at(key);
  if (!v.is_number_integer() || (v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t(hi) : v.get<int64_t>() < lo || v.get<int64_t>() > hi)) {
    throw Error(fmt::format("{} = {} is not an integer in [{}, {}]", key, v.dump(), lo, hi));
  }
  return v.get<int64_t>();
}

Evaluation evaluation_from(const json& j) {
  Evaluation e;
  for (const auto& [v, f] : j.at("frac_bits").items()) {
    e.formats[v] = int(integer_at(j.at("frac_bits"), v.c_str(), -1024, 1024));
  }
  for (const json& l : j.at("layers")) {
    if (l.contains("overflow_rate")) e.overflow_rate[l.at("value")] = l.at("overflow_rate").get<double>();
    if (l.contains("pre_cast_max")) e.pre_cast_max[l.at("value")] = integer_at(l, "pre_cast_max", INT64_MIN, INT64_MAX);
  }
  e.begin = integer_at(j, "begin", 0, INT64_MAX);
  e.images = integer_at(j, "images", 0, INT64_MAX);
  e.correct = integer_at(j, "correct", 0, INT64_MAX);
  e.accuracy = j.at("accuracy");
  e.seconds = j.at("seconds");
  return e;
}

}  // namespace

json checkpoint_header(const hw::HwConfig& config, const Formats& start, const PrecisionTuneOptions& o) {
  return {{"mode", tune_mode_name(o.mode)}, {"threshold", o.threshold}, {"radius", o.radius}, {"min_gain", o.min_gain},
          {"tune_split", {o.tune_begin, o.tune_count}}, {"config", config.to_json()}, {"start", start}};
}

std::vector<Evaluation> read_checkpoint(const std::filesystem::path& path, const json& header, double min_gain) {
  std::vector<Evaluation> out;
  try {
    std::ifstream in(path);
    const json j = parse_json_bounded(path.string(), in);
    for (const char* k : {"mode", "threshold", "radius", "tune_split", "config", "start"}) {
      if (!j.contains(k) || j.at(k) != header.at(k)) {
        throw Error(fmt::format("{}: the checkpoint was made with another {} ({}); give another --out or "
                                "remove the file", path.string(), k, j.contains(k) ? j.at(k).dump() : "none"));
      }
    }
    if (j.value("min_gain", 0.0) != min_gain) {  // absent in checkpoints made before the option: 0
      throw Error(fmt::format("{}: the checkpoint was made with another min_gain ({}); give another --out or "
                              "remove the file", path.string(), j.value("min_gain", 0.0)));
    }
    for (const json& s : j.at("evaluations")) {
      try {
        out.push_back(evaluation_from(s));
      } catch (const Error& e) {
        throw Error(fmt::format("{}: evaluation {}: {}", path.string(), out.size(), e.what()));
      }
    }
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: not a precision checkpoint ({})", path.string(), e.what()));
  }
  return out;
}

namespace {

// Evaluations by formats: from the checkpoint first, else on the simulator (then checkpointed).
class Memo {
 public:
  Memo(const PrecisionEvaluator& ev, const Formats& start, const PrecisionTuneOptions& o)
      : ev_(ev), o_(o), header_(checkpoint_header(ev.config(), start, o)) {
    if (o.checkpoint.empty() || !std::filesystem::exists(o.checkpoint)) return;
    cache_ = read_checkpoint(o.checkpoint, header_, o.min_gain);
  }

  const Evaluation& get(const Formats& f, bool* replayed) {
    const Formats full = ev_.complete(f);
    for (const Evaluation& e : cache_) {
      if (e.formats == full) {
        *replayed = true;
        ++replayed_;
        return e;
      }
    }
    *replayed = false;
    ++evaluated_;
    cache_.push_back(ev_.evaluate(full, o_.tune_begin, o_.tune_count));
    save();
    return cache_.back();
  }
  int evaluated() const { return evaluated_; }
  int replayed() const { return replayed_; }

 private:
  void save() const {
    if (o_.checkpoint.empty()) return;
    json j = header_;
    j["evaluations"] = json::array();
    for (const Evaluation& e : cache_) j["evaluations"].push_back(evaluation_json(e, ev_.slots(), ev_.config().inp_width()));
    // Written beside and renamed over: a kill never leaves half a checkpoint.
    write_file_atomic(o_.checkpoint, j.dump(1) + "\n");
  }

  const PrecisionEvaluator& ev_;
  const PrecisionTuneOptions& o_;
  json header_;
  std::vector<Evaluation> cache_;
  int evaluated_ = 0, replayed_ = 0;
};

std::string describe_moves(const Formats& from, const Formats& to, int bits) {
  std::string s;
  for (const auto& [v, f] : to) {
    if (from.at(v) == f) continue;
    s += fmt::format("{}{} {}->{}", s.empty() ? "" : ", ", v, q_name(bits, from.at(v)), q_name(bits, f));
  }
  return s.empty() ? "start" : s;
}

}  // namespace

PrecisionTuneResult tune_precision(const PrecisionEvaluator& ev, const Formats& start_in, const PrecisionTuneOptions& o) {
  if (o.limit < 1) throw Error("precision tune: --limit must be at least 1");
  const int bits = ev.config().inp_width();
  PrecisionTuneResult r;
  r.start = ev.complete(start_in);
  Memo memo(ev, r.start, o);
  auto step = [&](const Formats& f, const std::string& action) -> const TuneStep& {
    TuneStep s;
    s.index = int(r.steps.size());
    s.action = action;
    s.eval = memo.get(f, &s.replayed);
    r.steps.push_back(std::move(s));
    const TuneStep& t = r.steps.back();
    // OTune keeps a later step on a tie (obj >= obj*); the search needs a gain over --min-gain to move.
    const double best = r.steps[r.best].eval.accuracy;
    const bool better = o.mode == TuneMode::kOTune ? t.eval.accuracy >= best : t.eval.accuracy > best + o.min_gain;
    if (r.steps.size() == 1 || better) r.best = r.steps.size() - 1;
    if (o.progress) {
      o.progress(fmt::format("step {:>3}{}: accuracy {:.4f} (best {:.4f}), max overflow rate {:.2e}, {:.1f} s: {}",
                             t.index, t.replayed ? " (from checkpoint)" : "", t.eval.accuracy,
                             r.steps[r.best].eval.accuracy, t.eval.max_overflow_rate(), t.eval.seconds, action));
    }
    return t;
  };

  Formats cur = r.start;
  step(cur, "start");
  if (o.mode == TuneMode::kOTune) {
    while (true) {
      const Evaluation& e = r.steps.back().eval;
      if (e.max_overflow_rate() <= o.threshold) {
        r.stop_reason = fmt::format("every layer's overflow rate is at most {:g}", o.threshold);
        break;
      }
      if (int(r.steps.size()) >= o.limit) {
        r.stop_reason = fmt::format("--limit {} evaluations reached", o.limit);
        break;
      }
      // FineTune: one more integer bit for every layer that overflows too often.
      Formats next = cur;
      for (const auto& [v, rate] : e.overflow_rate) {
        if (rate > o.threshold && next.at(v) > graph::kMinFracBits) --next.at(v);
      }
      if (next == cur) {
        r.stop_reason = "no layer over the threshold can move further";
        break;
      }
      const std::string action = describe_moves(cur, next, bits);
      cur = next;
      step(cur, action);
    }
  } else {
    // Coordinate descent: each slot's binary point moved by up to `radius` bits each way,
    // keeping a move when it raises tuning-split accuracy by more than min_gain; passes until one
    // changes nothing.
    bool improved = true;
    while (improved && int(r.steps.size()) < o.limit) {
      improved = false;
      for (const FormatSlot& s : ev.slots()) {
        for (int d = 1; d <= o.radius; ++d) {
          for (int sign : {-1, 1}) {
            if (int(r.steps.size()) >= o.limit) break;
            Formats cand = r.steps[r.best].eval.formats;
            cand.at(s.value) += sign * d;
            if (cand.at(s.value) < graph::kMinFracBits || cand.at(s.value) > graph::kMaxFracBits) continue;
            const size_t before = r.best;
            step(cand, describe_moves(r.steps[r.best].eval.formats, cand, bits));
            improved = improved || r.best != before;
          }
        }
      }
    }
    r.stop_reason = improved ? fmt::format("--limit {} evaluations reached", o.limit)
                             : "a whole pass over the layers improved nothing";
  }
  r.evaluations = memo.evaluated();
  r.replayed = memo.replayed();
  return r;
}

}  // namespace tauvta::precision
