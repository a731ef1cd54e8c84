#include "tune/measurer.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "backend/op_runner.h"
#include "common/error.h"
#include "lower/conv_plan.h"

namespace tauvta::tune {

namespace {

Measurement measure_one(const hw::HwConfig& c, lower::ProgramTimer& timer, const lower::ConvLayerSpec& spec,
                        const lower::Schedule& s, uint64_t cycle_limit) {
  Measurement m;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    (void)lower::resolve_schedule(c, spec.w, s, spec.needs(c));
  } catch (const std::exception& e) {
    m.error_no = kInstantiationError;
    m.error = e.what();
    return m;
  }
  lower::Program p;
  try {
    p = lower::lower_conv_program(c, spec, s);
  } catch (const std::exception& e) {
    m.error_no = kCompileDeviceError;
    m.error = e.what();
    return m;
  }
  try {
    const sim::RunReport r = timer.time(p, cycle_limit);
    m.cycles = r.cycles;
    m.insns = p.num_insns();
    m.floor_cycles = r.compute_floor_cycles(c);
    if (r.cycles > cycle_limit) {
      m.error_no = kRunTimeout;
      m.error = fmt::format("stopped after {} cycles: slower than the best so far ({} cycles)", r.cycles, cycle_limit);
      m.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return m;
    }
  } catch (const std::exception& e) {
    m.error_no = kRuntimeDeviceError;
    m.error = e.what();
    return m;
  }
  m.seconds = double(m.cycles) / (c.timing.clock_mhz * 1e6);
  m.gops = c.gops(spec.useful_macs(), m.cycles);
  m.ceiling_gops = c.gops(spec.useful_macs(), m.floor_cycles);
  m.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

}  // namespace

// Workers wait for a batch, take schedules by an atomic counter and write results in place; the
// caller works on the batch too, so `threads` counts it.
struct Measurer::Pool {
  hw::HwConfig config;
  int threads = 1;
  std::vector<std::thread> workers;
  std::vector<std::unique_ptr<lower::ProgramTimer>> timers;  // one per thread, the caller's last
  std::mutex mu;
  std::condition_variable wake, done;
  uint64_t generation = 0;
  bool stop = false;
  // The current batch.
  const lower::ConvLayerSpec* spec = nullptr;
  std::span<const lower::Schedule> schedules;
  uint64_t cycle_limit = UINT64_MAX;
  Measurement* results = nullptr;
  std::atomic<size_t> next{0};
  size_t busy = 0;

  void work(lower::ProgramTimer& timer) {
    for (size_t i = next.fetch_add(1); i < schedules.size(); i = next.fetch_add(1)) {
      results[i] = measure_one(config, timer, *spec, schedules[i], cycle_limit);
    }
  }

  void worker(size_t id) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu);
        wake.wait(lock, [&] { return stop || generation != seen; });
        if (stop) return;
        seen = generation;
      }
      work(*timers[id]);
      std::lock_guard<std::mutex> lock(mu);
      if (--busy == 0) done.notify_all();
    }
  }
};

Measurer::Measurer(const hw::HwConfig& c, int threads) : pool_(std::make_unique<Pool>()) {
  pool_->config = c;
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  pool_->threads = threads;
  for (int i = 0; i < threads; ++i) pool_->timers.push_back(std::make_unique<lower::ProgramTimer>(c));
  for (int i = 0; i + 1 < threads; ++i) pool_->workers.emplace_back([this, i] { pool_->worker(size_t(i)); });
}

Measurer::~Measurer() {
  {
    std::lock_guard<std::mutex> lock(pool_->mu);
    pool_->stop = true;
  }
  pool_->wake.notify_all();
  for (std::thread& t : pool_->workers) t.join();
}

int Measurer::threads() const { return pool_->threads; }
const hw::HwConfig& Measurer::config() const { return pool_->config; }

std::vector<Measurement> Measurer::measure(const lower::ConvLayerSpec& spec, std::span<const lower::Schedule> schedules,
                                           uint64_t cycle_limit) {
  std::vector<Measurement> out(schedules.size());
  Pool& p = *pool_;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    p.spec = &spec;
    p.schedules = schedules;
    p.cycle_limit = cycle_limit;
    p.results = out.data();
    p.next = 0;
    p.busy = p.workers.size();
    ++p.generation;
  }
  p.wake.notify_all();
  p.work(*p.timers.back());
  std::unique_lock<std::mutex> lock(p.mu);
  p.done.wait(lock, [&] { return p.busy == 0; });
  return out;
}

std::string verify_schedule(const hw::HwConfig& c, const lower::ConvLayerSpec& spec, const lower::Schedule& s,
                            uint64_t seed) {
  try {
    backend::OpRunOptions o;
    o.seed = seed;
    o.bias = spec.acc_vectors(c) > 0;
    const backend::OpRun r = backend::run_op(c, spec.w, s, o);
    return r.verified ? "" : r.mismatch;
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace tauvta::tune
