// What the CPU this process runs on can execute, asked once per feature set and cached. Every
// module that picks a SIMD kernel at run time asks here, so the simulator, the lane unpacking
// and the CPU kernels agree on one answer (and a portable build path is chosen the same way).
#pragma once

namespace tauvta {

bool cpu_has_avx2();         // AVX2
bool cpu_has_avx2_fma();     // AVX2 and FMA
bool cpu_has_avx512f();      // AVX-512 F
bool cpu_has_avx512bw();     // AVX-512 F and BW
bool cpu_has_vnni();         // AVX-512 F, BW, VL and VNNI: the simulator's VNNI kernels

}  // namespace tauvta
