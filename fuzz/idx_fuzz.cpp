// IDX image and label files (io::read_idx), plain or gzip-compressed. An input starting with 'G'
// is gzip-compressed here before it is written (the rest of it is the IDX file), so the header
// checks behind zlib are reached without the fuzzer having to produce valid deflate streams;
// any other input is written as it is (plain IDX, or gzip bytes the fuzzer mutated).
#include <zlib.h>

#include <string>

#include "fuzz_target.h"
#include "io/tensor_files.h"

namespace {

std::string gzip(const uint8_t* data, size_t size) {
  z_stream z{};
  if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&z, uLong(size)) + 32, '\0');
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = uInt(size);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

TAUVTA_FUZZ_TARGET(idx) {
  using namespace tauvta;
  const fuzz::TensorLimitScope limit(int64_t(64) << 20);
  const bool compress = size > 0 && data[0] == 'G';
  const std::string bytes =
      compress ? gzip(data + 1, size - 1) : std::string(reinterpret_cast<const char*>(data), size);
  const fuzz::TempFile in(bytes, compress ? ".gz" : ".idx");
  const graph::Tensor t = io::read_idx(in.path());
  fuzz::check(t.dtype() == graph::DType::kUInt8, "read_idx returned a tensor that is not uint8");
}
