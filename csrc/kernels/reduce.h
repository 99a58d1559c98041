// Reductions over any set of axes (reduce.cc) and the softmax family along one axis
// (softmax.cc): op codes, plans, and launches.
//
// Determinism: every result is a fixed function of the input and its layout, never of the
// thread count. A long contiguous run is cut into fixed kReduceBlock-element blocks whose
// partial results combine in a fixed pairwise tree; every other output (and every softmax
// slice) is computed whole by one thread. Floating sums accumulate in float64 (float32 inputs
// too; float64 inputs pairwise above 1024-element leaves), so their error is at or below
// numpy's.
#pragma once

#include <cstdint>

#include "kernels/elementwise.h"

namespace mindlite {

enum ReduceOp : int { kRSum = 0, kRMean, kRMax, kRMin, kRProd, kNumReduce };
enum SoftmaxOp : int { kSoftmax = 0, kLogSoftmax, kSoftmaxGrad, kLogSoftmaxGrad, kNumSoftmax };
// Internal (f16_kernels.cc): float32 Softmax rows whose results are rounded to float16 next:
// vexp_low and float32 sums (their errors stay far below float16's spacing).
constexpr int kSoftmaxToF16 = kNumSoftmax;

extern const char* const kReduceNames[kNumReduce];
extern const char* const kSoftmaxNames[kNumSoftmax];

constexpr int64_t kReduceBlock = 16384;  // elements per block of a long run (fixed)

bool reduce_supported(int op, int dt);   // dt: DType (float32/float64/int32/int64)
bool softmax_supported(int op, int dt);  // float32/float64
inline bool softmax_is_grad(int op) { return op >= kSoftmaxGrad; }

// A reduction, canonicalised (reduce_plan): dims in memory order with size-1 dims dropped,
// negative strides flipped, and adjacent dims of one kind merged. The innermost dim has unit
// stride and is either reduced (row mode: each output reduces runs of `inner` contiguous
// elements) or kept (column mode: `inner` outputs accumulate side by side).
struct ReducePlan {
  int op, dt;
  const char* x;
  char* out;
  bool row;
  int nk, nr;                                      // outer kept / outer reduced dims
  int64_t kn[kMaxDims], ksx[kMaxDims], kso[kMaxDims];  // sizes, x and out byte strides
  int64_t rn[kMaxDims], rsx[kMaxDims];
  int64_t inner, inner_so;                         // innermost length; out stride (column)
  int64_t n_out, n_red, count;                     // outer outputs, outer runs, reduced elems
  int64_t total;                                   // x elements
  int threads;
  bool searching;                                  // a timed trial of the split search
};

// Thread counts come from the runtime's split search (runtime/thread_pool.h), keyed by
// (kFamilyReduce or kFamilySoftmax, op, dtype, size bucket), as the elementwise kernels.

// Fills `p` for x (nd dims, byte strides) reduced over `reduced[d]` into C-contiguous `out`
// (its dims the kept dims in order). Returns false when x's densest dim is not unit-stride:
// the caller copies x in memory order (NPY_KEEPORDER) and plans again. count must be > 0.
bool reduce_plan(ReducePlan* p, int op, int dt, const char* x, int nd, const int64_t* shape,
                 const int64_t* strides, const bool* reduced, char* out);
bool reduce_parallel(const ReducePlan& p);        // whether run_reduce uses the pool
void run_reduce(ReducePlan& p);

// Softmax family over the middle axis of C-contiguous (O, R, I) arrays; dy only for grads.
bool softmax_parallel(int64_t n);
void run_softmax(int op, int dt, const char* x, const char* dy, char* out, int64_t O,
                 int64_t R, int64_t I);

}  // namespace mindlite
