// NumPy .npy files (format versions 1.0, 2.0 and 3.0): a magic string, a version, a header
// length, an ASCII (3.0: UTF-8) Python dict literal {'descr', 'fortran_order', 'shape'} padded
// with spaces to a 16- or 64-byte boundary, then the raw C-order data. We read and write the
// little-endian forms of the dtypes graph::Tensor has; anything else is an error naming the file.
#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "io/file_error.h"
#include "io/tensor_files.h"

namespace tauvta::io {

namespace fs = std::filesystem;
using graph::DType;
using graph::Shape;
using graph::Tensor;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

// The dict literal numpy writes is a tiny subset of Python; this parser accepts that subset in
// any key order, with arbitrary spacing and an optional trailing comma.
class HeaderParser {
 public:
  HeaderParser(const fs::path& path, std::string_view text) : path_(path), s_(text) {}

  void parse(std::string& descr, bool& fortran, Shape& shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') break;
      const std::string key = quoted();
      expect(':');
      skip_ws();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"') {
          bad(fmt::format("'descr' is not a simple dtype string (structured dtypes are not supported)"));
        }
        descr = quoted();
        have_descr = true;
      } else if (key == "fortran_order") {
        fortran = boolean();
        have_fortran = true;
      } else if (key == "shape") {
        shape = tuple();
        have_shape = true;
      } else {
        bad(fmt::format("unexpected key '{}'", key));
      }
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_ws();
      if (peek() != '}') bad("expected ',' or '}'");
    }
    ++pos_;
    if (!have_descr || !have_fortran || !have_shape) {
      bad(fmt::format("missing key '{}'", !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape"));
    }
    skip_ws();
    if (pos_ != s_.size()) bad("trailing characters after the dict");
  }

 private:
  [[noreturn]] void bad(const std::string& what) const {
    fail(path_, fmt::format("malformed .npy header ({} at offset {}): {}", what, pos_, std::string(s_)));
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) bad(fmt::format("expected '{}'", c));
    ++pos_;
  }
  std::string quoted() {
    skip_ws();
    const char q = peek();
    if (q != '\'' && q != '"') bad("expected a quoted string");
    const size_t end = s_.find(q, pos_ + 1);
    if (end == std::string_view::npos) bad("unterminated string");
    std::string out(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    bad("expected True or False");
  }
  Shape tuple() {
    expect('(');
    Shape shape;
    while (true) {
      skip_ws();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') bad("expected a non-negative dimension");
      int64_t d = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (d > (int64_t(1) << 48)) bad("dimension too large");
        d = d * 10 + (peek() - '0');
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2 long literals in old files
      shape.push_back(d);
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_ws();
      if (peek() != ')') bad("expected ',' or ')' in the shape");
    }
    ++pos_;
    return shape;
  }

  const fs::path& path_;
  std::string_view s_;
  size_t pos_ = 0;
};

DType dtype_from_descr(const fs::path& path, const std::string& descr) {
  if (descr.size() >= 2 && descr[0] == '>' && descr.substr(1) != "i1" && descr.substr(1) != "u1" &&
      descr.substr(1) != "b1") {
    fail(path, fmt::format("dtype '{}' is big-endian; only little-endian .npy files are supported "
                           "(convert with array.astype(array.dtype.newbyteorder('<')))", descr));
  }
  // Single-byte types have no byte order: numpy writes '|', but '<', '>' and '=' mean the same.
  std::string d = descr;
  if (d.size() == 3 && d[1] != 'f' && d[2] == '1' && (d[0] == '<' || d[0] == '>' || d[0] == '=')) d[0] = '|';
  if (d == "<f4") return DType::kFloat32;
  if (d == "<f8") return DType::kFloat64;
  if (d == "|i1") return DType::kInt8;
  if (d == "|u1") return DType::kUInt8;
  if (d == "<i2") return DType::kInt16;
  if (d == "<i4") return DType::kInt32;
  if (d == "<i8") return DType::kInt64;
  if (d == "|b1") return DType::kBool;
  fail(path, fmt::format("unsupported dtype '{}' (supported: <f4 <f8 |i1 |u1 <i2 <i4 <i8 |b1)", descr));
}

const char* descr_of(DType t) {
  switch (t) {
    case DType::kFloat32: return "<f4";
    case DType::kFloat64: return "<f8";
    case DType::kInt8: return "|i1";
    case DType::kUInt8: return "|u1";
    case DType::kInt16: return "<i2";
    case DType::kInt32: return "<i4";
    case DType::kInt64: return "<i8";
    case DType::kBool: return "|b1";
  }
  throw InternalError("descr_of: unknown dtype");
}

uint32_t read_le(const unsigned char* p, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Header lengths beyond this are refused (numpy writes a few hundred bytes; numpy itself refuses
// headers over 10000 bytes by default).
constexpr size_t kMaxHeaderBytes = size_t(1) << 20;

// The whole file, but never more than the largest .npy file the tensor limit admits (the limit,
// a maximal header and the prefix): an endless or huge file is refused after that many bytes.
std::string read_whole_file(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail(path, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, fmt::format("cannot open for reading: {}", std::strerror(errno)));
  const uint64_t cap = uint64_t(graph::tensor_byte_limit()) + kMaxHeaderBytes + 16;
  std::string bytes;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    bytes.append(buf, size_t(in.gcount()));
    if (bytes.size() > cap) {
      fail(path, fmt::format("the file is over {} bytes, more than a .npy file within the {:.4g} GiB tensor limit "
                             "(--max-tensor-mib raises it)", cap, double(graph::tensor_byte_limit()) / double(1 << 30)));
    }
  }
  if (in.bad()) fail(path, "read error");
  return bytes;
}

}  // namespace

Tensor read_npy(const fs::path& path) {
  const std::string bytes = read_whole_file(path);
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < kMagicLen + 2 || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0) {
    fail(path, "not a .npy file (missing the \\x93NUMPY magic string)");
  }
  const int major = u[6], minor = u[7];
  if (major < 1 || major > 3 || minor != 0) {
    fail(path, fmt::format(".npy format version {}.{} is not supported (1.0, 2.0 and 3.0 are)", major, minor));
  }
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t prefix = kMagicLen + 2 + len_bytes;
  if (bytes.size() < prefix) fail(path, "truncated .npy header");
  const size_t header_len = read_le(u + 8, int(len_bytes));
  if (header_len > kMaxHeaderBytes) {
    fail(path, fmt::format(".npy header length {} is over the {}-byte limit", header_len, kMaxHeaderBytes));
  }
  if (bytes.size() < prefix + header_len) {
    fail(path, fmt::format("truncated .npy header: it declares {} bytes, the file has {} after the prefix",
                           header_len, bytes.size() - prefix));
  }
  std::string_view header(bytes.data() + prefix, header_len);

  std::string descr;
  bool fortran = false;
  Shape shape;
  HeaderParser(path, header).parse(descr, fortran, shape);
  const DType dtype = dtype_from_descr(path, descr);
  if (fortran) {
    fail(path, fmt::format("array is stored in Fortran order (fortran_order: True, shape {}); only C order "
                           "is supported (save np.ascontiguousarray(a))", graph::shape_string(shape)));
  }

  // The declared size against the bytes the file holds, before anything is allocated: a header
  // claiming a huge shape is refused, not zero-filled.
  const uint64_t data_size = uint64_t(graph::tensor_bytes(dtype, shape));  // saturates
  const size_t have = bytes.size() - prefix - header_len;
  if (have < data_size) {
    fail(path, fmt::format("truncated data: shape {} of {} needs {} bytes, the file has {}",
                           graph::shape_string(shape), graph::dtype_name(dtype), data_size, have));
  }
  if (have > data_size) {
    fail(path, fmt::format("{} unexpected bytes after the data of shape {} of {}", have - data_size,
                           graph::shape_string(shape), graph::dtype_name(dtype)));
  }
  graph::check_tensor_size(dtype, shape, path.string() + ": the array of");
  Tensor t(dtype, shape);
  if (data_size) std::memcpy(t.raw(), bytes.data() + prefix + header_len, data_size);
  if (dtype == DType::kBool) {
    for (size_t i = 0; i < data_size; ++i) {
      if (t.raw()[i] > 1) fail(path, fmt::format("bool element {} has byte value {}", i, int(t.raw()[i])));
    }
  }
  return t;
}

void write_npy(const fs::path& path, const Tensor& t, bool overwrite) {
  std::error_code ec;
  if (!overwrite && fs::exists(path, ec)) {
    fail(path, "already exists; refusing to overwrite it");
  }
  if (fs::is_directory(path, ec)) fail(path, "is a directory");

  std::string shape = "(";
  for (size_t i = 0; i < t.shape().size(); ++i) {
    shape += std::to_string(t.shape()[i]);
    shape += (t.shape().size() == 1 || i + 1 < t.shape().size()) ? "," : "";
    if (i + 1 < t.shape().size()) shape += " ";
  }
  shape += ")";
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr_of(t.dtype()), shape);
  // numpy pads the header with spaces and a final newline so the data starts on a 64-byte boundary.
  size_t prefix = kMagicLen + 2 + 2;
  int major = 1;
  if (header.size() + 1 + 64 > 65535) {
    major = 2;
    prefix = kMagicLen + 2 + 4;
  }
  const size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';

  std::string out(kMagic, kMagicLen);
  out += char(major);
  out += char(0);
  const uint32_t hl = uint32_t(header.size());
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out += char((hl >> (8 * i)) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char*>(t.raw()), t.byte_size());

  write_file_atomic(path, out);
}

std::string npy_file_name(const std::string& value) {
  std::string s = value;
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-') ch = '_';
  }
  return s + ".npy";
}

}  // namespace tauvta::io
