// The precision tools' speed: the whole Fashion-MNIST test set through the bit-exact simulator
// (VGG-7, batches of 50, one simulated board per core) at W8 and W16 with the instruments off;
// the instruments' cost as ratios against instruments off in the same process: rounds of each
// instrument alone (overflow is what the precision tuner uses; histogram, sparsity, stats) and
// of all four on every layer, interleaved with instruments-off runs; and one board against two.
//   build/bench/precision_bench [--limit N] [--rounds R] [--round-images N] [--configs pynq,pynq_w16] [--json out.json]
#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/compile_network.h"
#include "backend/network_accuracy.h"
#include "common/atomic_file.h"
#include "common/cpu_features.h"
#include "io/tensor_files.h"
#include "model/pipeline.h"

#include "bench_stats.h"

using namespace tauvta;
using bench::median;

int main(int argc, char** argv) {
  CLI::App app("precision_bench");
  const std::string d = "/usr/share/datasets/fashion-mnist/";
  std::string images = d + "t10k-images-idx3-ubyte.gz", labels = d + "t10k-labels-idx1-ubyte.gz", configs = "pynq,pynq_w16", json_out;
  int64_t limit = 10000, round_images = 2000;
  int rounds = 5;
  std::string only;
  int boards = int(std::max(1u, std::thread::hardware_concurrency()));
  app.add_option("--limit", limit, "Images (default 10000: the whole test set)");
  app.add_option("--configs", configs, "Presets from configs/ (default pynq,pynq_w16)");
  app.add_option("--boards", boards, "Simulated boards (default: one per core)");
  app.add_option("--json", json_out, "Write the figures as JSON");
  app.add_option("--rounds", rounds, "Rounds of off / each instrument / all four for the cost ratios (default 5)");
  app.add_option("--round-images", round_images, "Images per round (default 2000)");
  app.add_option("--only", only, "Run just this variant over --limit images and print its time (for profilers)")
      ->check(CLI::IsMember({"off", "overflow", "histogram", "sparsity", "stats", "all"}));
  CLI11_PARSE(app, argc, argv);
  const graph::Tensor imgs = io::read_idx(images), labs = io::read_idx(labels);
  std::cout << fmt::format("VGG-7 on {} Fashion-MNIST test images, batch 50, {} board(s); GEMM kernel: {}\n", limit, boards,
                           cpu_has_vnni() ? "AVX-512 VNNI" : cpu_has_avx2() ? "AVX2" : "portable");
  // The variants of a round: instruments off, each instrument alone, all four.
  const std::vector<std::string> variants = {"off", "overflow", "histogram", "sparsity", "stats", "all"};
  std::cout << fmt::format("{:<28} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10}\n", "config", "accuracy",
                           "off s", "images/s", "ovf", "hist", "sparse", "stats", "all4", "all4 cpu", "1 board s");
  nlohmann::json out = nlohmann::json::array();
  std::stringstream list(configs);
  for (std::string name; std::getline(list, name, ',');) {
    model::LoadOptions lo;
    lo.quantize = true;
    lo.config = hw::HwConfig::load(std::string(TAUVTA_SOURCE_DIR) + "/configs/" + name + ".json");
    lo.calibrate = d + "train-images-idx3-ubyte.gz";
    const model::LoadedModel m = model::load_model(std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist.onnx", lo);
    backend::CompileOptions co;
    co.batch = 50;
    const backend::CompiledNetwork net = backend::compile_network(m.quant.graph, lo.config, co);
    backend::NetworkAccuracyOptions o;
    o.limit = limit;
    o.threads = boards;
    o.check_reference = false;
    std::vector<backend::InstrumentRequest> requests(variants.size());
    for (size_t v = 1; v < variants.size(); ++v) {
      requests[v].specs.push_back(backend::parse_instrument_spec(
          variants[v] == "all" ? "overflow,histogram,sparsity,stats" : variants[v]));
    }
    auto request_of = [&](const std::string& variant) {
      const size_t v = size_t(std::find(variants.begin(), variants.end(), variant) - variants.begin());
      return v == 0 ? nullptr : &requests[v];
    };
    if (!only.empty()) {
      o.instruments = request_of(only);
      const backend::NetworkAccuracy a = backend::evaluate_network_accuracy(net, imgs, labs, o);
      std::cout << fmt::format("{:<28} {}: {} images in {:.2f} s\n", lo.config.name(), only, a.images, a.seconds);
      continue;
    }
    const backend::NetworkAccuracy off = backend::evaluate_network_accuracy(net, imgs, labs, o);
    // The instruments' cost: rounds of the same images with instruments off, each alone and all
    // four, in turn, so a slow spell of this shared machine hits every variant of a round alike;
    // the median ratio over rounds, of wall time (and for all four of the process's CPU time).
    std::vector<std::vector<double>> wall_ratio(variants.size());
    std::vector<double> all_cpu;
    bool same_predictions = true;
    backend::NetworkAccuracyOptions ro = o;
    ro.limit = std::min(limit, round_images);
    for (int r = 0; r < rounds; ++r) {
      std::vector<double> wall(variants.size()), cpu(variants.size());
      std::vector<int64_t> correct(variants.size());
      for (size_t v = 0; v < variants.size(); ++v) {
        ro.instruments = request_of(variants[v]);
        const std::clock_t c0 = std::clock();
        const backend::NetworkAccuracy a = backend::evaluate_network_accuracy(net, imgs, labs, ro);
        cpu[v] = double(std::clock() - c0) / CLOCKS_PER_SEC;
        wall[v] = a.seconds;
        correct[v] = a.correct;
        same_predictions = same_predictions && correct[v] == correct[0];
      }
      for (size_t v = 1; v < variants.size(); ++v) wall_ratio[v].push_back(wall[v] / wall[0]);
      all_cpu.push_back(cpu.back() / cpu[0]);
    }
    o.instruments = nullptr;
    o.threads = 1;
    o.limit = std::min<int64_t>(limit, 2000);
    const backend::NetworkAccuracy one = backend::evaluate_network_accuracy(net, imgs, labs, o);
    const double one_scaled = one.seconds * double(off.images) / double(std::max<int64_t>(1, one.images));
    std::cout << fmt::format("{:<28} {:>9.4f} {:>8.2f} {:>9.0f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>10.2f}\n",
                             lo.config.name(), off.accuracy, off.seconds, double(off.images) / off.seconds,
                             median(wall_ratio[1]), median(wall_ratio[2]), median(wall_ratio[3]), median(wall_ratio[4]),
                             median(wall_ratio[5]), median(all_cpu), one_scaled);
    if (!same_predictions) std::cout << "  instruments changed the predictions!\n";
    nlohmann::json row = {{"config", lo.config.to_json()}, {"config_name", lo.config.name()}, {"images", off.images},
                          {"accuracy", off.accuracy}, {"seconds_instruments_off", off.seconds}, {"ratio_rounds", rounds},
                          {"ratio_round_images", ro.limit}, {"all_instruments_ratio_cpu", all_cpu},
                          {"seconds_one_board_scaled", one_scaled}, {"boards", boards}};
    for (size_t v = 1; v < variants.size(); ++v) {
      const std::string key = variants[v] == "all" ? "all_instruments" : variants[v];
      row[key + "_ratio_wall"] = wall_ratio[v];
      row[key + "_ratio"] = median(wall_ratio[v]);
    }
    out.push_back(row);
  }
  std::cout << fmt::format("(ratios: median over {} rounds of {} images with instruments off, each alone, all four in turn; "
                           "1 board s: the first 2000 images on one board, scaled to the same image count)\n",
                           rounds, std::min(limit, round_images));
  if (!json_out.empty()) tauvta::write_file_atomic(json_out, out.dump(2) + "\n");
  return 0;
}
