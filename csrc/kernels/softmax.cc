// Softmax, LogSoftmax and their gradients along the middle axis of C-contiguous (O, R, I)
// arrays (see reduce.h). The loops (softmax_loops.inc) are compiled once per ISA as in
// reduce.cc (included under each `#pragma GCC target`), on 64-byte vectors from simd_math.h
// for every ISA: the forward exp of float32 is vexp_tab (table and cubic) where the vectors are
// native (AVX-512, AVX2's 32-byte halves: ML_NATIVE_VBYTES), vexp otherwise and for float64.
//
//   Softmax         m = max (NaN sticks), e = exp(x - m), y = e * (1 / sum e)
//   LogSoftmax      y = (x - m) - log(sum e)
//   SoftmaxGrad     dx = y * (dy - sum(dy * y))
//   LogSoftmaxGrad  dx = dy - exp(y) * sum(dy)
// Sums accumulate in float64 (float32 inputs too). I == 1: one thread per row; I > 1: columns
// in blocks of kSmCols, each slice whole on one thread, so results never depend on the split.
#include <cstring>

#include "kernels/isa_common.h"
#include "kernels/isa_table.h"
#include "kernels/reduce.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {
using SoftmaxExec = void (*)(int op, const char* x, const char* dy, char* out, int64_t O,
                             int64_t R, int64_t I, int nt);
constexpr int64_t kSmCols = 2048;  // NOTE: 256 re-walked 2048^2 rows 8x: 1.9x slower
}  // namespace
}  // namespace mindlite

#define ML_SOFTMAX_LOOPS
// 64-byte vectors in the AVX2 / base passes: ABI notes only (no such value crosses a TU)
#pragma GCC diagnostic ignored "-Wpsabi"
#define ML_VBYTES 64
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma,bmi,bmi2,popcnt,f16c")
#define ML_NATIVE_VBYTES 64
namespace mindlite {
namespace softmax_avx512 {
#include "kernels/simd_math.h"
#include "kernels/softmax_vec.inc"    // NOLINT(build/include): vector helpers
#include "kernels/softmax_loops.inc"  // NOLINT(build/include): the loops, for this ISA
}  // namespace softmax_avx512
}  // namespace mindlite
#undef ML_NATIVE_VBYTES
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi,bmi2,popcnt,f16c")
namespace mindlite {
namespace softmax_avx2 {
// GCC lowers selects (?:) on 64-byte vectors element by element without AVX-512, so vexp and
// the NaN-sticky max run on two native 32-byte halves (same lane-wise operations).
namespace half {
#undef ML_VBYTES
#define ML_VBYTES 32
#define ML_NATIVE_VBYTES 32
#include "kernels/simd_math.h"
#undef ML_NATIVE_VBYTES
#undef ML_VBYTES
#define ML_VBYTES 64
}  // namespace half
#define ML_SOFTMAX_HALF 1
#include "kernels/simd_math.h"
#include "kernels/softmax_vec.inc"    // NOLINT(build/include): vector helpers
#include "kernels/softmax_loops.inc"  // NOLINT(build/include)
#undef ML_SOFTMAX_HALF
}  // namespace softmax_avx2
}  // namespace mindlite
#pragma GCC pop_options
#endif
namespace mindlite {
namespace softmax_base {
#include "kernels/simd_math.h"
#include "kernels/softmax_vec.inc"    // NOLINT(build/include): vector helpers
#include "kernels/softmax_loops.inc"  // NOLINT(build/include)
}  // namespace softmax_base
}  // namespace mindlite
#undef ML_VBYTES
#undef ML_SOFTMAX_LOOPS

namespace mindlite {

const char* const kSoftmaxNames[kNumSoftmax] = {"Softmax", "LogSoftmax", "SoftmaxGrad",
                                                "LogSoftmaxGrad"};

namespace {

// Entries by dtype: kF32, kF64.
const IsaTable<SoftmaxExec, 2>& softmax_table() {
  static const auto t = make_isa_table<SoftmaxExec, 2>(
      ML_ISA_X86(softmax_avx512::fill), ML_ISA_X86(softmax_avx2::fill), &softmax_base::fill);
  return t;
}

}  // namespace

bool softmax_supported(int op, int dt) {
  return op >= 0 && op < kNumSoftmax && (dt == kF32 || dt == kF64);
}

// NOTE: cost 4 per element, as the elementwise Exp (an exp and two more passes).
bool softmax_parallel(int64_t n) { return will_parallelize(n, 4); }

void run_softmax(int op, int dt, const char* x, const char* dy, char* out, int64_t O,
                 int64_t R, int64_t I) {
  const int64_t n = O * R * I;
  if (n == 0) return;
  const uint32_t key = split_key(kFamilySoftmax, op, dt);
  const SplitDecision d = decide_split(key, n, 4);
  const SoftmaxExec f = softmax_table().f[dt == kF64 ? 1 : 0];
  run_timed(key, n, d, [&] { f(op, x, dy, out, O, R, I, d.threads); });
}

}  // namespace mindlite
