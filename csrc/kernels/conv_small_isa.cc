// The small convolutions' matrix loop (conv_small_gemm.inc) compiled for AVX-512, AVX2 + FMA
// and the baseline; conv_small_gemm_table() returns the one kernel_isa() names (MINDLITE_ISA
// honoured). Wider register tiles than the MatMul table's 4 x 1 vector: AVX-512 8 rows x 2
// vectors (16 of 32 registers), AVX2 6 x 2 (12 of 16), baseline 4 x 2.
#include "kernels/conv_small.h"

#include "kernels/isa_table.h"

namespace mindlite {

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")
namespace conv_small_avx512 {
#define CS_VB 64
#define CS_MR 8
#include "kernels/conv_small_gemm.inc"
#undef CS_VB
#undef CS_MR
}  // namespace conv_small_avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace conv_small_avx2 {
#define CS_VB 32
#define CS_MR 6
#include "kernels/conv_small_gemm.inc"
#undef CS_VB
#undef CS_MR
}  // namespace conv_small_avx2
#pragma GCC pop_options
#endif

namespace conv_small_base {
#define CS_VB 16
#define CS_MR 4
#include "kernels/conv_small_gemm.inc"
#undef CS_VB
#undef CS_MR
}  // namespace conv_small_base

const ConvSmallGemm* conv_small_gemm_table() {
  static const IsaTable<ConvSmallGemm, 2> table = make_isa_table<ConvSmallGemm, 2>(
      ML_ISA_X86(conv_small_avx512::fill), ML_ISA_X86(conv_small_avx2::fill),
      &conv_small_base::fill);
  return table.f;
}

}  // namespace mindlite
