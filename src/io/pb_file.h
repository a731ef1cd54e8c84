// An ONNX protobuf message (TensorProto, SequenceProto) read whole from a .pb file, with the
// errors the tensor readers give: a directory, a file that cannot be opened, bytes that do not
// parse as `kind`.
#pragma once

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::io {

template <class Proto>
Proto read_pb_message(const std::filesystem::path& path, const char* kind, std::ifstream& in) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(fmt::format("{}: is a directory, not a file", path.string()));
  }
  in.open(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open for reading: {}", path.string(), std::strerror(errno)));
  Proto proto;
  if (!proto.ParseFromIstream(&in)) {
    throw Error(fmt::format("{}: not a valid ONNX {} (protobuf parse failed)", path.string(), kind));
  }
  return proto;
}

}  // namespace tauvta::io
