// IDX files (LeCun's MNIST format, also Fashion-MNIST's): a big-endian magic 0x0000TTNN (TT the
// element type, NN the number of dimensions), NN big-endian uint32 dimensions, then the data.
// We read unsigned-byte files (TT = 0x08: 0x0801 labels, 0x0803 images) through zlib's gzread,
// which reads gzip-compressed and plain files alike.
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "common/error.h"
#include "io/tensor_files.h"

namespace tauvta::io {

namespace fs = std::filesystem;
using graph::Tensor;

namespace {

[[noreturn]] void fail(const fs::path& path, const std::string& what) {
  throw Error(fmt::format("{}: {}", path.string(), what));
}

const char* idx_type_name(int code) {
  switch (code) {
    case 0x08: return "unsigned byte";
    case 0x09: return "signed byte";
    case 0x0B: return "int16";
    case 0x0C: return "int32";
    case 0x0D: return "float32";
    case 0x0E: return "float64";
    default: return "unknown";
  }
}

// zlib's message, without the "<path>: " prefix it adds.
std::string gz_message(gzFile f, const fs::path& path, int& code) {
  std::string msg = gzerror(f, &code);
  const std::string prefix = path.string() + ": ";
  if (msg.rfind(prefix, 0) == 0) msg.erase(0, prefix.size());
  return msg;
}

// The whole (decompressed) file. gzread passes plain files through unchanged.
std::string read_maybe_gzipped(const fs::path& path, bool& was_gzip) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail(path, "is a directory, not a file");
  errno = 0;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) {
    fail(path, fmt::format("cannot open for reading: {}", errno ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(f, 1 << 17);
  std::string out;
  char buf[1 << 16];
  while (true) {
    const int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int code = 0;
      const std::string msg = gz_message(f, path, code);
      gzclose(f);
      fail(path, fmt::format("corrupt or truncated gzip data ({})", msg));
    }
    if (n == 0) break;
    out.append(buf, size_t(n));
  }
  // A gzip stream that ends early reads as a short file with Z_BUF_ERROR set, not as -1.
  int code = Z_OK;
  const std::string msg = gz_message(f, path, code);
  if (code != Z_OK) {
    gzclose(f);
    fail(path, fmt::format("corrupt or truncated gzip data ({})", msg));
  }
  was_gzip = gzdirect(f) == 0;
  gzclose(f);
  return out;
}

}  // namespace

Tensor read_idx(const fs::path& path) {
  bool gz = false;
  const std::string bytes = read_maybe_gzipped(path, gz);
  const char* kind = gz ? "gzip-compressed IDX file" : "IDX file";
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 4) {
    fail(path, fmt::format("truncated {}: {} bytes, too short for the 4-byte magic number", kind, bytes.size()));
  }
  const uint32_t magic = (uint32_t(u[0]) << 24) | (uint32_t(u[1]) << 16) | (uint32_t(u[2]) << 8) | u[3];
  const int type = u[2], ndims = u[3];
  if (u[0] != 0 || u[1] != 0 || ndims == 0) {
    fail(path, fmt::format("bad IDX magic number 0x{:08X}; expected 0x00000801 (labels) or 0x00000803 "
                           "(images)", magic));
  }
  if (type != 0x08) {
    fail(path, fmt::format("IDX element type 0x{:02X} ({}) is not supported; only unsigned bytes (0x08, "
                           "magic 0x00000801 labels / 0x00000803 images)", type, idx_type_name(type)));
  }
  if (ndims > 4) fail(path, fmt::format("IDX file has {} dimensions; at most 4 are supported", ndims));
  const size_t header = 4 + 4 * size_t(ndims);
  if (bytes.size() < header) {
    fail(path, fmt::format("truncated {}: the header needs {} bytes for {} dimensions, the file has {}", kind,
                           header, ndims, bytes.size()));
  }
  graph::Shape shape;
  uint64_t count = 1;
  for (int i = 0; i < ndims; ++i) {
    const unsigned char* p = u + 4 + 4 * i;
    const uint32_t d = (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
    shape.push_back(int64_t(d));
    count *= d;
    if (count > (uint64_t(1) << 40)) fail(path, fmt::format("IDX dimensions {} are implausibly large", graph::shape_string(shape)));
  }
  const size_t have = bytes.size() - header;
  if (have < count) {
    fail(path, fmt::format("truncated {}: shape {} needs {} data bytes, the file has {}", kind,
                           graph::shape_string(shape), count, have));
  }
  if (have > count) {
    fail(path, fmt::format("{} unexpected bytes after the data of shape {}", have - count,
                           graph::shape_string(shape)));
  }
  Tensor t(graph::DType::kUInt8, shape);
  if (count) std::memcpy(t.raw(), bytes.data() + header, count);
  return t;
}

}  // namespace tauvta::io
