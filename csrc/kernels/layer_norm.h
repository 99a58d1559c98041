// LayerNorm and LayerNormGrad over the trailing `cols` elements of each of `rows` rows, with a
// gamma / beta of `cols` elements (MindSpore's begin_params_axis == begin_norm_axis, the
// common case; kernels/cpu/norm_cpp.py routes the rest to the numpy kernels). All arrays
// C-contiguous, shapes validated by the caller (csrc/bind/norm_bind.cc).
//   layer_norm:      mean[r], var[r] (biased) of row r, y = (x - mean) / sqrt(var + eps)
//                    * gamma + beta
//   layer_norm_grad: with r = 1 / sqrt(var + eps), xh = (x - mean) r, g = dy gamma:
//                    dx = r (g - mean(g) - xh mean(g xh)), dgamma = sum over rows of
//                    dy xh, dbeta = sum over rows of dy
// Row sums and the column sums over rows accumulate in double (float32 rows of 128 lose
// nothing to the order), each row is two passes over L1-resident data.
#pragma once

#include <cstdint>

namespace mindlite {

template <typename T>
void layer_norm(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* var,
                int64_t rows, int64_t cols, double eps);

template <typename T>
void layer_norm_grad(const T* x, const T* dy, const T* var, const T* mean, const T* gamma,
                     T* dx, T* dgamma, T* dbeta, int64_t rows, int64_t cols, double eps);

}  // namespace mindlite
