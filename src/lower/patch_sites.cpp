#include "lower/patch_sites.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "common/error.h"
#include "lower/program.h"

namespace tauvta::lower {

namespace {

const char* role_name(ImmRole r) {
  switch (r) {
    case ImmRole::kAdd: return "rounding ADD";
    case ImmRole::kShr: return "SHR";
    case ImmRole::kMin: return "MIN";
    case ImmRole::kMax: return "MAX";
    case ImmRole::kShl: return "left-shift SHR";
  }
  return "?";
}

// The immediates a role takes, in piece order, for these values.
std::vector<int64_t> expected(const RequantValues& v, ImmRole r) {
  switch (r) {
    case ImmRole::kAdd:
      if (!v.rv.imm_only) return {};
      if (v.rv.imm_adds.empty()) return v.bias_add ? std::vector<int64_t>{0} : std::vector<int64_t>{};
      return v.rv.imm_adds;
    case ImmRole::kShr: return v.rv.pieces == 0 ? v.rv.imm_shifts : std::vector<int64_t>{};
    case ImmRole::kMin: return {v.clip_max};
    case ImmRole::kMax: return {v.clip_min};
    case ImmRole::kShl: return v.shl;
  }
  return {};
}

}  // namespace

void patch_layer(Program& p, size_t layer, const std::vector<RequantValues>& values) {
  const ProgramLayer& l = p.layers.at(layer);
  const LayerPatchSites& s = l.sites;
  auto fail = [&](const std::string& what) {
    throw Error(fmt::format("layer '{}': {}; the new format needs the layer lowered again (compile the model "
                            "with these formats)", l.name, what));
  };
  // The recorded structure: pieces per (requant, role).
  std::map<std::pair<uint8_t, ImmRole>, int> pieces;
  for (const ImmSite& x : s.imms) {
    int& n = pieces[{x.requant, x.role}];
    n = std::max(n, int(x.piece) + 1);
  }
  for (size_t q = 0; q < values.size(); ++q) {
    for (ImmRole r : {ImmRole::kAdd, ImmRole::kShr, ImmRole::kMin, ImmRole::kMax, ImmRole::kShl}) {
      const size_t want = expected(values[q], r).size();
      auto it = pieces.find({uint8_t(q), r});
      const size_t have = it == pieces.end() ? 0 : size_t(it->second);
      if (want != have) {
        fail(fmt::format("requantization {} has {} {} immediate(s), the new values need {}", q, have, role_name(r), want));
      }
    }
  }
  for (const auto& [key, n] : pieces) {
    if (key.first >= values.size()) fail(fmt::format("requantization {} has no new values", key.first));
  }
  // Constants first (checked), then immediates: a failure leaves the program unchanged.
  std::vector<std::pair<const ConstSite*, const std::vector<uint8_t>*>> writes;
  std::vector<bool> has_vectors(values.size(), false), has_tile(values.size(), false), has_weights(values.size(), false);
  for (const ConstSite& c : s.consts) {
    if (c.requant >= values.size()) fail(fmt::format("constant of requantization {} has no new values", c.requant));
    const RequantValues& v = values[c.requant];
    const std::vector<uint8_t>& bytes =
        c.role == ConstRole::kVectors ? v.rv.packed : c.role == ConstRole::kScaleTile ? v.scale_tile : v.weights;
    (c.role == ConstRole::kVectors ? has_vectors : c.role == ConstRole::kScaleTile ? has_tile : has_weights)[c.requant] = true;
    if (bytes.size() != c.bytes) {
      const char* what = c.role == ConstRole::kVectors     ? "per-channel vectors"
                         : c.role == ConstRole::kScaleTile ? "scale tile"
                                                           : "weights (holding the bias)";
      fail(fmt::format("its {} take {} bytes, the new values {}", what, c.bytes, bytes.size()));
    }
    writes.push_back({&c, &bytes});
  }
  for (size_t q = 0; q < values.size(); ++q) {
    if (!values[q].rv.packed.empty() && !has_vectors[q]) fail("the new values need per-channel vectors the program does not hold");
    if (!values[q].scale_tile.empty() && !has_tile[q]) fail("the new values need a scale tile the program does not hold");
    if (!values[q].weights.empty() && !has_weights[q]) fail("the new values carry the bias in weights the program does not patch");
  }
  for (const ImmSite& x : s.imms) {
    if (x.stream >= p.streams.size() || x.insn >= p.streams[x.stream].insns.size() ||
        p.streams[x.stream].insns[x.insn].opcode != hw::Opcode::kAlu || !p.streams[x.stream].insns[x.insn].use_imm) {
      throw InternalError(fmt::format("layer '{}': patch site stream {} instruction {} is not an ALU immediate", l.name,
                                      x.stream, x.insn));
    }
  }
  for (const auto& [c, bytes] : writes) {
    uint64_t done = 0;
    for (DramChunk& ch : p.constants) {
      const uint64_t lo = std::max(c->offset, ch.offset), hi = std::min(c->offset + c->bytes, ch.offset + ch.bytes.size());
      if (lo >= hi) continue;
      std::copy(bytes->begin() + int64_t(lo - c->offset), bytes->begin() + int64_t(hi - c->offset),
                ch.bytes.begin() + int64_t(lo - ch.offset));
      done += hi - lo;
    }
    if (done != c->bytes) throw InternalError(fmt::format("layer '{}': a patched constant lies outside the image's chunks", l.name));
  }
  for (const ImmSite& x : s.imms) {
    const int64_t v = expected(values[x.requant], x.role).at(x.piece);
    if (v < -32768 || v > 32767) fail(fmt::format("{} immediate {} does not fit 16 bits", role_name(x.role), v));
    p.streams[x.stream].insns[x.insn].imm = int32_t(v);
  }
}

}  // namespace tauvta::lower
