// In-place optimizer updates (see optim_kernels.h). The loops (optim_loops.inc) are compiled
// twice, as the other kernel families' per-ISA loops: for AVX2 WITHOUT FMA (used on AVX2 and
// AVX-512 CPUs) and for the baseline, inside namespaces optim_avx2 and optim_base;
// kernel_isa() picks one.
// NOTE: no pass may enable FMA: GCC contracts a * b + c in C++ by default, which would round
// differently from numpy's separate operations (AVX-512F includes FMA, so it gets no pass).
#include "kernels/optim_kernels.h"

#include <cmath>
#include <cstring>

#include "kernels/elementwise.h"
#include "kernels/loss_kernels.h"
#include "runtime/thread_pool.h"

#define ML_OPTIM_LOOPS
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,bmi,bmi2,popcnt")
namespace mindlite {
namespace optim_avx2 {
#include "kernels/optim_loops.inc"  // NOLINT(build/include): the loops, for this ISA
}  // namespace optim_avx2
}  // namespace mindlite
#pragma GCC pop_options
#endif
namespace mindlite {
namespace optim_base {
#include "kernels/optim_loops.inc"  // NOLINT(build/include)
}  // namespace optim_base
}  // namespace mindlite
#undef ML_OPTIM_LOOPS

namespace mindlite {

const char* const kOptimNames[kNumOptim] = {"ApplyMomentum", "SGD", "Adam", "AdamWeightDecay"};

namespace {

using OptimRange = void (*)(const OptimArgs& a, int64_t b, int64_t e);

OptimRange optim_range() {
  static const OptimRange f = [] {
#if defined(__x86_64__) && defined(__GNUC__)
    if (std::strcmp(kernel_isa(), "base")) return &optim_avx2::range;
#endif
    return &optim_base::range;
  }();
  return f;
}

}  // namespace

// NOTE: cost 4 per element (Adam's sqrt and division dominate; momentum is memory-bound).
bool optim_parallel(int64_t n) { return will_parallelize(n, 4); }

void run_optim(const OptimArgs& a) {
  const OptimRange f = optim_range();
  auto body = [&a, f](int64_t b, int64_t e) { f(a, b, e); };
  parallel_launch(split_key(kFamilyOptim, a.op, a.dt), a.n, 4, body);
}

}  // namespace mindlite
