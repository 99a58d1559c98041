// In-place optimizer updates (see optim_kernels.h).
// NOTE: this file must stay at the baseline target: with FMA available, GCC contracts a * b + c
// in C++ by default, which would round differently from numpy's separate operations.
#include "kernels/optim_kernels.h"

#include <chrono>
#include <cmath>

#include "kernels/elementwise.h"
#include "kernels/loss_kernels.h"
#include "runtime/thread_pool.h"

namespace mindlite {

const char* const kOptimNames[kNumOptim] = {"ApplyMomentum", "SGD", "Adam", "AdamWeightDecay"};

namespace {

template <class T>
void momentum_loop(const OptimArgs& a, int64_t b, int64_t e) {
  T* var = reinterpret_cast<T*>(a.var);
  T* acc = reinterpret_cast<T*>(a.s1);
  const T* grad = reinterpret_cast<const T*>(a.grad);
  const T lr = T(a.h[0]), mom = T(a.h[1]), scale = T(a.h[2]), mlr = mom * lr;
  const bool nesterov = a.flag, use_scale = a.flag2;
  for (int64_t i = b; i < e; ++i) {
    const T g = use_scale ? grad[i] * scale : grad[i];
    const T ac = acc[i] * mom + g;
    acc[i] = ac;
    var[i] = nesterov ? var[i] - (g * lr + ac * mlr) : var[i] - ac * lr;
  }
}

template <class T>
void sgd_loop(const OptimArgs& a, int64_t b, int64_t e) {
  T* p = reinterpret_cast<T*>(a.var);
  T* acc = reinterpret_cast<T*>(a.s1);
  T* stat = reinterpret_cast<T*>(a.s2);
  const T* grad = reinterpret_cast<const T*>(a.grad);
  const T lr = T(a.h[0]), mom = T(a.h[1]), omd = T(a.h[2]), wd = T(a.h[3]);
  const bool nesterov = a.flag, decay = a.h[3] > 0;  // numpy tests the Python float
  for (int64_t i = b; i < e; ++i) {
    T g = grad[i];
    if (decay) g = g + p[i] * wd;
    if (mom > 0) {
      T ac;
      if (stat[i] > 0) {
        ac = g;
        stat[i] = T(0);
      } else {
        ac = acc[i] * mom + g * omd;
      }
      acc[i] = ac;
      g = nesterov ? g + ac * mom : ac;
    }
    p[i] = p[i] - g * lr;
  }
}

template <class T>
void adam_loop(const OptimArgs& a, int64_t b, int64_t e) {
  T* var = reinterpret_cast<T*>(a.var);
  T* m = reinterpret_cast<T*>(a.s1);
  T* v = reinterpret_cast<T*>(a.s2);
  const T* grad = reinterpret_cast<const T*>(a.grad);
  const T lr_t = T(a.h[0]), b1 = T(a.h[1]), omb1 = T(a.h[2]), omb2 = T(a.h[3]), eps = T(a.h[4]);
  const bool nesterov = a.flag;
  for (int64_t i = b; i < e; ++i) {
    const T g = grad[i];
    const T mi = m[i] + (g - m[i]) * omb1;
    const T vi = v[i] + (g * g - v[i]) * omb2;
    m[i] = mi;
    v[i] = vi;
    const T num = nesterov ? mi * b1 + g * omb1 : mi;
    var[i] = var[i] - lr_t * num / (std::sqrt(vi) + eps);
  }
}

template <class T>
void adam_wd_loop(const OptimArgs& a, int64_t b, int64_t e) {
  T* var = reinterpret_cast<T*>(a.var);
  T* m = reinterpret_cast<T*>(a.s1);
  T* v = reinterpret_cast<T*>(a.s2);
  const T* grad = reinterpret_cast<const T*>(a.grad);
  const T lr = T(a.h[0]), omb1 = T(a.h[1]), omb2 = T(a.h[2]), eps = T(a.h[3]), decay = T(a.h[4]);
  for (int64_t i = b; i < e; ++i) {
    const T g = grad[i];
    const T mi = m[i] + (g - m[i]) * omb1;
    const T vi = v[i] + (g * g - v[i]) * omb2;
    m[i] = mi;
    v[i] = vi;
    T update = mi / (std::sqrt(vi) + eps);
    if (decay > 0) update = update + var[i] * decay;
    var[i] = var[i] - update * lr;
  }
}

template <class T>
void run_range(const OptimArgs& a, int64_t b, int64_t e) {
  switch (a.op) {
    case kApplyMomentum: momentum_loop<T>(a, b, e); break;
    case kSgd: sgd_loop<T>(a, b, e); break;
    case kAdam: adam_loop<T>(a, b, e); break;
    default: adam_wd_loop<T>(a, b, e); break;
  }
}

}  // namespace

// NOTE: cost 4 per element (Adam's sqrt and division dominate; momentum is memory-bound).
bool optim_parallel(int64_t n) { return will_parallelize(n, 4); }

void run_optim(const OptimArgs& a) {
  auto body = [&a](int64_t b, int64_t e) {
    if (a.dt == kF64) {
      run_range<double>(a, b, e);
    } else {
      run_range<float>(a, b, e);
    }
  };
  parallel_launch(split_key(kFamilyOptim, a.op, a.dt), a.n, 4, body);
}

}  // namespace mindlite
