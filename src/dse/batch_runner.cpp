#include "dse/batch_runner.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <string>
#include <mutex>
#include <thread>

namespace tauvta::dse {

std::vector<std::vector<size_t>> sharing_groups(const DesignSpace& space, const Evaluator& evaluator,
                                                std::span<const Ask> asks) {
  std::vector<std::vector<size_t>> groups;
  std::map<std::string, size_t> group_of;
  for (size_t i = 0; i < asks.size(); ++i) {
    const std::string key = evaluator.sharing_key(space, asks[i].design, asks[i].budget);
    if (key.empty()) {
      groups.push_back({i});
      continue;
    }
    auto [it, fresh] = group_of.try_emplace(key, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

std::vector<Evaluation> ThreadRunner::run(const DesignSpace& space, Evaluator& evaluator, std::span<const Ask> asks,
                                          const std::function<void(size_t done)>& done) {
  const std::vector<std::vector<size_t>> groups = sharing_groups(space, evaluator, asks);
  std::vector<Evaluation> out(asks.size());
  std::atomic<size_t> next{0}, finished{0};
  std::exception_ptr failure;
  std::mutex mu;
  auto work = [&] {
    for (size_t g = next.fetch_add(1); g < groups.size(); g = next.fetch_add(1)) {
      for (size_t i : groups[g]) {
        try {
          out[i] = evaluator.evaluate(space, asks[i].design, asks[i].budget);
        } catch (...) {
          std::lock_guard<std::mutex> lock(mu);
          if (!failure) failure = std::current_exception();
          next = groups.size();
          return;
        }
        const size_t n = finished.fetch_add(1) + 1;
        if (done && (n % 64 == 0 || asks[i].budget > 0)) {
          std::lock_guard<std::mutex> lock(mu);
          done(n);
        }
      }
    }
  };
  const int threads = threads_ > 0 ? threads_ : int(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min<int>(threads, int(groups.size())); ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return out;
}

}  // namespace tauvta::dse
