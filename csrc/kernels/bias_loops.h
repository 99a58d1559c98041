// The BiasAdd / BiasAddGrad loops of kernels/cpu/nn_cpp.py, float and double. x, out and dout
// are C-contiguous and viewed as (A, C, S): the channel axis C between A leading and S
// trailing elements (NCHW / NCDHW: A = N, S = the spatial size; NHWC and 2-D: S = 1).
// - bias_add: out[a, c, s] = x[a, c, s] + bias[c] (out may be x itself).
// - bias_add_grad: db[c] = the sum of dout[a, c, s] over a and s, accumulated in double
//   (float32 too) in a fixed order, so the result never depends on the split of the work.
#pragma once

#include <cstdint>

namespace mindlite {

void bias_add_f32(const float* x, const float* bias, float* out, int64_t a, int64_t c,
                  int64_t s);
void bias_add_f64(const double* x, const double* bias, double* out, int64_t a, int64_t c,
                  int64_t s);
void bias_add_grad_f32(const float* dout, float* db, int64_t a, int64_t c, int64_t s);
void bias_add_grad_f64(const double* dout, double* db, int64_t a, int64_t c, int64_t s);

}  // namespace mindlite
