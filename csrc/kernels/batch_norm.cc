// BatchNorm's passes (batch_norm.h): per channel, the ISA's plane loops (batch_norm_isa.cc)
// over every sample's plane; channels split across the thread pool.
#include "kernels/batch_norm.h"

#include <algorithm>
#include <cmath>

#include "kernels/batch_norm_isa.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

// NOTE: parallel_for's chunks start on multiples of 64 elements (for elementwise outputs): over
// channels that gave the first thread every channel of a 32- or 64-channel layer and 128 of
// MobileNetV2's 144, so BatchNorm barely used the second thread. Channels split evenly here
// (each channel on one thread, so the bits do not depend on the split).
template <class F>
void for_channels(int64_t c, int threads, F& body) {
  const int nth = static_cast<int>(std::min<int64_t>(threads, c));
  if (nth <= 1) {
    body(int64_t(0), c);
    return;
  }
  struct Ctx {
    F* body;
    int64_t c;
  } ctx{&body, c};
  pool_run(nth, nth, [](void* p, int t, int nt) {
    const Ctx* x = static_cast<const Ctx*>(p);
    (*x->body)(x->c * t / nt, x->c * (t + 1) / nt);
  }, &ctx);
}

}  // namespace

int batch_norm_threads(int64_t elements, int64_t channels) {
  if (channels < 2) return 1;
  const int forced = get_num_threads();
  if (forced > 0) return forced;
  return elements >= (int64_t(1) << 15) ? max_threads() : 1;
}

template <class T>
void batch_norm_train(const T* x, const T* scale, const T* bias, T* moving_mean,
                      T* moving_var, T* y, T* batch_mean, T* batch_var, const BnShape& sh,
                      double eps, double momentum, int act, int threads) {
  const BnLoops<T>& f = bn_loops<T>();
  const int64_t stride = sh.c * sh.s;
  const int64_t count = sh.n * sh.s;
  auto body = [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const T shift = x[c * sh.s];
      double sum = 0, sq = 0;
      f.stats(x + c * sh.s, sh.n, sh.s, stride, shift, &sum, &sq);
      const double dm = sum / count;
      const double var = std::max(0.0, sq / count - dm * dm);
      const double mean = static_cast<double>(shift) + dm;
      const T mt = static_cast<T>(mean), vt = static_cast<T>(var);
      const double unbiased = var * (count / std::max<double>(count - 1, 1));
      moving_mean[c] = static_cast<T>((1 - momentum) * moving_mean[c] + momentum * mean);
      moving_var[c] = static_cast<T>((1 - momentum) * moving_var[c] + momentum * unbiased);
      batch_mean[c] = mt;
      batch_var[c] = vt;
      const T a = static_cast<T>(scale[c] / std::sqrt(static_cast<T>(vt + static_cast<T>(eps))));
      const T b = bias[c] - mt * a;
      f.affine(x + c * sh.s, y + c * sh.s, sh.n, sh.s, stride, a, b, act);
    }
  };
  for_channels(sh.c, threads, body);
}

template <class T>
void batch_norm_infer(const T* x, const T* scale, const T* bias, const T* mean, const T* var,
                      T* y, const BnShape& sh, double eps, int act, int threads) {
  const BnLoops<T>& f = bn_loops<T>();
  const int64_t stride = sh.c * sh.s;
  auto body = [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const T a = static_cast<T>(scale[c] / std::sqrt(static_cast<T>(var[c] + static_cast<T>(eps))));
      const T b = bias[c] - mean[c] * a;
      f.affine(x + c * sh.s, y + c * sh.s, sh.n, sh.s, stride, a, b, act);
    }
  };
  for_channels(sh.c, threads, body);
}

template <class T>
void batch_norm_grad(const T* dy, const T* x, const T* y, const T* scale, const T* mean,
                     const T* var, T* dx, T* dscale, T* dbias, const BnShape& sh, double eps,
                     bool training, int act, int threads) {
  const BnLoops<T>& f = bn_loops<T>();
  const int64_t stride = sh.c * sh.s;
  const double count = static_cast<double>(std::max<int64_t>(sh.n * sh.s, 1));
  auto body = [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      double sg = 0, sgx = 0;
      const int64_t at = c * sh.s;
      f.grad_sums(dy + at, x + at, act ? y + at : nullptr, sh.n, sh.s, stride, mean[c], act,
                  &sg, &sgx);
      const double r = 1.0 / std::sqrt(static_cast<double>(var[c]) + eps);
      const double sr = static_cast<double>(scale[c]) * r;
      dbias[c] = static_cast<T>(sg);
      dscale[c] = static_cast<T>(sgx * r);
      const T k1 = static_cast<T>(sr);
      const T k0 = static_cast<T>(-sr * sg / count);
      const T k2 = static_cast<T>(-sr * r * r * sgx / count);
      f.grad_apply(dy + at, x + at, act ? y + at : nullptr, dx + at, sh.n, sh.s, stride,
                   mean[c], k0, k1, k2, act, training);
    }
  };
  for_channels(sh.c, threads, body);
}

#define ML_BN_INSTANTIATE(T)                                                                  \
  template void batch_norm_train<T>(const T*, const T*, const T*, T*, T*, T*, T*, T*,          \
                                    const BnShape&, double, double, int, int);                \
  template void batch_norm_infer<T>(const T*, const T*, const T*, const T*, const T*, T*,      \
                                    const BnShape&, double, int, int);                        \
  template void batch_norm_grad<T>(const T*, const T*, const T*, const T*, const T*, const T*, \
                                   T*, T*, T*, const BnShape&, double, bool, int, int);
ML_BN_INSTANTIATE(float)
ML_BN_INSTANTIATE(double)
#undef ML_BN_INSTANTIATE

}  // namespace mindlite
