// BatchNorm's per-plane loops by instruction set (batch_norm_loops.inc, batch_norm_isa.cc).
#pragma once

#include <cstdint>

namespace mindlite {

// Each loop covers one channel: n planes of s values, `stride` values apart.
template <class T>
struct BnLoops {
  void (*stats)(const T* x, int64_t n, int64_t s, int64_t stride, T shift, double* sum,
                double* sq);
  void (*affine)(const T* x, T* y, int64_t n, int64_t s, int64_t stride, T a, T b, int act);
  void (*grad_sums)(const T* dy, const T* x, const T* y, int64_t n, int64_t s, int64_t stride,
                    T mean, int act, double* sg, double* sgx);
  void (*grad_apply)(const T* dy, const T* x, const T* y, T* dx, int64_t n, int64_t s,
                     int64_t stride, T mean, T k0, T k1, T k2, int act, bool train);
};

// The loops of the instruction set kernel_isa() names.
template <class T>
const BnLoops<T>& bn_loops();

}  // namespace mindlite
