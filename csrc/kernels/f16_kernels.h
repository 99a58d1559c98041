// float16 kernels that compute through float32 lanes (f16_kernels.cc): F16C conversion
// (vcvtph2ps / vcvtps2ph, AVX-512 or AVX2 as kernel_isa() says, exact scalar code on "base")
// and the elementwise families run blockwise: a block of float16 elements is widened to
// float32, the float32 loop of kernel_tables() runs on it, and each result is rounded once to
// float16 (nearest, ties to even). Every element goes through the same code whatever its
// position (tails are padded to a whole vector), so results never depend on the thread split.
#pragma once

#include <cstdint>

namespace mindlite {

constexpr uint32_t kFamilyF16 = 12;     // split-search family (runtime/thread_pool.h)
constexpr int kF16Convert = 64;         // op codes of the conversions in that family
constexpr int kF16Narrow = 65;

// n float16 bit patterns -> float32, and float32 -> float16 (round to nearest even); both
// split across the thread pool when large.
void run_f16_to_f32(const uint16_t* x, float* out, int64_t n);
void run_f32_to_f16(const float* x, uint16_t* out, int64_t n);

// out[i] = op(x[i]) (UnaryOp of elementwise.h), x and out contiguous (out may be x).
void run_f16_unary(int op, const uint16_t* x, uint16_t* out, int64_t n);
// out[i] = op(x[i], y[i]) (BinaryOp); mode kVV / kSV (x one element) / kVS (y one element).
void run_f16_binary(int op, int mode, const uint16_t* x, const uint16_t* y, uint16_t* out,
                    int64_t n);

// Softmax / LogSoftmax (SoftmaxOp of reduce.h) of each of `rows` contiguous rows of `cols`
// float16 elements: blocks of whole rows are widened, run through the float32 softmax loop
// (run_softmax, one row at a time as always) and rounded once, so the float32 temporaries
// stay in cache and a row's result never depends on the thread split.
void run_f16_softmax(int op, const uint16_t* x, uint16_t* out, int64_t rows, int64_t cols);

// ReduceOp `op` (reduce.h) of C-contiguous x (nd dims, no dim of size 0) over `reduced`
// dims, the first dim kept: blocks of whole first-dim slices are widened, reduced by the
// float32 reduce loops (reduce_plan / run_reduce, the same per-output computation as one
// launch over all of x) and rounded into C-contiguous out (the kept dims).
void run_f16_reduce_slices(int op, const uint16_t* x, int nd, const int64_t* shape,
                           const bool* reduced, uint16_t* out);

}  // namespace mindlite
