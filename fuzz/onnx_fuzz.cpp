// ONNX models through the model pipeline (model::load_model): protobuf parse, opset upgrade,
// import, shape inference, constant and batch-norm folding, fusion, dead-node removal, then
// calibration on two synthetic samples and quantization. Bounded: tensors are limited to
// kTensorBytes (graph::set_tensor_byte_limit; the pipeline refuses larger ones naming the node),
// models to kMaxNodes nodes and calibration to batches of 1, so an input's float work stays small.
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include "fuzz_target.h"
#include "graph/tensor.h"
#include "model/pipeline.h"

namespace {
constexpr int64_t kTensorBytes = int64_t(64) << 10;
constexpr int kMaxNodes = 64;
}  // namespace

TAUVTA_FUZZ_TARGET(onnx) {
  using namespace tauvta;
  {
    onnx::ModelProto m;
    if (m.ParseFromArray(data, int(size)) && m.graph().node_size() > kMaxNodes) return;
  }
  const fuzz::TensorLimitScope limit(kTensorBytes);
  const fuzz::TempFile in(data, size, ".onnx");
  model::LoadOptions o;
  o.batch = 0;  // as `tauvta run` without --batch: the inputs' first dimension becomes dynamic
  o.quantize = true;
  o.calib_samples = 2;
  o.calib_batch = 1;
  const model::LoadedModel m = model::load_model(in.path(), o);
  (void)model::quantization_settings(o, m);
}
