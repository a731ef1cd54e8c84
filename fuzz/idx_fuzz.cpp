// IDX image and label files (io::read_idx), plain or gzip-compressed. An input starting with 'G'
// is gzip-compressed here before it is written (the rest of it is the IDX file), so the header
// checks behind zlib are reached without the fuzzer having to produce valid deflate streams;
// any other input is written as it is (plain IDX, or gzip bytes the fuzzer mutated).
#include <string>

#include "fuzz_target.h"
#include "gzip_member.h"
#include "io/tensor_files.h"

TAUVTA_FUZZ_TARGET(idx) {
  using namespace tauvta;
  const fuzz::TensorLimitScope limit(int64_t(64) << 20);
  const bool compress = size > 0 && data[0] == 'G';
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string bytes = compress ? fuzz::gzip_member(input.substr(1), 1) : std::string(input);
  const fuzz::TempFile in(bytes, compress ? ".gz" : ".idx");
  const graph::Tensor t = io::read_idx(in.path());
  fuzz::check(t.dtype() == graph::DType::kUInt8, "read_idx returned a tensor that is not uint8");
}
