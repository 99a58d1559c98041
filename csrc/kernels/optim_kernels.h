// In-place optimizer updates (optim_kernels.cc): ApplyMomentum, SGD, Adam, AdamWeightDecay on
// the flat C-order data of the variable, its state and the gradient, one pass.
//
// The operation order is kernels/cpu/optim_numpy.py's (the oracle), element by element, so the
// results are bitwise numpy's: the loops are compiled for the baseline instruction set (no FMA
// contraction can occur) and the vectorizer only widens them. Every element is computed the
// same way wherever the launch splits it, so results never depend on the thread count.
#pragma once

#include <cstdint>

namespace mindlite {

enum OptimOp : int { kApplyMomentum = 0, kSgd, kAdam, kAdamWeightDecay, kNumOptim };

extern const char* const kOptimNames[kNumOptim];

// Hyper-parameters, already converted to the variable's dtype by the caller (as numpy's
// dtype.type(x)) and stored as double (exact for float32 values).
struct OptimArgs {
  int op, dt;                 // OptimOp, kF32 / kF64
  int64_t n;
  char* var;                  // ApplyMomentum variable, SGD parameters, Adam var
  char* s1;                   // accumulation / accum / m
  char* s2;                   // SGD stat / v (null for ApplyMomentum)
  const char* grad;
  // ApplyMomentum: lr, momentum, scale (gradient_scale, applied when use_scale)
  // SGD: lr, momentum, one_minus_dampening, weight_decay
  // Adam: lr_t, beta1, one_minus_beta1, one_minus_beta2, eps
  // AdamWeightDecay: lr, one_minus_beta1, one_minus_beta2, eps, decay
  double h[5];
  bool flag;                  // use_nesterov / nesterov; ApplyMomentum: flag2 = use_scale
  bool flag2;
};

bool optim_parallel(int64_t n);
void run_optim(const OptimArgs& a);

}  // namespace mindlite
