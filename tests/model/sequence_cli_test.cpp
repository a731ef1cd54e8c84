// Sequences of tensors at a model's boundary through the command line: `tauvta run --float` reads a
// sequence input from an ONNX SequenceProto .pb file and writes a sequence output as one .npy per
// element; `inspect` names the sequence type; the integer path and a .npy for a sequence input
// are refused with one line naming the input.
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli/cli_runner.h"
#include "io/tensor_files.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;
using testing::run_tauvta;

const fs::path kInsertAtBack = "/usr/share/libonnx-testdata/data/node/test_sequence_insert_at_back";

std::string inputs_of(const fs::path& dir) {
  const fs::path data = dir / "test_data_set_0";
  return "--input sequence=" + (data / "input_0.pb").string() + " --input tensor=" + (data / "input_1.pb").string();
}

TEST(SequenceCli, FloatRunReadsAndWritesSequences) {
  if (!fs::exists(kInsertAtBack / "model.onnx")) GTEST_SKIP() << "libonnx-testdata is not installed";
  const fs::path out = fs::temp_directory_path() / ("tauvta_seq_cli_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const auto r = run_tauvta("run " + (kInsertAtBack / "model.onnx").string() + " --float " + inputs_of(kInsertAtBack) +
                            " --output-dir " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("output output_sequence: sequence of 4 int64 tensors"), std::string::npos) << r.out;
  const graph::TensorSequence want =
      io::read_sequence_pb(kInsertAtBack / "test_data_set_0" / "output_0.pb", graph::DType::kInt64);
  ASSERT_EQ(want.length(), 4);
  for (int64_t k = 0; k < want.length(); ++k) {
    const fs::path file = out / ("output_sequence." + std::to_string(k) + ".npy");
    ASSERT_TRUE(fs::exists(file)) << file;
    EXPECT_EQ(io::read_npy(file), want.tensors[size_t(k)]) << "element " << k;
  }
  EXPECT_FALSE(fs::exists(out / "output_sequence.4.npy"));
  fs::remove_all(out);
}

TEST(SequenceCli, InspectNamesTheSequenceType) {
  if (!fs::exists(kInsertAtBack / "model.onnx")) GTEST_SKIP() << "libonnx-testdata is not installed";
  const auto r = run_tauvta("inspect " + (kInsertAtBack / "model.onnx").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("input   sequence: sequence<int64>"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output  output_sequence: sequence<int64>"), std::string::npos) << r.out;
}

TEST(SequenceCli, IntegerPathAndNpyForASequenceAreRefused) {
  if (!fs::exists(kInsertAtBack / "model.onnx")) GTEST_SKIP() << "libonnx-testdata is not installed";
  const std::string model = (kInsertAtBack / "model.onnx").string();
  const auto int_run = run_tauvta("run " + model + " --int " + inputs_of(kInsertAtBack));
  EXPECT_EQ(int_run.code, 1) << int_run.out;
  EXPECT_NE(int_run.out.find("carries tensors only; run the model on the float reference (--float)"), std::string::npos)
      << int_run.out;
  const auto npy = run_tauvta("run " + model + " --float --input sequence=models/vgg7_fmnist_input.npy --input tensor=" +
                              (kInsertAtBack / "test_data_set_0" / "input_1.pb").string());
  EXPECT_EQ(npy.code, 1) << npy.out;
  EXPECT_NE(npy.out.find("input 'sequence' is a sequence of tensors; give it as an ONNX SequenceProto .pb file"),
            std::string::npos)
      << npy.out;
}

}  // namespace
}  // namespace tauvta
