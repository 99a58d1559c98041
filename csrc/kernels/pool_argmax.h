// The loops of MaxPoolWithArgmaxV2 and its gradients (kernels/cpu/pool_cpp.py; entry points in
// csrc/bind/pool_argmax_bind.cc), for float / double values and int32 / int64 indices, NCHW,
// all arrays C-contiguous, shapes checked by the caller. The same results as pool_numpy.py (the
// oracle), bit for bit:
// - max_pool_argmax: window (y, q) of plane p reads rows y sh + i dh - top and columns
//   q sw + j dw - left (i < kh, j < kw) of x; positions outside x are padding and never count.
//   out = the window's first maximum in row-major tap order (a later equal value, +0 after -0
//   included, never replaces it); a NaN is the maximum (the first NaN wins and stays);
//   arg = its flat index r W + c within the plane. A window with no position inside x
//   (dilation with ceil_mode) gives out -inf and arg 0, as pool_numpy's masks.
// - max_pool_grad_argmax: dx = 0, then grad[p, o] added at dx[p, arg[p, o]], outputs o of a
//   plane in row-major order. float sums in double and rounds once per element (numpy's
//   np.bincount over float64 weights, then the cast), double sums in double.
// - max_pool_grad_grad_argmax: y[p, o] = grad[p, arg[p, o]] (grad of x's shape).
// The gradients return -1, or the smallest flat position of `arg` whose index lies outside
// [0, H W) (such an element is skipped; the caller raises). Every loop splits the N C planes
// over the thread pool (one contiguous range of planes per thread), so results never depend
// on the thread count.
#pragma once

#include <cstdint>

namespace mindlite {

struct PoolGeom {
  int64_t planes, h, w, oh, ow;              // planes = N C
  int64_t kh, kw, sh, sw, dh, dw, top, left;
};

template <typename T, typename I>
void max_pool_argmax(const T* x, T* out, I* arg, const PoolGeom& g);

template <typename T, typename I>
int64_t max_pool_grad_argmax(const T* grad, const I* arg, T* dx, const PoolGeom& g);

template <typename T, typename I>
int64_t max_pool_grad_grad_argmax(const T* grad, const I* arg, T* y, const PoolGeom& g);

}  // namespace mindlite
