// The LayerNorm loops (see layer_norm.h): plain loops the compiler vectorises, one row at a
// time, with the GIL held (a Transformer's rows are short: 128-1024 elements).
#include "kernels/layer_norm.h"

#include <cmath>
#include <vector>

namespace mindlite {
namespace {

// sum over c < n of f(c) in double, eight partial sums (independent chains: without
// -ffast-math a single accumulator is one dependent add per element), combined in order.
template <class F>
inline double sum8(int64_t n, F&& f) {
  double p[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t c = 0;
  for (; c + 8 <= n; c += 8) {
    for (int k = 0; k < 8; ++k) p[k] += f(c + k);
  }
  for (; c < n; ++c) p[0] += f(c);
  return ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
}

}  // namespace

template <typename T>
void layer_norm(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* var,
                int64_t rows, int64_t cols, double eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    const double s = sum8(cols, [&](int64_t c) { return static_cast<double>(xr[c]); });
    const T m = static_cast<T>(s / static_cast<double>(cols));
    const double q = sum8(cols, [&](int64_t c) {
      const double d = static_cast<double>(xr[c] - m);
      return d * d;
    });
    const T v = static_cast<T>(q / static_cast<double>(cols));
    const T rs = static_cast<T>(1.0 / std::sqrt(static_cast<double>(v) + eps));
    for (int64_t c = 0; c < cols; ++c) yr[c] = (xr[c] - m) * rs * gamma[c] + beta[c];
    mean[r] = m;
    var[r] = v;
  }
}

template <typename T>
void layer_norm_grad(const T* x, const T* dy, const T* var, const T* mean, const T* gamma,
                     T* dx, T* dgamma, T* dbeta, int64_t rows, int64_t cols, double eps) {
  std::vector<double> dg(static_cast<size_t>(cols), 0.0), db(static_cast<size_t>(cols), 0.0);
  const double inv = 1.0 / static_cast<double>(cols);
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;
    const T* dyr = dy + r * cols;
    T* dxr = dx + r * cols;
    const T m = mean[r];
    const T rs = static_cast<T>(1.0 / std::sqrt(static_cast<double>(var[r]) + eps));
    const double sg = sum8(cols, [&](int64_t c) {
      return static_cast<double>(dyr[c] * gamma[c]);
    });
    const double sgx = sum8(cols, [&](int64_t c) {
      return static_cast<double>(dyr[c] * gamma[c] * ((xr[c] - m) * rs));
    });
    for (int64_t c = 0; c < cols; ++c) {      // independent per column: vectorises
      dg[c] += static_cast<double>(dyr[c] * ((xr[c] - m) * rs));
      db[c] += static_cast<double>(dyr[c]);
    }
    const T mg = static_cast<T>(sg * inv), mgx = static_cast<T>(sgx * inv);
    for (int64_t c = 0; c < cols; ++c) {
      const T xh = (xr[c] - m) * rs;
      dxr[c] = rs * (dyr[c] * gamma[c] - mg - xh * mgx);
    }
  }
  for (int64_t c = 0; c < cols; ++c) {
    dgamma[c] = static_cast<T>(dg[c]);
    dbeta[c] = static_cast<T>(db[c]);
  }
}

#define MINDLITE_LN_INSTANTIATE(T)                                                            \
  template void layer_norm<T>(const T*, const T*, const T*, T*, T*, T*, int64_t, int64_t,      \
                              double);                                                         \
  template void layer_norm_grad<T>(const T*, const T*, const T*, const T*, const T*, T*, T*,   \
                                   T*, int64_t, int64_t, double);

MINDLITE_LN_INSTANTIATE(float)
MINDLITE_LN_INSTANTIATE(double)
#undef MINDLITE_LN_INSTANTIATE

}  // namespace mindlite
