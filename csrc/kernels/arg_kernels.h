// Arg-reductions (Argmax / Argmin and their WithValue forms) and logical reductions (ReduceAll
// / ReduceAny) over the middle axis of C-contiguous (O, R, I) arrays (arg_kernels.cc, float
// loops per ISA in arg_loops.inc).
//
// Arg-reductions give the index of the first extreme along R, as np.argmax / np.argmin: a NaN
// is an extreme (the first NaN wins). Logical reductions read bool bytes (any nonzero byte is
// True). Each output is computed whole by one thread, so results never depend on the split.
#pragma once

#include <cstdint>

namespace mindlite {

enum ArgOp : int { kArgMax = 0, kArgMin, kReduceAll, kReduceAny, kNumArg };

extern const char* const kArgNames[kNumArg];

// x (O, R, I) of dt (kF32/kF64/kI32/kI64), R >= 1; idx: O * I int32 (idx64 false) or int64;
// vals: O * I of dt, or null.
void run_arg(int op, int dt, const char* x, int64_t O, int64_t R, int64_t I, char* idx,
             bool idx64, char* vals);

// x (O, R, I) bool bytes, out O * I bool: all (kReduceAll) or any along R (R may be 0).
void run_logical(int op, const uint8_t* x, int64_t O, int64_t R, int64_t I, uint8_t* out);

}  // namespace mindlite
