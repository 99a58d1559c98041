// Kernel loops compiled for AVX-512 (F/DQ/BW/VL) + FMA, 512-bit vector math.
#include "kernels/isa_common.h"

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma,bmi,bmi2,popcnt,f16c")
#define ML_HAS_FMA 1
#define ML_VBYTES 64
#define ML_NATIVE_VBYTES 64
namespace mindlite {
namespace isa_avx512 {
#include "kernels/simd_math.h"
#include "kernels/unary_impl.inc"
#include "kernels/binary_impl.inc"
}  // namespace isa_avx512
}  // namespace mindlite
#pragma GCC pop_options

void mindlite::fill_tables_avx512(KernelTables* t) {
  isa_avx512::fill_unary(t);
  isa_avx512::fill_binary(t);
}
#else
void mindlite::fill_tables_avx512(KernelTables* t) { fill_tables_base(t); }
#endif
