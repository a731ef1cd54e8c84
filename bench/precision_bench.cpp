// The precision tools' speed: the whole Fashion-MNIST test set through the bit-exact simulator
// (VGG-7, batches of 50, one simulated board per core) at W8 and W16, with the instruments off,
// then the overflow instrument (what the precision tuner uses) on every layer, then all four
// (overflow, histogram, sparsity, stats) on every layer, so the instruments' cost is a ratio
// against a run in the same process; and one board against two.
//   build/bench/precision_bench [--limit N] [--configs pynq,pynq_w16] [--json out.json]
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/compile_network.h"
#include "backend/network_accuracy.h"
#include "io/tensor_files.h"
#include "model/pipeline.h"
#include "sim/compute_kernels.h"

using namespace tauvta;

int main(int argc, char** argv) {
  CLI::App app("precision_bench");
  const std::string d = "/usr/share/datasets/fashion-mnist/";
  std::string images = d + "t10k-images-idx3-ubyte.gz", labels = d + "t10k-labels-idx1-ubyte.gz", configs = "pynq,pynq_w16", json_out;
  int64_t limit = 10000;
  int boards = int(std::max(1u, std::thread::hardware_concurrency()));
  app.add_option("--limit", limit, "Images (default 10000: the whole test set)");
  app.add_option("--configs", configs, "Presets from configs/ (default pynq,pynq_w16)");
  app.add_option("--boards", boards, "Simulated boards (default: one per core)");
  app.add_option("--json", json_out, "Write the figures as JSON");
  CLI11_PARSE(app, argc, argv);
  const graph::Tensor imgs = io::read_idx(images), labs = io::read_idx(labels);
  std::cout << fmt::format("VGG-7 on {} Fashion-MNIST test images, batch 50, {} board(s); GEMM kernel: {}\n", limit, boards,
                           sim::cpu_has_vnni() ? "AVX-512 VNNI" : sim::cpu_has_avx2() ? "AVX2" : "portable");
  std::cout << fmt::format("{:<28} {:>9} {:>8} {:>9} {:>12} {:>10} {:>12} {:>10} {:>10}\n", "config", "accuracy", "off s",
                           "images/s", "overflow s", "ratio", "all four s", "ratio", "1 board s");
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
    const backend::NetworkAccuracy off = backend::evaluate_network_accuracy(net, imgs, labs, o);
    backend::InstrumentRequest req, all;
    req.specs.push_back(backend::parse_instrument_spec("overflow"));
    all.specs.push_back(backend::parse_instrument_spec("overflow,histogram,sparsity,stats"));
    o.instruments = &req;
    const backend::NetworkAccuracy ovf = backend::evaluate_network_accuracy(net, imgs, labs, o);
    o.instruments = &all;
    const backend::NetworkAccuracy on = backend::evaluate_network_accuracy(net, imgs, labs, o);
    o.instruments = nullptr;
    o.threads = 1;
    o.limit = std::min<int64_t>(limit, 2000);
    const backend::NetworkAccuracy one = backend::evaluate_network_accuracy(net, imgs, labs, o);
    const double one_scaled = one.seconds * double(off.images) / double(std::max<int64_t>(1, one.images));
    std::cout << fmt::format("{:<28} {:>9.4f} {:>8.2f} {:>9.0f} {:>12.2f} {:>10.3f} {:>12.2f} {:>10.3f} {:>10.2f}\n", lo.config.name(),
                             off.accuracy, off.seconds, double(off.images) / off.seconds, ovf.seconds, ovf.seconds / off.seconds,
                             on.seconds, on.seconds / off.seconds, one_scaled);
    if (on.correct != off.correct || ovf.correct != off.correct) std::cout << "  instruments changed the predictions!\n";
    out.push_back({{"config", lo.config.to_json()}, {"config_name", lo.config.name()}, {"images", off.images},
                   {"accuracy", off.accuracy}, {"seconds_instruments_off", off.seconds}, {"seconds_overflow_instrument", ovf.seconds},
                   {"overflow_ratio", ovf.seconds / off.seconds}, {"seconds_all_instruments", on.seconds},
                   {"all_instruments_ratio", on.seconds / off.seconds}, {"seconds_one_board_scaled", one_scaled}, {"boards", boards}});
  }
  std::cout << "(1 board s: the first 2000 images on one board, scaled to the same image count)\n";
  if (!json_out.empty()) std::ofstream(json_out) << out.dump(2) << "\n";
  return 0;
}
