// ONNX TensorProto .pb files (io::read_tensor_pb -> graph::tensor_from_onnx, the converter ONNX
// initializers share): protobuf parse, element type, dims against raw_data or the typed field.
#include "fuzz_target.h"
#include "io/tensor_files.h"

TAUVTA_FUZZ_TARGET(tensor_pb) {
  using namespace tauvta;
  const fuzz::TensorLimitScope limit(int64_t(64) << 20);
  const fuzz::TempFile in(data, size, ".pb");
  const graph::Tensor t = io::read_tensor_file(in.path());
  (void)t.to_float();
}
