// BatchNorm and BatchNormGrad over (N, C, S) data (S = the product of the spatial axes; every
// array C-contiguous), float32 / float64 data with statistics of the same dtype. Statistics
// and gradient sums accumulate in double, per channel, in (sample, position) order; the
// channels split across the thread pool (results do not depend on the split).
//
//   batch_norm_train   mean, biased variance of each channel (one pass over x with the
//                      channel's first element as shift: sums of d = x - x0 and d * d, so no
//                      cancellation when |mean| >> std), moving statistics updated in place
//                      (moving = (1 - momentum) moving + momentum batch, the unbiased
//                      variance n / (n - 1) for the moving one), then y = x a + b with
//                      a = scale / sqrt(var + eps), b = bias - mean a, and `act` (0 none,
//                      1 ReLU, 2 ReLU6) applied to y in the same pass
//   batch_norm_infer   y = act(x a + b) from the given statistics
//   batch_norm_grad    dbias = sum dy', dscale = sum dy' xh, training
//                      dx = scale r (dy' - dbias / n - xh dscale / n), inference dx = scale r dy',
//                      r = 1 / sqrt(var + eps), xh = (x - mean) r; dy' = dy, or with `act` the
//                      activation's gradient applied first from the forward's output y
//                      (ReLU: dy where y > 0; ReLU6: where 0 < y < 6)
#pragma once

#include <cstdint>

namespace mindlite {

struct BnShape {
  int64_t n, c, s;
};

template <class T>
void batch_norm_train(const T* x, const T* scale, const T* bias, T* moving_mean,
                      T* moving_var, T* y, T* batch_mean, T* batch_var, const BnShape& sh,
                      double eps, double momentum, int act, int threads);

template <class T>
void batch_norm_infer(const T* x, const T* scale, const T* bias, const T* mean, const T* var,
                      T* y, const BnShape& sh, double eps, int act, int threads);

// y: the forward's activated output (read only when act != 0, else may be null).
template <class T>
void batch_norm_grad(const T* dy, const T* x, const T* y, const T* scale, const T* mean,
                     const T* var, T* dx, T* dscale, T* dbias, const BnShape& sh, double eps,
                     bool training, int act, int threads);

// Threads for a BatchNorm pass over `elements` values.
int batch_norm_threads(int64_t elements, int64_t channels);

}  // namespace mindlite
