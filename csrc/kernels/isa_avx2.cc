// Kernel loops compiled for AVX2 + FMA (selected at run time when the CPU has them).
#include "kernels/isa_common.h"

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi,bmi2,popcnt,f16c")
#define ML_HAS_FMA 1
#define ML_VBYTES 32
#define ML_NATIVE_VBYTES 32
namespace mindlite {
namespace isa_avx2 {
#include "kernels/simd_math.h"
#include "kernels/unary_impl.inc"
#include "kernels/binary_impl.inc"
}  // namespace isa_avx2
}  // namespace mindlite
#pragma GCC pop_options

void mindlite::fill_tables_avx2(KernelTables* t) {
  isa_avx2::fill_unary(t);
  isa_avx2::fill_binary(t);
}
#else
void mindlite::fill_tables_avx2(KernelTables* t) { fill_tables_base(t); }
#endif
