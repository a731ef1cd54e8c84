// The ask/tell bookkeeping every searcher shares, the two model-free baselines (random, grid)
// and the factory.
#include "tune/searcher.h"

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::tune {

Searcher::Searcher(const KnobSpace& space, uint64_t seed) : space_(space), rng_(seed) {
  unproposed_.resize(space.size());
  slot_.resize(space.size());
  for (size_t i = 0; i < space.size(); ++i) unproposed_[i] = slot_[i] = i;
}

void Searcher::report(std::span<const TrialResult> results) {
  for (const TrialResult& r : results) take(r.point);
}

bool Searcher::take(size_t point) {
  if (point >= slot_.size()) throw InternalError(fmt::format("searcher: point {} outside the space", point));
  const size_t at = slot_[point];
  if (at == kTaken) return false;
  const size_t last = unproposed_.back();
  unproposed_[at] = last;
  slot_[last] = at;
  unproposed_.pop_back();
  slot_[point] = kTaken;
  return true;
}

std::optional<size_t> Searcher::take_random() {
  if (unproposed_.empty()) return std::nullopt;
  std::uniform_int_distribution<size_t> pick(0, unproposed_.size() - 1);
  const size_t p = unproposed_[pick(rng_)];
  take(p);
  return p;
}

namespace {

class RandomSearcher final : public Searcher {
 public:
  using Searcher::Searcher;
  std::vector<size_t> next(size_t batch) override {
    std::vector<size_t> out;
    while (out.size() < batch) {
      const std::optional<size_t> p = take_random();
      if (!p) break;
      out.push_back(*p);
    }
    return out;
  }
  std::string name() const override { return "random"; }
};

// Every point in grid order (the first knob fastest, as AutoTVM's GridSearchTuner walks indices).
class GridSearcher final : public Searcher {
 public:
  using Searcher::Searcher;
  std::vector<size_t> next(size_t batch) override {
    std::vector<size_t> out;
    for (; cursor_ < space_.size() && out.size() < batch; ++cursor_) {
      if (take(cursor_)) out.push_back(cursor_);
    }
    return out;
  }
  std::string name() const override { return "grid"; }

 private:
  size_t cursor_ = 0;
};

}  // namespace

std::unique_ptr<Searcher> make_anneal_searcher(const SearcherOptions& o, const KnobSpace& space);
std::unique_ptr<Searcher> make_model_searcher(const SearcherOptions& o, const KnobSpace& space,
                                              std::span<const float> features);

const char* searcher_kinds() { return "random, grid, sa, xgb"; }

std::unique_ptr<Searcher> make_searcher(const SearcherOptions& o, const KnobSpace& space,
                                        std::span<const float> features) {
  if (o.kind == "random") return std::make_unique<RandomSearcher>(space, o.seed);
  if (o.kind == "grid") return std::make_unique<GridSearcher>(space, o.seed);
  if (o.kind == "sa") return make_anneal_searcher(o, space);
  if (o.kind == "xgb") return make_model_searcher(o, space, features);
  throw Error(fmt::format("unknown tuner '{}' (expected one of: {})", o.kind, searcher_kinds()));
}

}  // namespace tauvta::tune
