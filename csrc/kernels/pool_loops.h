// The max-pooling loops of kernels/cpu/pool_cpp.py, for float and double (they replaced the
// numba loops of the former _pool_jit.py, same results bit for bit). x (N, C, H, W), out /
// grad (N, C, OH, OW), dx (N, C, H, W), all C-contiguous, shapes validated by the caller
// (csrc/bind/pool_bind.cc). A window (y, q) reads rows y sh + i dh - top and columns
// q sw + j dw - left (i < kh, j < kw) of x; positions outside x are the padding and never
// count (pool_numpy.py pads with -inf, which never wins and never receives a gradient):
// - max_pool: the window's maximum; a NaN in the window makes it NaN; an all-padding window
//   (ceil_mode overhang) is -inf.
// - max_pool_grad: dx = 0, then grad[y, q] is added at the window's first position
//   (row-major) whose value equals the given out[y, q] (NaN matching NaN); windows in
//   row-major order.
// The _2x2 variants: 2 x 2 windows, dilation 1, no padding, every window inside x.
#pragma once

#include <cstdint>

namespace mindlite {

template <typename T>
void max_pool(const T* x, T* out, int64_t n, int64_t c, int64_t h, int64_t w, int64_t oh,
              int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh,
              int64_t dw, int64_t top, int64_t left);

template <typename T>
void max_pool_grad(const T* x, const T* out, const T* grad, T* dx, int64_t n, int64_t c,
                   int64_t h, int64_t w, int64_t oh, int64_t ow, int64_t kh, int64_t kw,
                   int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t top, int64_t left);

template <typename T>
void max_pool_2x2(const T* x, T* out, int64_t n, int64_t c, int64_t h, int64_t w, int64_t oh,
                  int64_t ow, int64_t sh, int64_t sw);

// float32 tiled windows (stride 2, H = 2 OH, W = 2 OW; `rows` = N C OH) four at a time
// (pool_2x2_simd.cc): false, doing nothing, where W is not a multiple of 8 nor 4 (with an
// even `rows`); the _2x2 loops call them first.
bool max_pool_2x2_tiled_simd(const float* x, float* out, int64_t rows, int64_t w);
bool max_pool_grad_2x2_tiled_simd(const float* x, const float* out, const float* grad,
                                  float* dx, int64_t rows, int64_t w);

template <typename T>
void max_pool_grad_2x2(const T* x, const T* out, const T* grad, T* dx, int64_t n, int64_t c,
                       int64_t h, int64_t w, int64_t oh, int64_t ow, int64_t sh, int64_t sw);

}  // namespace mindlite
