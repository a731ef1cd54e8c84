// The precision tools' speed: the whole Fashion-MNIST test set through the bit-exact simulator
// (VGG-7, batches of 50, one simulated board per core) at W8 and W16 with the instruments off;
// the instruments' cost as ratios against instruments off in the same process: rounds of the
// overflow instrument (what the precision tuner uses) and of all four (overflow, histogram,
// sparsity, stats) on every layer, interleaved with instruments-off runs; and one board
// against two.
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
  app.add_option("--rounds", rounds, "Rounds of off / overflow / all four for the cost ratios (default 5)");
  app.add_option("--round-images", round_images, "Images per round (default 2000)");
  app.add_option("--only", only, "Run just this variant over --limit images and print its time (for profilers)")
      ->check(CLI::IsMember({"off", "overflow", "all"}));
  CLI11_PARSE(app, argc, argv);
  const graph::Tensor imgs = io::read_idx(images), labs = io::read_idx(labels);
  std::cout << fmt::format("VGG-7 on {} Fashion-MNIST test images, batch 50, {} board(s); GEMM kernel: {}\n", limit, boards,
                           cpu_has_vnni() ? "AVX-512 VNNI" : cpu_has_avx2() ? "AVX2" : "portable");
  std::cout << fmt::format("{:<28} {:>9} {:>8} {:>9} {:>11} {:>9} {:>11} {:>9} {:>10}\n", "config", "accuracy", "off s",
                           "images/s", "ovf wall", "ovf cpu", "all4 wall", "all4 cpu", "1 board s");
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
    backend::InstrumentRequest req, all;
    req.specs.push_back(backend::parse_instrument_spec("overflow"));
    all.specs.push_back(backend::parse_instrument_spec("overflow,histogram,sparsity,stats"));
    if (!only.empty()) {
      o.instruments = only == "off" ? nullptr : only == "overflow" ? &req : &all;
      const backend::NetworkAccuracy a = backend::evaluate_network_accuracy(net, imgs, labs, o);
      std::cout << fmt::format("{:<28} {}: {} images in {:.2f} s\n", lo.config.name(), only, a.images, a.seconds);
      continue;
    }
    const backend::NetworkAccuracy off = backend::evaluate_network_accuracy(net, imgs, labs, o);
    // The instruments' cost: rounds of the same images with instruments off, overflow only, all
    // four, in turn, so a slow spell of this shared machine hits all three of a round alike; the
    // median ratio over rounds, of wall time and of the process's CPU time.
    std::vector<double> ovf_wall, all_wall, ovf_cpu, all_cpu;
    bool same_predictions = true;
    backend::NetworkAccuracyOptions ro = o;
    ro.limit = std::min(limit, round_images);
    for (int r = 0; r < rounds; ++r) {
      double wall[3], cpu[3];
      int64_t correct[3];
      const backend::InstrumentRequest* what[3] = {nullptr, &req, &all};
      for (int v = 0; v < 3; ++v) {
        ro.instruments = what[v];
        const std::clock_t c0 = std::clock();
        const backend::NetworkAccuracy a = backend::evaluate_network_accuracy(net, imgs, labs, ro);
        cpu[v] = double(std::clock() - c0) / CLOCKS_PER_SEC;
        wall[v] = a.seconds;
        correct[v] = a.correct;
      }
      same_predictions = same_predictions && correct[1] == correct[0] && correct[2] == correct[0];
      ovf_wall.push_back(wall[1] / wall[0]);
      all_wall.push_back(wall[2] / wall[0]);
      ovf_cpu.push_back(cpu[1] / cpu[0]);
      all_cpu.push_back(cpu[2] / cpu[0]);
    }
    o.instruments = nullptr;
    o.threads = 1;
    o.limit = std::min<int64_t>(limit, 2000);
    const backend::NetworkAccuracy one = backend::evaluate_network_accuracy(net, imgs, labs, o);
    const double one_scaled = one.seconds * double(off.images) / double(std::max<int64_t>(1, one.images));
    std::cout << fmt::format("{:<28} {:>9.4f} {:>8.2f} {:>9.0f} {:>11.3f} {:>9.3f} {:>11.3f} {:>9.3f} {:>10.2f}\n", lo.config.name(),
                             off.accuracy, off.seconds, double(off.images) / off.seconds, median(ovf_wall), median(ovf_cpu),
                             median(all_wall), median(all_cpu), one_scaled);
    if (!same_predictions) std::cout << "  instruments changed the predictions!\n";
    out.push_back({{"config", lo.config.to_json()}, {"config_name", lo.config.name()}, {"images", off.images},
                   {"accuracy", off.accuracy}, {"seconds_instruments_off", off.seconds}, {"ratio_rounds", rounds},
                   {"ratio_round_images", ro.limit}, {"overflow_ratio_wall", ovf_wall}, {"overflow_ratio_cpu", ovf_cpu},
                   {"all_instruments_ratio_wall", all_wall}, {"all_instruments_ratio_cpu", all_cpu},
                   {"overflow_ratio", median(ovf_wall)}, {"all_instruments_ratio", median(all_wall)},
                   {"seconds_one_board_scaled", one_scaled}, {"boards", boards}});
  }
  std::cout << fmt::format("(ratios: median over {} rounds of {} images with instruments off, overflow, all four in turn; "
                           "1 board s: the first 2000 images on one board, scaled to the same image count)\n",
                           rounds, std::min(limit, round_images));
  if (!json_out.empty()) tauvta::write_file_atomic(json_out, out.dump(2) + "\n");
  return 0;
}
