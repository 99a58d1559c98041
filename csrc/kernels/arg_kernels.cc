// Arg-reductions and logical reductions (see arg_kernels.h). The arg loops (arg_loops.inc) are
// compiled once per instruction set, as softmax.cc's: included under each `#pragma GCC target`
// inside namespace arg_<isa>; kernel_isa() picks the table. The logical loops read bytes in
// fixed 64-byte blocks the baseline vectorizer handles.
#include "kernels/arg_kernels.h"

#include <atomic>
#include <cstring>

#include "kernels/isa_common.h"
#include "kernels/isa_table.h"
#include "kernels/loss_kernels.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {
using ArgExec = void (*)(bool is_max, const char* x, int64_t O, int64_t R, int64_t I, char* idx,
                         bool idx64, char* vals, int nt);
}  // namespace
}  // namespace mindlite

#define ML_ARG_LOOPS
// Each pass uses its ISA's native vector width: GCC expands mask logic on wider vectors lane
// by lane (-Wvector-operation-performance). ABI notes only (no vector value crosses a TU).
#pragma GCC diagnostic ignored "-Wpsabi"
#define ML_VBYTES 64
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma,bmi,bmi2,popcnt,f16c")
namespace mindlite {
namespace arg_avx512 {
#include "kernels/simd_math.h"
#include "kernels/arg_loops.inc"  // NOLINT(build/include): the loops, for this ISA
}  // namespace arg_avx512
}  // namespace mindlite
#pragma GCC pop_options
#undef ML_VBYTES
#define ML_VBYTES 32
#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi,bmi2,popcnt,f16c")
namespace mindlite {
namespace arg_avx2 {
#include "kernels/simd_math.h"
#include "kernels/arg_loops.inc"  // NOLINT(build/include)
}  // namespace arg_avx2
}  // namespace mindlite
#pragma GCC pop_options
#endif
#undef ML_VBYTES
#define ML_VBYTES 16
namespace mindlite {
namespace arg_base {
#include "kernels/simd_math.h"
#include "kernels/arg_loops.inc"  // NOLINT(build/include)
}  // namespace arg_base
}  // namespace mindlite
#undef ML_VBYTES
#undef ML_ARG_LOOPS

namespace mindlite {

const char* const kArgNames[kNumArg] = {"Argmax", "Argmin", "ReduceAll", "ReduceAny"};

namespace {

// Entries by dtype: kF32, kF64, kI32, kI64.
const IsaTable<ArgExec, 4>& arg_table() {
  static const auto t = make_isa_table<ArgExec, 4>(ML_ISA_X86(arg_avx512::fill),
                                                   ML_ISA_X86(arg_avx2::fill), &arg_base::fill);
  return t;
}

constexpr int64_t kLogicBlock = 64;

// Whether x[0, n) holds a False (all) or a True (any); stops at the first 64-byte block
// holding one.
template <bool kAll>
bool has_decider(const uint8_t* __restrict x, int64_t n) {
  int64_t c = 0;
  for (; c + kLogicBlock <= n; c += kLogicBlock) {
    uint8_t d = 0;
    for (int64_t k = 0; k < kLogicBlock; ++k) d |= kAll ? x[c + k] == 0 : x[c + k];
    if (d) return true;
  }
  uint8_t d = 0;
  for (; c < n; ++c) d |= kAll ? x[c] == 0 : x[c];
  return d != 0;
}

// out[o] for rows [b, e) of (O, R, I).
template <bool kAll>
void logical_rows(const uint8_t* x, int64_t R, int64_t I, uint8_t* out, int64_t b, int64_t e) {
  for (int64_t o = b; o < e; ++o) {
    if (I == 1) {
      out[o] = has_decider<kAll>(x + o * R, R) != kAll;
      continue;
    }
    // NOTE: the byte minimum (all) / maximum (any) down the column: one vector op a row, and
    // right for any nonzero byte (a bool view of other data)
    uint8_t* __restrict dst = out + o * I;
    std::memset(dst, kAll ? 0xff : 0, I);
    for (int64_t r = 0; r < R; ++r) {
      const uint8_t* __restrict row = x + (o * R + r) * I;
      for (int64_t i = 0; i < I; ++i) {
        dst[i] = kAll ? (row[i] < dst[i] ? row[i] : dst[i]) : (row[i] > dst[i] ? row[i] : dst[i]);
      }
    }
    for (int64_t i = 0; i < I; ++i) dst[i] = dst[i] != 0;
  }
}

}  // namespace

void run_arg(int op, int dt, const char* x, int64_t O, int64_t R, int64_t I, char* idx,
             bool idx64, char* vals) {
  const int64_t n = O * R * I;
  const uint32_t key = split_key(kFamilyArg, op, dt);
  const SplitDecision d = decide_split(key, n, 1);
  run_timed(key, n, d, [&] {
    arg_table().f[dt](op == kArgMax, x, O, R, I, idx, idx64, vals, d.threads);
  });
}

void run_logical(int op, const uint8_t* x, int64_t O, int64_t R, int64_t I, uint8_t* out) {
  const bool all = op == kReduceAll;
  const int64_t n = O * R * I;
  const uint32_t key = split_key(kFamilyArg, op, kBool);
  const SplitDecision d = decide_split(key, n, 1);
  if (I == 1 && O == 1) {
    // one long run: blocks on threads, any decider settles it (the result is order-free)
    std::atomic<bool> hit{false};
    auto body = [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e && !hit.load(std::memory_order_relaxed); c += 65536) {
        const int64_t len = e - c < 65536 ? e - c : 65536;
        if (all ? has_decider<true>(x + c, len) : has_decider<false>(x + c, len)) hit = true;
      }
    };
    run_timed(key, n, d, [&] { parallel_for(R, d.threads, body); });
    out[0] = hit.load() != all;
    return;
  }
  auto body = [&](int64_t b, int64_t e) {
    if (all) {
      logical_rows<true>(x, R, I, out, b, e);
    } else {
      logical_rows<false>(x, R, I, out, b, e);
    }
  };
  run_timed(key, n, d, [&] { parallel_for(O, d.threads, body); });
}

}  // namespace mindlite
