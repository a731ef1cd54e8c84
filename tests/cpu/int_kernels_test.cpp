// Differential tests of the integer kernels: random convolutions, transposed convolutions and
// GEMMs (groups, strides, pads, dilations, widths 2..16, 16- and 32-bit accumulators that wrap)
// give identical results on the AVX-512, portable and reference (direct int64 loops) paths.
#include <gtest/gtest.h>

#include <random>

#include "cpu/int_executor.h"
#include "cpu/int_ops_gemm.h"
#include "int_test_util.h"

namespace {

using tauvta::graph::DType;
using tauvta::graph::Node;
using tauvta::graph::Shape;
using tauvta::graph::Tensor;
using namespace tauvta::testing;

Tensor random_ints(std::mt19937& rng, Shape shape, int bits, DType dtype = DType::kInt32) {
  const int64_t lo = -(int64_t(1) << (bits - 1)), hi = (int64_t(1) << (bits - 1)) - 1;
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<int64_t> v(size_t(tauvta::graph::num_elements(shape)));
  for (int64_t& x : v) x = d(rng);
  return ints(std::move(shape), v, dtype);
}

void expect_paths_agree(const tauvta::graph::Graph& g, const tauvta::cpu::TensorMap& in, const std::string& what) {
  const auto paths = all_paths();
  const std::vector<int64_t> want = run_values(g, in, paths[2]);  // reference
  EXPECT_EQ(run_values(g, in, paths[0]), want) << what << " (fast path)";
  EXPECT_EQ(run_values(g, in, paths[1]), want) << what << " (portable)";
  tauvta::cpu::IntRunOptions threaded;
  threaded.threads = 3;
  EXPECT_EQ(run_values(g, in, threaded), want) << what << " (3 threads)";
}

TEST(IntKernels, RandomConvolutionsAgreeOnEveryPath) {
  std::mt19937 rng(7);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t group = pick(0, 3) == 0 ? pick(2, 3) : 1;
    const int64_t cg = pick(1, 5), mg = pick(1, 6), kh = pick(1, 3), kw = pick(1, 3);
    const int64_t dw = pick(1, 2);
    const int64_t h = pick(kh, 9), w = pick((kw - 1) * dw + 1, 11), batch = pick(1, 3);
    const int bits = std::vector<int>{2, 4, 8, 16}[size_t(pick(0, 3))];
    const int acc = pick(0, 2) == 0 ? 16 : 32;
    Node n = requant_node("QConv", {"x", "wt", "b"}, pick(-3, 12), -(int64_t(1) << (bits - 1)),
                          (int64_t(1) << (bits - 1)) - 1, bits, acc);
    n.attrs["group"] = group;
    n.attrs["strides"] = std::vector<int64_t>{pick(1, 2), pick(1, 3)};
    n.attrs["dilations"] = std::vector<int64_t>{1, dw};
    n.attrs["pads"] = std::vector<int64_t>{pick(0, 2), pick(0, 1), pick(0, 2), pick(0, 1)};
    if (pick(0, 1)) {
      std::vector<int64_t> shifts;
      for (int64_t c = 0; c < mg * group; ++c) shifts.push_back(pick(-2, 10));
      n.attrs["shift"] = shifts;
    }
    const auto g = one_node_graph(
        n, {"x"},
        {{"wt", random_ints(rng, {mg * group, cg, kh, kw}, bits, bits <= 8 ? DType::kInt8 : DType::kInt16)},
         {"b", random_ints(rng, {mg * group}, acc - 2)}});
    expect_paths_agree(g, {{"x", random_ints(rng, {batch, cg * group, h, w}, bits)}},
                       "conv trial " + std::to_string(trial));
  }
}

TEST(IntKernels, RandomConv1dAndLargeChannelCounts) {
  std::mt19937 rng(11);
  Node n = requant_node("QConv", {"x", "wt"}, 9, -128, 127);
  n.attrs["pads"] = std::vector<int64_t>{1, 1};
  auto g = one_node_graph(n, {"x"}, {{"wt", random_ints(rng, {70, 33, 3}, 8, DType::kInt8)}});
  expect_paths_agree(g, {{"x", random_ints(rng, {2, 33, 50}, 8)}}, "conv1d");
  Node big = requant_node("QConv", {"x", "wt"}, 10, 0, 127);
  big.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  g = one_node_graph(big, {"x"}, {{"wt", random_ints(rng, {67, 64, 3, 3}, 8, DType::kInt8)}});
  expect_paths_agree(g, {{"x", random_ints(rng, {1, 64, 13, 13}, 8)}}, "conv 64->67");
}

TEST(IntKernels, RandomTransposedConvolutionsAgreeOnEveryPath) {
  std::mt19937 rng(3);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (int trial = 0; trial < 25; ++trial) {
    const int64_t group = pick(0, 3) == 0 ? 2 : 1;
    const int64_t cg = pick(1, 4), mg = pick(1, 5), k = pick(1, 4), s = pick(1, 3);
    const int bits = pick(0, 1) ? 8 : 4;
    Node n = requant_node("QConvTranspose", {"x", "wt", "b"}, pick(0, 8), -128, 127, 8, pick(0, 1) ? 16 : 32);
    n.attrs["group"] = group;
    n.attrs["strides"] = std::vector<int64_t>{s, s};
    const int64_t p = pick(0, (k - 1) / 2);
    n.attrs["pads"] = std::vector<int64_t>{p, p, p, p};
    if (s > 1) n.attrs["output_padding"] = std::vector<int64_t>{pick(0, s - 1), 0};
    const auto g = one_node_graph(n, {"x"},
                                  {{"wt", random_ints(rng, {cg * group, mg, k, k}, bits, DType::kInt8)},
                                   {"b", random_ints(rng, {mg * group}, 12)}});
    expect_paths_agree(g, {{"x", random_ints(rng, {pick(1, 2), cg * group, pick(1, 5), pick(1, 5)}, bits)}},
                       "conv transpose trial " + std::to_string(trial));
  }
}

TEST(IntKernels, RandomGemmsAgreeOnEveryPath) {
  std::mt19937 rng(5);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (int trial = 0; trial < 20; ++trial) {
    const int64_t rows = pick(1, 130), k = pick(1, 300), nout = pick(1, 70);
    const int bits = std::vector<int>{1, 2, 8, 16}[size_t(pick(0, 3))];
    const int acc = pick(0, 1) ? 16 : 32;
    Node n = requant_node("QGemm", {"x", "wt", "b"}, pick(0, 14), -(int64_t(1) << (bits - 1)),
                          (int64_t(1) << (bits - 1)) - 1, bits, acc);
    const auto g = one_node_graph(
        n, {"x"},
        {{"wt", random_ints(rng, {nout, k}, bits, bits <= 8 ? DType::kInt8 : DType::kInt16)},
         {"b", random_ints(rng, {nout}, acc - 4)}});
    expect_paths_agree(g, {{"x", random_ints(rng, {rows, k}, bits)}}, "gemm trial " + std::to_string(trial));
  }
}

TEST(IntKernels, ReportsTheFastKernel) {
  // Informational: which GEMM kernel the fast path used above.
  std::cout << "AVX-512 integer GEMM kernel: "
            << (tauvta::cpu::fast_int_gemm_available() ? "available" : "not available (portable only)") << "\n";
}

}  // namespace
