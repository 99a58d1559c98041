// Reductions: Sum / Mean / Max / Min / Prod over any axes of any layout (see reduce.h).
//
// The loops (reduce_loops.inc) are compiled once per instruction set: this file
// includes them three times with ML_REDUCE_LOOPS defined, inside namespaces reduce_avx512,
// reduce_avx2 and reduce_base under the matching `#pragma GCC target`; kernel_isa() (the
// elementwise choice, MINDLITE_ISA honoured) picks the table. The vectors are 4 lanes wide
// for every ISA, so results do not depend on the ISA either.
//
// Accumulators: float32 and float64 sums / means in float64 lanes (per run of up to
// kReduceBlock elements, blocks folded pairwise; float32 runs add four inputs per lane in
// float32 before widening; float64 inputs pairwise from 1024-element leaves, numpy's
// accuracy); integer sums in uint64 (wrapping, stored modulo the dtype like numpy's);
// integer means in float64, truncated toward zero; max / min in the input dtype
// with NaN sticking (np.max); products in the input dtype (integers wrap).
#include "kernels/reduce.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/isa_table.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {
using ReduceExec = void (*)(const ReducePlan&);
}  // namespace
}  // namespace mindlite

#define ML_REDUCE_LOOPS
// 64-byte vectors in the AVX2 / base passes: ABI notes only (no such value crosses a TU)
#pragma GCC diagnostic ignored "-Wpsabi"
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma,bmi,bmi2,popcnt,f16c")
namespace mindlite {
namespace reduce_avx512 {
#include "kernels/reduce_loops.inc"  // NOLINT(build/include): the loops, for this ISA
}  // namespace reduce_avx512
}  // namespace mindlite
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi,bmi2,popcnt,f16c")
namespace mindlite {
namespace reduce_avx2 {
#include "kernels/reduce_loops.inc"  // NOLINT(build/include)
}  // namespace reduce_avx2
}  // namespace mindlite
#pragma GCC pop_options
#endif
namespace mindlite {
namespace reduce_base {
#include "kernels/reduce_loops.inc"  // NOLINT(build/include)
}  // namespace reduce_base
}  // namespace mindlite
#undef ML_REDUCE_LOOPS

namespace mindlite {

const char* const kReduceNames[kNumReduce] = {"ReduceSum", "ReduceMean", "ReduceMax",
                                              "ReduceMin", "ReduceProd"};

namespace {

// Entries by op, then dtype; unsupported ones stay null.
using ReduceRow = ReduceExec[kNumDTypes];

const IsaTable<ReduceRow, kNumReduce>& reduce_table() {
  static const auto t = make_isa_table<ReduceRow, kNumReduce>(
      ML_ISA_X86(reduce_avx512::fill), ML_ISA_X86(reduce_avx2::fill), &reduce_base::fill);
  return t;
}

}  // namespace

bool reduce_supported(int op, int dt) {
  return op >= 0 && op < kNumReduce && dt >= 0 && dt < kNumDTypes &&
         reduce_table().f[op][dt] != nullptr;
}

bool reduce_parallel(const ReducePlan& p) { return p.threads > 1; }

void run_reduce(ReducePlan& p) {
  run_timed(split_key(kFamilyReduce, p.op, p.dt), p.total, SplitDecision{p.threads, p.searching},
            [&] { reduce_table().f[p.op][p.dt](p); });
}

}  // namespace mindlite
