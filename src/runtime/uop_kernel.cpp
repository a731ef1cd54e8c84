#include "runtime/uop_kernel.h"

#include <fmt/format.h>

#include "common/error.h"
#include "hw/disasm.h"

namespace tauvta::runtime {

uint64_t UopKernel::executions() const {
  return uint64_t(uops.size()) * outer().extent * inner().extent;
}

std::vector<uint32_t> UopKernel::encode(const hw::IsaLayout& layout) const {
  std::vector<uint32_t> words;
  words.reserve(uops.size());
  for (const hw::Uop& u : uops) {
    words.push_back(kind == UopKind::kGemm ? layout.encode_gemm_uop(u) : layout.encode_alu_uop(u));
  }
  return words;
}

namespace {

// The index one execution uses, stored in a loop-free micro-op. Only sums that fit the field are
// materialized: then no wrap happens anywhere, so the chunk reads exactly what the looped kernel
// reads whatever the hardware's wrap rules for offsets are. A wrapping kernel cannot be split.
uint32_t offset_index(uint32_t base, uint64_t off_o, uint64_t off_i, int width, const char* name,
                      size_t uop_index) {
  const uint64_t v = uint64_t(base) + off_o + off_i;
  if (v >> width != 0) {
    throw Error(fmt::format("micro-op {}: {} index {} + loop offsets = {} does not fit the {}-bit "
                            "micro-op field, so this kernel cannot be split into loop-free chunks "
                            "(it is larger than the micro-op buffer)",
                            uop_index, name, base, v, width));
  }
  return uint32_t(v);
}

}  // namespace

UopKernel UopKernel::materialize(const hw::IsaLayout& layout) const {
  const hw::UopLayout& ul = layout.uop();
  const UopLoop lo = outer();
  const UopLoop li = inner();
  UopKernel flat;
  flat.kind = kind;
  flat.uops.reserve(executions());
  for (uint64_t o = 0; o < lo.extent; ++o) {
    for (uint64_t i = 0; i < li.extent; ++i) {
      for (size_t k = 0; k < uops.size(); ++k) {
        const hw::Uop& u = uops[k];
        hw::Uop m;
        m.dst = offset_index(u.dst, o * lo.dst_factor, i * li.dst_factor, ul.dst().width, "dst", k);
        m.src = offset_index(u.src, o * lo.src_factor, i * li.src_factor, ul.src().width, "src", k);
        if (kind == UopKind::kGemm) {
          m.wgt = offset_index(u.wgt, o * lo.wgt_factor, i * li.wgt_factor, ul.wgt().width, "wgt", k);
        }
        flat.uops.push_back(m);
      }
    }
  }
  return flat;
}

std::string UopKernel::to_string() const {
  std::string s = fmt::format("{} kernel, {} micro-ops", kind == UopKind::kGemm ? "GEMM" : "ALU",
                              uops.size());
  for (size_t l = 0; l < loops.size(); ++l) {
    const UopLoop& lp = loops[l];
    s += fmt::format("\n  loop {}: extent={} dst_factor={} src_factor={}", l == 0 ? "out" : "in",
                     lp.extent, lp.dst_factor, lp.src_factor);
    if (kind == UopKind::kGemm) s += fmt::format(" wgt_factor={}", lp.wgt_factor);
  }
  for (const hw::Uop& u : uops) {
    s += "\n  ";
    s += kind == UopKind::kGemm ? hw::disassemble_gemm_uop(u) : hw::disassemble_alu_uop(u);
  }
  return s;
}

UopKernelBuilder& UopKernelBuilder::loop_begin(uint32_t extent, uint32_t dst_factor,
                                               uint32_t src_factor, uint32_t wgt_factor) {
  if (!kernel_.uops.empty() || closed_ != 0) {
    throw Error("UopKernelBuilder: loop_begin after a micro-op was pushed (loops enclose the whole "
                "kernel)");
  }
  if (open_ == 2) throw Error("UopKernelBuilder: at most two loops (iter_out, iter_in)");
  if (extent == 0) throw Error("UopKernelBuilder: a loop extent must be at least 1");
  kernel_.loops.push_back(UopLoop{extent, dst_factor, src_factor, wgt_factor});
  ++open_;
  return *this;
}

UopKernelBuilder& UopKernelBuilder::push(uint32_t dst, uint32_t src, uint32_t wgt) {
  if (closed_ != 0) throw Error("UopKernelBuilder: push after loop_end");
  if (kernel_.kind == UopKind::kAlu && wgt != 0) {
    throw Error("UopKernelBuilder: an ALU micro-op has no weight index");
  }
  kernel_.uops.push_back(hw::Uop{dst, src, wgt});
  return *this;
}

UopKernelBuilder& UopKernelBuilder::loop_end() {
  if (closed_ == open_) throw Error("UopKernelBuilder: loop_end without a matching loop_begin");
  ++closed_;
  return *this;
}

UopKernel UopKernelBuilder::build() const {
  if (closed_ != open_) {
    throw Error(fmt::format("UopKernelBuilder: {} loop(s) still open", open_ - closed_));
  }
  if (kernel_.uops.empty()) throw Error("UopKernelBuilder: a kernel needs at least one micro-op");
  return kernel_;
}

uint64_t hash_uop_words(std::span<const uint32_t> words) {
  // Multiply-xor over pairs of words (FNV-style, one multiply per 64 bits), finished with a mix
  // of the length.
  uint64_t h = 1469598103934665603ull;
  size_t i = 0;
  for (; i + 1 < words.size(); i += 2) h = (h ^ (uint64_t(words[i]) | uint64_t(words[i + 1]) << 32)) * 1099511628211ull;
  if (i < words.size()) h = (h ^ words[i]) * 1099511628211ull;
  h ^= words.size();
  h ^= h >> 29;
  return h;
}

EncodedKernel encode_kernel(const UopKernel& kernel, const hw::IsaLayout& layout) {
  EncodedKernel e;
  e.kernel = kernel;
  e.words = kernel.encode(layout);
  e.hash = hash_uop_words(e.words);
  return e;
}

}  // namespace tauvta::runtime
