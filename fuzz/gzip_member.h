// One gzip member holding `data`, compressed at `level` (zlib): what the IDX fuzz target wraps its
// inputs in, and what the hostile-header tests build their gzip bomb from.
#pragma once

#include <zlib.h>

#include <string>
#include <string_view>

namespace tauvta::fuzz {

inline std::string gzip_member(std::string_view data, int level) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&z, uLong(data.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = uInt(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace tauvta::fuzz
