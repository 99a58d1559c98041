// Softmax cross-entropy (dense and sparse labels) and NLL loss loops (loss_kernels.cc, with the
// per-ISA row loops in loss_loops.inc), and the split-search families of the training kernels.
//
// Numerics (the numpy reference kernels/cpu/loss_numpy.py is the oracle): each row subtracts
// its maximum (NaN sticks) before exponentiating; exp is simd_math.h's vexp (within ~2 ulp of
// np.exp); row sums and the sums over rows accumulate in float64. Rows are independent and
// each is computed whole by one thread; sums over rows add per-row float64 values in row
// order afterwards, so every result is the same at every thread count. Each ISA's pass uses its
// native vector width, so the float64 sums may round their last bit differently across ISAs.
#pragma once

#include <cstdint>

#include "runtime/thread_pool.h"

namespace mindlite {

// Split-search families of the training kernels (after thread_pool.h's SplitFamily values).
constexpr uint32_t kFamilyLoss = 4;   // LossOp
constexpr uint32_t kFamilyOptim = 5;  // OptimOp (optim_kernels.h)
constexpr uint32_t kFamilyArg = 6;    // arg_kernels.h

enum LossOp : int { kSce = 0, kSparseSce, kSparseSceGrad, kNumLoss };

// x (N, C) C-contiguous, N >= 1, C >= 1, dt kF32 / kF64 (T below). labels: kSce (N, C) of T;
// sparse ops int64 class indices already checked to lie in [0, C).
//   kSce            loss[n] = -sum_c labels * log_softmax(x), backprop = softmax(x) - labels
//   kSparseSce      *total = sum_n log_softmax(x)[n, labels[n]] (float64; the caller takes
//                   -total / N); loss and backprop unused
//   kSparseSceGrad  backprop = (softmax(x) - one_hot(labels)) / N
// row_buf: N doubles of scratch for kSparseSce.
void run_softmax_ce(int op, int dt, const char* x, const void* labels, char* loss,
                    char* backprop, int64_t N, int64_t C, double* row_buf, double* total);

// NLLLoss / NLLLossGrad on (N, C) log-probabilities, int64 labels (each == ignore_index or in
// [0, C), checked by the caller), class weights (C,). mode: 0 none, 1 sum, 2 mean.
//   nll_loss: per[n] = -w[t] x[n, t] (0 where ignored); *total and *total_w (float64 sums in
//             row order); mean: *total /= *total_w.
//   nll_loss_grad: out = 0; out[n, t] = (-w[t] g[n or 0]) (/ total_weight for mean).
void nll_loss(int dt, const char* x, const int64_t* labels, const char* weight, char* per,
              int64_t N, int64_t C, int64_t ignore_index, int mode, double* total,
              double* total_w);
void nll_loss_grad(int dt, const char* grad, const int64_t* labels, const char* weight,
                   const char* total_weight, char* out, int64_t N, int64_t C,
                   int64_t ignore_index, int mode);

extern const char* const kLossNames[kNumLoss];

}  // namespace mindlite
