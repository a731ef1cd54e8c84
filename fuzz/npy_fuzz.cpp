// .npy files (io::read_npy): magic, version, header length, the dict literal, dtype, shape and
// the data size against the file size. A file that loads must write back (io::write_npy) and
// read back to the same tensor.
#include "fuzz_target.h"
#include "io/tensor_files.h"

TAUVTA_FUZZ_TARGET(npy) {
  using namespace tauvta;
  const fuzz::TensorLimitScope limit(int64_t(64) << 20);
  const fuzz::TempFile in(data, size, ".npy");
  const graph::Tensor t = io::read_npy(in.path());
  const fuzz::TempFile out("", ".out.npy");
  io::write_npy(out.path(), t, /*overwrite=*/true);
  fuzz::check(io::read_npy(out.path()) == t, "write_npy(read_npy(file)) reads back differently");
}
