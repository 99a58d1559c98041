// Small-matrix MatMul: C[M,N] = op(A) @ op(B) for 2-D float32/float64 (op = optional
// transpose), for sizes where a BLAS call's fixed overhead dominates (the cpp provider
// registers it only for those, see kernels/cpu/math_cpp.py). Inputs may have any strides;
// they are packed row-major when they are not already, then the ISA's packed loop runs; a
// transposed row-major b (a Dense weight) with at most kDotRows rows of op(A) runs the
// dot-product loop on b as stored instead (a batch-1 layer: no copy of the weight).
#pragma once

#include <cstdint>

#include "kernels/elementwise.h"

namespace mindlite {

constexpr int64_t kDotRows = 2;
constexpr uint32_t kFamilyMatmulBt = 9;  // split-search family (runtime/thread_pool.h)

// a: (M,K) or (K,M) when transpose_a; b: (K,N) or (N,K) when transpose_b; out: C-contiguous
// (M,N). Shapes and dtypes already validated.
void run_matmul(int dt, const Operand& a, const Operand& b, bool transpose_a, bool transpose_b,
                char* out, int64_t m, int64_t n, int64_t k);

}  // namespace mindlite
