// Softmax cross-entropy and NLL loss loops (see loss_kernels.h). The cross-entropy row loops
// (loss_loops.inc) are compiled once per instruction set, as softmax.cc's: included under each
// `#pragma GCC target` inside namespace loss_<isa>; kernel_isa() picks the table. NLL touches
// one element per row and stays scalar.
#include "kernels/loss_kernels.h"

#include <cstring>

#include "kernels/isa_common.h"
#include "kernels/isa_table.h"

namespace mindlite {
namespace {
using LossExec = void (*)(int op, const char* x, const void* labels, char* loss, char* bp,
                          int64_t N, int64_t C, double* row_buf, int nt);
}  // namespace
}  // namespace mindlite

#define ML_LOSS_LOOPS
// Each pass uses its ISA's native vector width: GCC expands mask logic on wider vectors lane
// by lane (-Wvector-operation-performance). ABI notes only (no vector value crosses a TU).
#pragma GCC diagnostic ignored "-Wpsabi"
#define ML_VBYTES 64
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma,bmi,bmi2,popcnt,f16c")
namespace mindlite {
namespace loss_avx512 {
#include "kernels/simd_math.h"
#include "kernels/loss_loops.inc"  // NOLINT(build/include): the loops, for this ISA
}  // namespace loss_avx512
}  // namespace mindlite
#pragma GCC pop_options
#undef ML_VBYTES
#define ML_VBYTES 32
#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi,bmi2,popcnt,f16c")
namespace mindlite {
namespace loss_avx2 {
#include "kernels/simd_math.h"
#include "kernels/loss_loops.inc"  // NOLINT(build/include)
}  // namespace loss_avx2
}  // namespace mindlite
#pragma GCC pop_options
#endif
#undef ML_VBYTES
#define ML_VBYTES 16
namespace mindlite {
namespace loss_base {
#include "kernels/simd_math.h"
#include "kernels/loss_loops.inc"  // NOLINT(build/include)
}  // namespace loss_base
}  // namespace mindlite
#undef ML_VBYTES
#undef ML_LOSS_LOOPS

namespace mindlite {

const char* const kLossNames[kNumLoss] = {"SoftmaxCrossEntropyWithLogits",
                                          "SparseSoftmaxCrossEntropyWithLogits",
                                          "SparseSoftmaxCrossEntropyWithLogits"};

namespace {

// Entries by dtype: kF32, kF64.
const IsaTable<LossExec, 2>& loss_table() {
  static const auto t = make_isa_table<LossExec, 2>(ML_ISA_X86(loss_avx512::fill),
                                                    ML_ISA_X86(loss_avx2::fill), &loss_base::fill);
  return t;
}

template <class T>
void nll_loss_t(const T* x, const int64_t* labels, const T* weight, T* per, int64_t N,
                int64_t C, int64_t ignore, double* total, double* total_w) {
  double s = 0, sw = 0;
  for (int64_t n = 0; n < N; ++n) {
    const int64_t t = labels[n];
    if (t == ignore) {
      per[n] = T(0);
      continue;
    }
    const T w = weight[t];
    const T v = -w * x[n * C + t];
    per[n] = v;
    sw += w;
    s += v;
  }
  *total = s;
  *total_w = sw;
}

template <class T>
void nll_loss_grad_t(const T* g, const int64_t* labels, const T* weight, T tw, T* out,
                     int64_t N, int64_t C, int64_t ignore, int mode) {
  std::memset(out, 0, sizeof(T) * N * C);
  for (int64_t n = 0; n < N; ++n) {
    const int64_t t = labels[n];
    if (t == ignore) continue;
    T v = -weight[t] * g[mode == 0 ? n : 0];
    if (mode == 2) v = v / tw;
    out[n * C + t] = v;
  }
}

}  // namespace

void run_softmax_ce(int op, int dt, const char* x, const void* labels, char* loss,
                    char* backprop, int64_t N, int64_t C, double* row_buf, double* total) {
  const int64_t n = N * C;
  // NOTE: cost 6 per element: a max, an exp and one or two more passes over the row.
  const uint32_t key = split_key(kFamilyLoss, op, dt);
  const SplitDecision d = decide_split(key, n, 6);
  const LossExec f = loss_table().f[dt == kF64 ? 1 : 0];
  run_timed(key, n, d, [&] { f(op, x, labels, loss, backprop, N, C, row_buf, d.threads); });
  if (op == kSparseSce) {
    double s = 0;
    for (int64_t r = 0; r < N; ++r) s += row_buf[r];
    *total = s;
  }
}

void nll_loss(int dt, const char* x, const int64_t* labels, const char* weight, char* per,
              int64_t N, int64_t C, int64_t ignore_index, int mode, double* total,
              double* total_w) {
  if (dt == kF64) {
    nll_loss_t(reinterpret_cast<const double*>(x), labels,
               reinterpret_cast<const double*>(weight), reinterpret_cast<double*>(per), N, C,
               ignore_index, total, total_w);
  } else {
    nll_loss_t(reinterpret_cast<const float*>(x), labels, reinterpret_cast<const float*>(weight),
               reinterpret_cast<float*>(per), N, C, ignore_index, total, total_w);
  }
  if (mode == 2) *total = *total / *total_w;
}

void nll_loss_grad(int dt, const char* grad, const int64_t* labels, const char* weight,
                   const char* total_weight, char* out, int64_t N, int64_t C,
                   int64_t ignore_index, int mode) {
  if (dt == kF64) {
    nll_loss_grad_t(reinterpret_cast<const double*>(grad), labels,
                    reinterpret_cast<const double*>(weight),
                    *reinterpret_cast<const double*>(total_weight),
                    reinterpret_cast<double*>(out), N, C, ignore_index, mode);
  } else {
    nll_loss_grad_t(reinterpret_cast<const float*>(grad), labels,
                    reinterpret_cast<const float*>(weight),
                    *reinterpret_cast<const float*>(total_weight), reinterpret_cast<float*>(out),
                    N, C, ignore_index, mode);
  }
}

}  // namespace mindlite
