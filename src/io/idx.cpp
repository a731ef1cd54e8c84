// IDX files (LeCun's MNIST format, also Fashion-MNIST's): a big-endian magic 0x0000TTNN (TT the
// element type, NN the number of dimensions), NN big-endian uint32 dimensions, then the data.
// We read unsigned-byte files (TT = 0x08: 0x0801 labels, 0x0803 images) through zlib's gzread,
// which reads gzip-compressed and plain files alike.
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "common/error.h"
#include "io/file_error.h"
#include "io/tensor_files.h"

namespace tauvta::io {

namespace fs = std::filesystem;
using graph::Tensor;

namespace {

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

// An open IDX file, plain or gzip-compressed (gzread passes plain files through unchanged). Reads
// only what it is asked for, so a header is checked before the data is read and a small gzip file
// that inflates to gigabytes costs no more memory than the data its header declares.
class GzReader {
 public:
  explicit GzReader(const fs::path& path) : path_(path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) fail(path, "is a directory, not a file");
    errno = 0;
    f_ = gzopen(path.c_str(), "rb");
    if (f_ == nullptr) {
      fail(path, fmt::format("cannot open for reading: {}", errno ? std::strerror(errno) : "out of memory"));
    }
    gzbuffer(f_, 1 << 17);
  }
  ~GzReader() { gzclose(f_); }
  GzReader(const GzReader&) = delete;
  GzReader& operator=(const GzReader&) = delete;

  bool gzip() { return gzdirect(f_) == 0; }

  // Up to n bytes appended to `out`; fewer only at the end of the file.
  size_t read(std::string& out, size_t n) {
    size_t got = 0;
    char buf[1 << 16];
    while (got < n) {
      const int k = gzread(f_, buf, unsigned(std::min(n - got, sizeof buf)));
      if (k < 0) corrupt();
      if (k == 0) break;
      out.append(buf, size_t(k));
      got += size_t(k);
    }
    return got;
  }

  // Bytes left in the file, counted without keeping them; stops counting past `limit`.
  uint64_t skip_rest(uint64_t limit) {
    uint64_t n = 0;
    char buf[1 << 16];
    while (n <= limit) {
      const int k = gzread(f_, buf, sizeof buf);
      if (k < 0) corrupt();
      if (k == 0) break;
      n += uint64_t(k);
    }
    return n;
  }

  // A gzip stream that ends early reads as a short file with Z_BUF_ERROR set, not as -1.
  void check_end() {
    int code = Z_OK;
    const std::string msg = gz_message(f_, path_, code);
    if (code != Z_OK) fail(path_, fmt::format("corrupt or truncated gzip data ({})", msg));
  }

 private:
  [[noreturn]] void corrupt() {
    int code = 0;
    const std::string msg = gz_message(f_, path_, code);
    fail(path_, fmt::format("corrupt or truncated gzip data ({})", msg));
  }

  const fs::path& path_;
  gzFile f_ = nullptr;
};

}  // namespace

Tensor read_idx(const fs::path& path) {
  GzReader in(path);
  std::string head;
  in.read(head, 4);
  const bool gz = in.gzip();
  const char* kind = gz ? "gzip-compressed IDX file" : "IDX file";
  const auto* u = reinterpret_cast<const unsigned char*>(head.data());
  if (head.size() < 4) {
    in.check_end();
    fail(path, fmt::format("truncated {}: {} bytes, too short for the 4-byte magic number", kind, head.size()));
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
  in.read(head, header - 4);
  if (head.size() < header) {
    in.check_end();
    fail(path, fmt::format("truncated {}: the header needs {} bytes for {} dimensions, the file has {}", kind,
                           header, ndims, head.size()));
  }
  u = reinterpret_cast<const unsigned char*>(head.data());
  graph::Shape shape;
  uint64_t count = 1;
  for (int i = 0; i < ndims; ++i) {
    const unsigned char* p = u + 4 + 4 * i;
    const uint32_t d = (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
    shape.push_back(int64_t(d));
    count *= d;
    if (count > (uint64_t(1) << 40)) fail(path, fmt::format("IDX dimensions {} are implausibly large", graph::shape_string(shape)));
  }
  // The declared size is checked against the limit before any of it is read or allocated.
  graph::check_tensor_size(graph::DType::kUInt8, shape, path.string() + ": the IDX data,");
  // Read into a string that grows with what the file holds (no reservation of the declared size:
  // a short file with a large header costs its own size), then copied into the tensor.
  std::string bytes;
  const size_t have = in.read(bytes, size_t(count));
  if (have < count) {
    in.check_end();
    fail(path, fmt::format("truncated {}: shape {} needs {} data bytes, the file has {}", kind,
                           graph::shape_string(shape), count, have));
  }
  // Trailing bytes are counted up to a bound, so a gzip bomb behind a small header ends quickly.
  constexpr uint64_t kCountTrailing = uint64_t(16) << 20;
  const uint64_t extra = in.skip_rest(kCountTrailing);
  in.check_end();
  if (extra > 0) {
    fail(path, fmt::format("{}{} unexpected bytes after the data of shape {}", extra > kCountTrailing ? "more than " : "",
                           std::min(extra, kCountTrailing), graph::shape_string(shape)));
  }
  Tensor t(graph::DType::kUInt8, shape);
  if (count) std::memcpy(t.raw(), bytes.data(), count);
  return t;
}

}  // namespace tauvta::io
