// Simulated annealing over measurements ("sa"): parallel chains walk the knob space one knob at a
// time; each proposal is measured and accepted by the Metropolis rule on its GOPS relative to the
// best so far, at a temperature that cools over the expected budget. Chains live across batches;
// a chain steps over already-measured neighbours using their known scores instead of measuring
// them again, and restarts at a random point when its neighbourhood is exhausted.
#include <cmath>
#include <limits>
#include <unordered_map>

#include "common/error.h"
#include "tune/searcher.h"

namespace tauvta::tune {

namespace {

class AnnealSearcher final : public Searcher {
 public:
  AnnealSearcher(const SearcherOptions& o, const KnobSpace& space)
      : Searcher(space, o.seed),
        chains_(size_t(std::max(1, o.chains))),
        known_(space.size(), std::numeric_limits<double>::quiet_NaN()),
        expected_(std::max(1, o.expected_trials)) {}

  std::vector<size_t> next(size_t batch) override {
    std::vector<size_t> out;
    size_t idle = 0;  // chains in a row that proposed nothing
    while (out.size() < batch && remaining() > 0 && idle < chains_.size()) {
      const size_t c = cursor_++ % chains_.size();
      const std::optional<size_t> p = propose(c);
      if (!p) {
        ++idle;
        continue;
      }
      idle = 0;
      pending_[*p] = c;
      out.push_back(*p);
    }
    return out;
  }

  void report(std::span<const TrialResult> results) override {
    Searcher::report(results);
    for (const TrialResult& r : results) {
      known_[r.point] = r.score;
      best_ = std::max(best_, r.score);
      ++reported_;
    }
    for (const TrialResult& r : results) {
      auto it = pending_.find(r.point);
      if (it == pending_.end()) continue;
      Chain& ch = chains_[it->second];
      pending_.erase(it);
      if (!ch.started || accept(ch.score, r.score)) {
        ch.point = r.point;
        ch.score = r.score;
        ch.started = true;
      }
    }
  }

  std::string name() const override { return "sa"; }

 private:
  struct Chain {
    size_t point = 0;
    double score = 0;
    bool started = false;
  };

  double temperature() const {
    const double progress = std::min(1.0, double(reported_) / double(expected_));
    return 0.3 * (1.0 - progress) + 0.005;
  }

  bool accept(double current, double proposed) {
    if (proposed >= current) return true;
    const double scale = std::max(best_, 1e-9) * temperature();
    return std::uniform_real_distribution<double>(0, 1)(rng_) < std::exp((proposed - current) / scale);
  }

  std::optional<size_t> propose(size_t c) {
    Chain& ch = chains_[c];
    if (!ch.started) {
      // Waiting for its first point, or about to get one.
      for (const auto& [point, chain] : pending_) {
        if (chain == c) return std::nullopt;
      }
      return take_random();
    }
    for (int attempt = 0; attempt < 16; ++attempt) {
      const std::optional<size_t> q = space_.random_neighbor(ch.point, rng_);
      if (!q) break;
      if (take(*q)) return q;
      // Measured already (or pending): move across it by its known score.
      if (!std::isnan(known_[*q]) && accept(ch.score, known_[*q])) {
        ch.point = *q;
        ch.score = known_[*q];
      }
    }
    // The neighbourhood is exhausted: restart this chain at a random point.
    ch.started = false;
    return take_random();
  }

  std::vector<Chain> chains_;
  std::vector<double> known_;
  std::unordered_map<size_t, size_t> pending_;  // proposed point -> its chain
  size_t cursor_ = 0;
  size_t reported_ = 0;
  double best_ = 0;
  int expected_;
};

}  // namespace

std::unique_ptr<Searcher> make_anneal_searcher(const SearcherOptions& o, const KnobSpace& space) {
  return std::make_unique<AnnealSearcher>(o, space);
}

}  // namespace tauvta::tune
