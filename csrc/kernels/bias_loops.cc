// The BiasAdd / BiasAddGrad loops (see bias_loops.h): plain loops the compiler vectorises,
// cloned per instruction set (GCC target_clones: AVX-512, AVX2 or the baseline, picked when the
// library loads). They replaced numpy's broadcast add and np.sum, which cost a strided
// broadcast walk and a pairwise reduction over non-contiguous axes (64 x 32 x 4 x 4 float32:
// BiasAddGrad 30-40 us in np.sum).
#include "kernels/bias_loops.h"

#include <cstddef>
#include <vector>

namespace mindlite {
namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ML_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ML_CLONES
#endif

template <typename T>
inline void add_loop(const T* x, const T* bias, T* out, int64_t a, int64_t c, int64_t s) {
  if (s == 1) {
    for (int64_t i = 0; i < a; ++i) {
      const T* xr = x + i * c;
      T* o = out + i * c;
      for (int64_t j = 0; j < c; ++j) o[j] = xr[j] + bias[j];
    }
    return;
  }
  for (int64_t i = 0; i < a * c; ++i) {
    const T b = bias[i % c];
    const T* xr = x + i * s;
    T* o = out + i * s;
    for (int64_t k = 0; k < s; ++k) o[k] = xr[k] + b;
  }
}

// acc[j] (double) += row[j] for the c channels of one (a) row when s == 1, else acc[j] +=
// the sum of the s elements of channel j, each summed in 8 fixed lanes then folded in order.
template <typename T>
inline void grad_loop(const T* d, double* acc, int64_t a, int64_t c, int64_t s) {
  if (s == 1) {
    for (int64_t i = 0; i < a; ++i) {
      const T* r = d + i * c;
      for (int64_t j = 0; j < c; ++j) acc[j] += static_cast<double>(r[j]);
    }
    return;
  }
  for (int64_t i = 0; i < a * c; ++i) {
    const T* r = d + i * s;
    double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t k = 0;
    for (; k + 8 <= s; k += 8) {
      for (int l = 0; l < 8; ++l) lane[l] += static_cast<double>(r[k + l]);
    }
    double t = 0;
    for (; k < s; ++k) t += static_cast<double>(r[k]);
    for (int l = 0; l < 8; ++l) t += lane[l];
    acc[i % c] += t;
  }
}

}  // namespace

ML_CLONES void bias_add_f32(const float* x, const float* bias, float* out, int64_t a,
                            int64_t c, int64_t s) {
  add_loop(x, bias, out, a, c, s);
}

ML_CLONES void bias_add_f64(const double* x, const double* bias, double* out, int64_t a,
                            int64_t c, int64_t s) {
  add_loop(x, bias, out, a, c, s);
}

ML_CLONES void bias_add_grad_f32(const float* dout, float* db, int64_t a, int64_t c,
                                 int64_t s) {
  std::vector<double> acc(static_cast<size_t>(c), 0.0);
  grad_loop(dout, acc.data(), a, c, s);
  for (int64_t j = 0; j < c; ++j) db[j] = static_cast<float>(acc[j]);
}

ML_CLONES void bias_add_grad_f64(const double* dout, double* db, int64_t a, int64_t c,
                                 int64_t s) {
  std::vector<double> acc(static_cast<size_t>(c), 0.0);
  grad_loop(dout, acc.data(), a, c, s);
  for (int64_t j = 0; j < c; ++j) db[j] = acc[j];
}

}  // namespace mindlite
