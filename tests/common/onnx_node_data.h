// The ONNX conformance data (Debian's libonnx-testdata) and what tauvta pins about it, shared by
// the frontend's shape tests and the float executor's conformance tests.
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace tauvta::testing {

inline const std::filesystem::path kOnnxNodeTests = "/usr/share/libonnx-testdata/data/node";

// Node tests of the listed operators that need what a Tensor cannot hold (float16, bfloat16,
// string and unsigned 16-64-bit elements) or optional values: the import rejects them with this
// text. (Sequences of tensors are imported.)
inline const std::map<std::string, std::string>& onnx_tests_rejected_at_import() {
  static const std::map<std::string, std::string> rejected = {
      {"test_cast_BFLOAT16_to_FLOAT", "element type BFLOAT16 is not supported"},
      {"test_cast_DOUBLE_to_FLOAT16", "element type FLOAT16 is not supported"},
      {"test_cast_FLOAT16_to_DOUBLE", "element type FLOAT16 is not supported"},
      {"test_cast_FLOAT16_to_FLOAT", "element type FLOAT16 is not supported"},
      {"test_cast_FLOAT_to_BFLOAT16", "element type BFLOAT16 is not supported"},
      {"test_cast_FLOAT_to_FLOAT16", "element type FLOAT16 is not supported"},
      {"test_cast_FLOAT_to_STRING", "element type STRING is not supported"},
      {"test_cast_STRING_to_FLOAT", "element type STRING is not supported"},
      {"test_castlike_BFLOAT16_to_FLOAT_expanded", "element type BFLOAT16 is not supported"},
      {"test_castlike_DOUBLE_to_FLOAT16_expanded", "element type FLOAT16 is not supported"},
      {"test_castlike_FLOAT16_to_DOUBLE_expanded", "element type FLOAT16 is not supported"},
      {"test_castlike_FLOAT16_to_FLOAT_expanded", "element type FLOAT16 is not supported"},
      {"test_castlike_FLOAT_to_BFLOAT16_expanded", "element type BFLOAT16 is not supported"},
      {"test_castlike_FLOAT_to_FLOAT16_expanded", "element type FLOAT16 is not supported"},
      {"test_castlike_FLOAT_to_STRING_expanded", "element type STRING is not supported"},
      {"test_castlike_STRING_to_FLOAT_expanded", "element type STRING is not supported"},
      {"test_max_float16", "element type FLOAT16 is not supported"},
      {"test_max_uint16", "element type UINT16 is not supported"},
      {"test_max_uint32", "element type UINT32 is not supported"},
      {"test_max_uint64", "element type UINT64 is not supported"},
      {"test_min_float16", "element type FLOAT16 is not supported"},
      {"test_min_uint16", "element type UINT16 is not supported"},
      {"test_min_uint32", "element type UINT32 is not supported"},
      {"test_min_uint64", "element type UINT64 is not supported"},
      {"test_mod_mixed_sign_float16", "element type FLOAT16 is not supported"},
      {"test_mod_uint16", "element type UINT16 is not supported"},
      {"test_mod_uint32", "element type UINT32 is not supported"},
      {"test_mod_uint64", "element type UINT64 is not supported"},
      {"test_pow_types_float32_uint32", "element type UINT32 is not supported"},
      {"test_pow_types_float32_uint64", "element type UINT64 is not supported"},
      {"test_identity_opt", "is optional; only tensors and sequences of tensors are supported"},
  };
  return rejected;
}

// Training-mode Dropout with ratio > 0 is random: it imports (ratio and training_mode are run-time
// inputs) and run_float refuses it with this text.
inline const std::map<std::string, std::string>& onnx_tests_random_dropout() {
  static const std::map<std::string, std::string> random = {
      {"test_training_dropout", "training-mode Dropout is random"},
      {"test_training_dropout_default", "training-mode Dropout is random"},
      {"test_training_dropout_default_mask", "training-mode Dropout is random"},
      {"test_training_dropout_mask", "training-mode Dropout is random"},
  };
  return random;
}

}  // namespace tauvta::testing
