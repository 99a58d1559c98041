// Kernel loops for the baseline target (x86-64 SSE2, or whatever the compiler targets).
#include "kernels/isa_common.h"

#define ML_VBYTES 16
namespace mindlite {
namespace isa_base {
#include "kernels/simd_math.h"
#include "kernels/unary_impl.inc"
#include "kernels/binary_impl.inc"
}  // namespace isa_base

void fill_tables_base(KernelTables* t) {
  isa_base::fill_unary(t);
  isa_base::fill_binary(t);
}
}  // namespace mindlite
