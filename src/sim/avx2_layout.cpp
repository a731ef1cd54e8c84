#include "sim/avx2_layout.h"

#include <cstddef>

namespace tauvta::sim {
namespace {

template <class T>
void arrange(const T* w, int bo, int bi, int16_t* pairs) {
  for (int oc = 0; oc < bo; ++oc) {
    const T* row = w + size_t(oc) * bi;
    for (int p = 0; p < bi / 2; ++p) {
      int16_t* dst = pairs + (size_t(p) * bo + oc) * 2;
      dst[0] = int16_t(row[2 * p]);
      dst[1] = int16_t(row[2 * p + 1]);
    }
  }
}

}  // namespace

void arrange_pair_tile(const int8_t* w, int block_out, int block_in, int16_t* pairs) {
  arrange(w, block_out, block_in, pairs);
}

void arrange_pair_tile(const int16_t* w, int block_out, int block_in, int16_t* pairs) {
  arrange(w, block_out, block_in, pairs);
}

}  // namespace tauvta::sim
