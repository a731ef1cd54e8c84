#include "dse/workload.h"

#include "graph/quantize.h"

#include <fstream>

#include <fmt/format.h>

#include "backend/compile_network.h"
#include "common/error.h"
#include "common/fnv1a.h"

namespace tauvta::dse {

namespace {

// The file's bytes hashed: the cache must not reuse results of a different model that
// happens to have the same name.
uint64_t file_hash(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot read the model", p.string()));
  uint64_t h = kFnv1aOffset;
  char buf[65536];
  while (in) {
    in.read(buf, sizeof buf);
    h = fnv1a64(std::string_view(buf, size_t(in.gcount())), h);
  }
  return h;
}

std::string width_key(const hw::HwConfig& c) {
  return fmt::format("i{}w{}a{}", c.inp_width(), c.wgt_width(), c.acc_width());
}

}  // namespace

DseWorkload::DseWorkload(const std::filesystem::path& model, const model::LoadOptions& options)
    : model_path_(model), options_(options) {
  model::LoadOptions probe = options;
  probe.quantize = false;
  const model::LoadedModel m = model::load_model(model, probe);
  batch_ = options.batch > 0 ? options.batch : model::default_batch(m);
  label_ = model.filename().string();
  id_ = fmt::format("model:{:016x}:batch{}:calib={}:n{}:stat{}:pct{}:wstat{}:pc{}", file_hash(model), batch_,
                    options.calibrate.string(), options.calib_samples, int(options.calib_stat), options.percentile,
                    int(options.weight_stat), int(options.per_channel));
}

DseWorkload::DseWorkload(const std::string& spec) : spec_(tune::parse_workload_spec(spec)) {
  batch_ = spec_->batch;
  label_ = spec;
  id_ = "workload:" + spec_->to_string();
}

std::shared_ptr<const model::LoadedModel> DseWorkload::loaded(const hw::HwConfig& c) {
  if (!is_model()) throw Error("the exploration's workload is a single operator, not a model");
  std::lock_guard<std::mutex> lock(mu_);
  const std::string key = width_key(c);
  auto it = models_.find(key);
  if (it != models_.end()) return it->second;
  if (auto e = load_errors_.find(key); e != load_errors_.end()) std::rethrow_exception(e->second);
  model::LoadOptions o = options_;
  o.quantize = true;
  o.batch = 0;
  o.config = c;
  o.progress = {};
  try {
    auto m = std::make_shared<const model::LoadedModel>(model::load_model(model_path_, o));
    models_[key] = m;
    return m;
  } catch (const graph::ImportedWidthError& e) {
    // An imported quantized model's ranges do not fit these widths: the format is infeasible.
    load_errors_[key] = std::make_exception_ptr(graph::ImportedWidthError(fmt::format("quantizing at {}: {}", key, e.what())));
    std::rethrow_exception(load_errors_[key]);
  } catch (const Error& e) {
    // Quantization at these widths fails the same way for every design: say so once.
    load_errors_[key] = std::make_exception_ptr(Error(fmt::format("quantizing at {}: {}", key, e.what())));
    std::rethrow_exception(load_errors_[key]);
  }
}

std::shared_ptr<const std::vector<WorkloadTask>> DseWorkload::tasks(const hw::HwConfig& host) {
  const std::string key = host.name();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = tasks_.find(key); it != tasks_.end()) return it->second;
    if (auto it = task_errors_.find(key); it != task_errors_.end()) throw Error(it->second);
  }
  auto out = std::make_shared<std::vector<WorkloadTask>>();
  try {
    if (spec_) {
      out->push_back({tune::workload_task(host, *spec_), 1});
    } else {
      const auto m = loaded(host);
      backend::CompileOptions co;
      co.batch = batch_;
      const backend::CompiledNetwork net = backend::compile_network(m->quant.graph, host, co);
      for (const backend::NetworkLayer& l : net.layers) {
        const bool gemm = backend::is_gemm_op(l.op) || l.op == "QConv" || l.op == "QGemm" || l.op == "QConvTranspose";
        if (gemm && l.placement != backend::Placement::kVta) {
          throw Error(fmt::format("layer '{}' ({}) cannot run on a {} design: {}", l.name, l.op, host.name(), l.reason));
        }
      }
      for (tune::TuneTask& t : tune::extract_tasks(net)) {
        const int64_t n = int64_t(t.layers.size());
        out->push_back({std::move(t), n});
      }
    }
  } catch (const Error& e) {
    std::lock_guard<std::mutex> lock(mu_);
    task_errors_[key] = e.what();
    throw;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = tasks_.emplace(key, std::move(out));
  return it->second;
}

}  // namespace tauvta::dse
