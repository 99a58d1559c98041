// The max-pooling-with-argmax loops (see pool_argmax.h). The forward loops
// (pool_argmax_loops.inc) run tap by tap across an output row's columns with selects, which
// GCC vectorises (indices of the value's width: int32 for float, int64 for double); they are
// compiled for AVX2 and for the baseline, as optim_kernels.cc's, and kernel_isa() picks one.
// The gradients are scatters / gathers. Every loop splits the planes over the pool.
#include "kernels/pool_argmax.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/elementwise.h"
#include "runtime/thread_pool.h"

#define ML_POOL_ARGMAX_LOOPS
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,bmi,bmi2,popcnt")
namespace mindlite {
namespace pool_argmax_avx2 {
#include "kernels/pool_argmax_loops.inc"  // NOLINT(build/include): the loops, for this ISA
}  // namespace pool_argmax_avx2
}  // namespace mindlite
#pragma GCC pop_options
#endif
namespace mindlite {
namespace pool_argmax_base {
#include "kernels/pool_argmax_loops.inc"  // NOLINT(build/include)
}  // namespace pool_argmax_base
}  // namespace mindlite
#undef ML_POOL_ARGMAX_LOOPS

namespace mindlite {

namespace {

using FwdPlanes = void (*)(const void* x, void* out, void* arg, const PoolGeom& g, int64_t b,
                           int64_t e);

// The forward loops for (T, I) of the pass kernel_isa() names.
template <typename T, typename I>
FwdPlanes fwd_loops() {
  constexpr int k = (sizeof(T) == 8) * 2 + (sizeof(I) == 8);
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = std::strcmp(kernel_isa(), "base") != 0;
  if (avx2) {
    using namespace pool_argmax_avx2;  // NOLINT(build/namespaces)
    static const FwdPlanes t[4] = {&fwd_f32_i32, &fwd_f32_i64, &fwd_f64_i32, &fwd_f64_i64};
    return t[k];
  }
#endif
  using namespace pool_argmax_base;  // NOLINT(build/namespaces)
  static const FwdPlanes t[4] = {&fwd_f32_i32, &fwd_f32_i64, &fwd_f64_i32, &fwd_f64_i64};
  return t[k];
}

constexpr uint32_t kFamilyPoolArgmax = 15;  // split-search family (runtime/thread_pool.h)

// Calls body(b, e) on contiguous ranges of [0, planes), one per thread of the split the
// pool's search picks (work ~ planes * per_plane element steps).
template <class F>
void over_planes(uint32_t op, int dt, int64_t planes, int64_t per_plane, F& body) {
  const int cost = static_cast<int>(std::min<int64_t>(std::max<int64_t>(per_plane, 1), 1 << 20));
  const uint32_t key = split_key(kFamilyPoolArgmax, op, static_cast<uint32_t>(dt));
  const SplitDecision d = decide_split(key, planes, cost);
  if (d.threads <= 1) {
    run_timed(key, planes, d, [&] { body(int64_t(0), planes); });
    return;
  }
  struct Ctx {
    F* body;
    int64_t planes;
  } ctx{&body, planes};
  run_timed(key, planes, d, [&] {
    pool_run(d.threads, d.threads, [](void* p, int tid, int nt) {
      Ctx* c = static_cast<Ctx*>(p);
      const int64_t b = c->planes * tid / nt, e = c->planes * (tid + 1) / nt;
      if (b < e) (*c->body)(b, e);
    }, &ctx);
  });
}

// The smallest bad position seen by any thread (-1: none).
void record_bad(std::atomic<int64_t>* bad, int64_t pos) {
  int64_t cur = bad->load(std::memory_order_relaxed);
  while ((cur < 0 || pos < cur) &&
         !bad->compare_exchange_weak(cur, pos, std::memory_order_relaxed)) {
  }
}

template <typename T>
constexpr int dtype_code() {
  return std::is_same<T, float>::value ? 0 : 1;
}

}  // namespace

template <typename T, typename I>
void max_pool_argmax(const T* x, T* out, I* arg, const PoolGeom& g) {
  if (g.planes == 0 || g.oh == 0 || g.ow == 0) return;
  const FwdPlanes f = fwd_loops<T, I>();
  auto body = [&](int64_t b, int64_t e) { f(x, out, arg, g, b, e); };
  over_planes(0, dtype_code<T>() * 2 + (sizeof(I) == 8), g.planes,
              g.oh * g.ow * g.kh * g.kw, body);
}

template <typename T, typename I>
int64_t max_pool_grad_argmax(const T* grad, const I* arg, T* dx, const PoolGeom& g) {
  const int64_t hw = g.h * g.w, ohw = g.oh * g.ow;
  std::atomic<int64_t> bad(-1);
  if (g.planes == 0 || hw == 0) return -1;
  auto body = [&](int64_t b, int64_t e) {
    std::vector<double> acc(std::is_same<T, double>::value ? 0 : static_cast<size_t>(hw));
    for (int64_t p = b; p < e; ++p) {
      const I* a = arg + p * ohw;
      const T* gp = grad + p * ohw;
      T* d = dx + p * hw;
      double* s = std::is_same<T, double>::value ? reinterpret_cast<double*>(d) : acc.data();
      std::fill(s, s + hw, 0.0);
      for (int64_t o = 0; o < ohw; ++o) {
        const int64_t k = static_cast<int64_t>(a[o]);
        if (static_cast<uint64_t>(k) >= static_cast<uint64_t>(hw)) {
          record_bad(&bad, p * ohw + o);
          continue;
        }
        s[k] += static_cast<double>(gp[o]);
      }
      if (!std::is_same<T, double>::value) {
        for (int64_t k = 0; k < hw; ++k) d[k] = static_cast<T>(s[k]);
      }
    }
  };
  over_planes(1, dtype_code<T>() * 2 + (sizeof(I) == 8), g.planes, hw + ohw, body);
  return bad.load();
}

template <typename T, typename I>
int64_t max_pool_grad_grad_argmax(const T* grad, const I* arg, T* y, const PoolGeom& g) {
  const int64_t hw = g.h * g.w, ohw = g.oh * g.ow;
  std::atomic<int64_t> bad(-1);
  if (g.planes == 0 || ohw == 0) return -1;
  auto body = [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const I* a = arg + p * ohw;
      const T* gp = grad + p * hw;
      T* yp = y + p * ohw;
      for (int64_t o = 0; o < ohw; ++o) {
        const int64_t k = static_cast<int64_t>(a[o]);
        if (static_cast<uint64_t>(k) >= static_cast<uint64_t>(hw)) {
          record_bad(&bad, p * ohw + o);
          yp[o] = T(0);
          continue;
        }
        yp[o] = gp[k];
      }
    }
  };
  over_planes(2, dtype_code<T>() * 2 + (sizeof(I) == 8), g.planes, ohw, body);
  return bad.load();
}

#define MINDLITE_ARGMAX_INSTANTIATE(T, I)                                                     \
  template void max_pool_argmax<T, I>(const T*, T*, I*, const PoolGeom&);                     \
  template int64_t max_pool_grad_argmax<T, I>(const T*, const I*, T*, const PoolGeom&);       \
  template int64_t max_pool_grad_grad_argmax<T, I>(const T*, const I*, T*, const PoolGeom&);

MINDLITE_ARGMAX_INSTANTIATE(float, int32_t)
MINDLITE_ARGMAX_INSTANTIATE(float, int64_t)
MINDLITE_ARGMAX_INSTANTIATE(double, int32_t)
MINDLITE_ARGMAX_INSTANTIATE(double, int64_t)
#undef MINDLITE_ARGMAX_INSTANTIATE

}  // namespace mindlite
