// Softmax, LogSoftmax and their gradients along the middle axis of C-contiguous (O, R, I)
// arrays (see reduce.h). Loops compiled once per ISA as in reduce.cc (this file includes itself
// under each `#pragma GCC target`), on 64-byte vectors from simd_math.h (vexp) for every ISA.
//
//   Softmax         m = max (NaN sticks), e = exp(x - m), y = e * (1 / sum e)
//   LogSoftmax      y = (x - m) - log(sum e)
//   SoftmaxGrad     dx = y * (dy - sum(dy * y))
//   LogSoftmaxGrad  dx = dy - exp(y) * sum(dy)
// Sums accumulate in float64 (float32 inputs too). I == 1: one thread per row; I > 1: columns
// in blocks of kSmCols, each slice whole on one thread, so results never depend on the split.
#ifndef ML_SOFTMAX_LOOPS
#include <chrono>
#include <cstring>

#include "kernels/isa_common.h"
#include "kernels/reduce.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {
using SoftmaxExec = void (*)(int op, const char* x, const char* dy, char* out, int64_t O,
                             int64_t R, int64_t I, int nt);
constexpr int64_t kSmCols = 2048;  // NOTE: 256 re-walked 2048^2 rows 8x: 1.9x slower
}  // namespace
}  // namespace mindlite

#define ML_SOFTMAX_LOOPS
// 64-byte vectors in the AVX2 / base passes: ABI notes only (no such value crosses a TU)
#pragma GCC diagnostic ignored "-Wpsabi"
#define ML_VBYTES 64
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma,bmi,bmi2,popcnt,f16c")
namespace mindlite {
namespace softmax_avx512 {
#include "kernels/simd_math.h"
#include "kernels/softmax.cc"  // NOLINT(build/include): the loops below, for this ISA
}  // namespace softmax_avx512
}  // namespace mindlite
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi,bmi2,popcnt,f16c")
namespace mindlite {
namespace softmax_avx2 {
#include "kernels/simd_math.h"
#include "kernels/softmax.cc"  // NOLINT(build/include)
}  // namespace softmax_avx2
}  // namespace mindlite
#pragma GCC pop_options
#endif
namespace mindlite {
namespace softmax_base {
#include "kernels/simd_math.h"
#include "kernels/softmax.cc"  // NOLINT(build/include)
}  // namespace softmax_base
}  // namespace mindlite
#undef ML_VBYTES
#undef ML_SOFTMAX_LOOPS

namespace mindlite {

const char* const kSoftmaxNames[kNumSoftmax] = {"Softmax", "LogSoftmax", "SoftmaxGrad",
                                                "LogSoftmaxGrad"};

namespace {

struct SoftmaxTable {
  SoftmaxExec f[2];  // kF32, kF64
};

const SoftmaxTable& softmax_table() {
  static const SoftmaxTable t = [] {
    SoftmaxTable r;
    const char* isa = kernel_isa();
#if defined(__x86_64__) && defined(__GNUC__)
    if (!std::strcmp(isa, "avx512")) {
      softmax_avx512::fill(r.f);
      return r;
    }
    if (!std::strcmp(isa, "avx2")) {
      softmax_avx2::fill(r.f);
      return r;
    }
#endif
    (void)isa;
    softmax_base::fill(r.f);
    return r;
  }();
  return t;
}

}  // namespace

bool softmax_supported(int op, int dt) {
  return op >= 0 && op < kNumSoftmax && (dt == kF32 || dt == kF64);
}

// NOTE: cost 4 per element, as the elementwise Exp (an exp and two more passes).
bool softmax_parallel(int64_t n) { return will_parallelize(n, 4); }

void run_softmax(int op, int dt, const char* x, const char* dy, char* out, int64_t O,
                 int64_t R, int64_t I) {
  const int64_t n = O * R * I;
  if (n == 0) return;
  SplitDecision d{1, false};
  if (softmax_parallel(n)) d = split_decide(split_key(kFamilySoftmax, op, dt), n, 4);
  const int nt = d.threads;
  const bool searching = d.searching;
  const SoftmaxExec f = softmax_table().f[dt == kF64 ? 1 : 0];
  if (!searching) {
    f(op, x, dy, out, O, R, I, nt);
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  f(op, x, dy, out, O, R, I, nt);
  const std::chrono::duration<double> dt_s = std::chrono::steady_clock::now() - t0;
  split_record(split_key(kFamilySoftmax, op, dt), n, nt, dt_s.count());
}

}  // namespace mindlite

#else  // ML_SOFTMAX_LOOPS --------------------------------------------------------------------
// The loops, inside namespace mindlite::softmax_<isa> after simd_math.h: no #include below.

// k <= lanes elements of p; lanes from k on hold `pad`.
template <class V>
static ML_AI V ld(const typename VT<V>::T* p, int64_t k, typename VT<V>::T pad) {
  V v;
  if (k == VT<V>::kLanes) {
    __builtin_memcpy(&v, p, sizeof v);
    return v;
  }
  v = splat<V>(pad);
  for (int64_t l = 0; l < k; ++l) v[l] = p[l];
  return v;
}

template <class V>
static ML_AI void st(typename VT<V>::T* p, V v, int64_t k) {
  if (k == VT<V>::kLanes) {
    __builtin_memcpy(p, &v, sizeof v);
    return;
  }
  for (int64_t l = 0; l < k; ++l) p[l] = v[l];
}

// f(offset, lanes) over [0, n): whole vectors, then one partial vector.
template <class V, class F>
static ML_AI void each(int64_t n, F&& f) {
  constexpr int L = VT<V>::kLanes;
  int64_t c = 0;
  for (; c + L <= n; c += L) f(c, int64_t(L));
  if (c < n) f(c, n - c);
}

// Lanes [0, k) true (all-ones), the rest false.
template <class V>
static ML_AI typename VT<V>::I lanes_below(int64_t k) {
  typename VT<V>::I idx;
  for (int l = 0; l < VT<V>::kLanes; ++l) idx[l] = l;
  return idx < static_cast<typename VT<V>::IS>(k);
}

template <class V> static ML_AI V vmax_nan(V a, V b) { return (b > a) | (b != b) ? b : a; }

// float64 sums of float32 (two 8-lane halves) or float64 lanes.
static ML_AI void acc_add(vf64* a, vf64*, vf64 v) { *a += v; }
// NOTE: lane by lane: GCC 12 lowers __builtin_convertvector float -> float64 2 lanes at a time.
static ML_AI void acc_add(vf64* a, vf64* b, vf32 v) {
  constexpr int H = VT<vf64>::kLanes;
  vf64 lo, hi;
  for (int l = 0; l < H; ++l) {
    lo[l] = v[l];
    hi[l] = v[l + H];
  }
  *a += lo;
  *b += hi;
}

static ML_AI double fold(vf64 a, vf64 b) {
  vf64 v = a + b;
  double s = 0;
  for (int l = 0; l < VT<vf64>::kLanes; ++l) s += v[l];
  return s;
}

// One slice along a contiguous axis (I == 1) of R >= lanes elements. The last partial vector
// is the whole vector ending at R (its lanes already done are recomputed identically and
// left out of the sums); out never aliases x or dy (the binding copies such inputs).
template <class V>
static void row(int op, const typename VT<V>::T* x, const typename VT<V>::T* dy,
                typename VT<V>::T* out, int64_t R) {
  typedef typename VT<V>::T T;
  constexpr int L = VT<V>::kLanes;
  const bool log = op == kLogSoftmax || op == kLogSoftmaxGrad;
  const int64_t tail = R - R % L;  // start of the partial vector, if any
  auto lv = [](const T* p) {
    V v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
  };
  auto sv = [](T* p, V v) { __builtin_memcpy(p, &v, sizeof v); };
  const V fresh_tail = lanes_below<V>(L - R % L) ? splat<V>(0) : splat<V>(1);  // 1: new
  vf64 a = splat<vf64>(0), b = a;
  if (op < kSoftmaxGrad) {
    V mv = lv(x + R - L);
    for (int64_t c = 0; c < tail; c += L) mv = vmax_nan(mv, lv(x + c));
    T m = mv[0];
    for (int l = 1; l < L; ++l) m = (mv[l] > m) | (mv[l] != mv[l]) ? mv[l] : m;
    const V mm = splat<V>(m);
    auto step = [&](int64_t c, bool last) {
      const V d = lv(x + c) - mm;
      V e = vexp(d);
      sv(out + c, log ? d : e);
      if (last) e = e * fresh_tail;
      acc_add(&a, &b, e);
    };
    for (int64_t c = 0; c < tail; c += L) step(c, false);
    if (tail < R) step(R - L, true);
    const double s = fold(a, b);
    const T f = static_cast<T>(log ? __builtin_log(s) : 1.0 / s);
    if (log) {
      for (int64_t c = 0; c < R; ++c) out[c] -= f;
    } else {
      for (int64_t c = 0; c < R; ++c) out[c] *= f;
    }
    return;
  }
  auto sum = [&](int64_t c, bool last) {
    V g = lv(dy + c);
    if (!log) g = g * lv(x + c);
    acc_add(&a, &b, last ? g * fresh_tail : g);
  };
  for (int64_t c = 0; c < tail; c += L) sum(c, false);
  if (tail < R) sum(R - L, true);
  const V f = splat<V>(static_cast<T>(fold(a, b)));
  auto apply = [&](int64_t c) {
    const V y = lv(x + c), g = lv(dy + c);
    sv(out + c, log ? g - vexp(y) * f : y * (g - f));
  };
  for (int64_t c = 0; c < tail; c += L) apply(c);
  if (tail < R) apply(R - L);
}

constexpr int64_t kSmallBlock = 1024;  // elements of short rows handled per block

// n rows of R < lanes elements (flat x, dy, out); t: scratch of kSmallBlock + lanes.
// exp runs over the block as one flat array; the per-row sums are sequential.
template <class V>
static void short_rows(int op, const typename VT<V>::T* x, const typename VT<V>::T* dy,
                       typename VT<V>::T* out, int64_t n, int64_t R, typename VT<V>::T* t) {
  typedef typename VT<V>::T T;
  constexpr int L = VT<V>::kLanes;
  const bool log = op == kLogSoftmax || op == kLogSoftmaxGrad;
  const int64_t len = n * R, padded = (len + L - 1) / L * L;
  if (op == kSoftmaxGrad) {
    for (int64_t o = 0; o < n; ++o) {
      const T *y = x + o * R, *g = dy + o * R;
      double s = 0;
      for (int64_t r = 0; r < R; ++r) s += static_cast<double>(g[r] * y[r]);
      const T f = static_cast<T>(s);
      for (int64_t r = 0; r < R; ++r) out[o * R + r] = y[r] * (g[r] - f);
    }
    return;
  }
  if (op == kLogSoftmaxGrad) {
    for (int64_t j = 0; j < len; ++j) t[j] = x[j];
  } else {
    for (int64_t o = 0; o < n; ++o) {
      const T* v = x + o * R;
      T m = v[0];
      for (int64_t r = 1; r < R; ++r) m = (v[r] > m) | (v[r] != v[r]) ? v[r] : m;
      for (int64_t r = 0; r < R; ++r) t[o * R + r] = v[r] - m;
      if (log) {
        for (int64_t r = 0; r < R; ++r) out[o * R + r] = t[o * R + r];
      }
    }
  }
  for (int64_t j = len; j < padded; ++j) t[j] = 0;
  for (int64_t c = 0; c < padded; c += L) {
    V v;
    __builtin_memcpy(&v, t + c, sizeof v);
    v = vexp(v);
    __builtin_memcpy(t + c, &v, sizeof v);
  }
  for (int64_t o = 0; o < n; ++o) {
    const T* e = t + o * R;
    T* w = out + o * R;
    if (op == kLogSoftmaxGrad) {
      const T* g = dy + o * R;
      double s = 0;
      for (int64_t r = 0; r < R; ++r) s += static_cast<double>(g[r]);
      const T f = static_cast<T>(s);
      for (int64_t r = 0; r < R; ++r) w[r] = g[r] - e[r] * f;
      continue;
    }
    double s = 0;
    for (int64_t r = 0; r < R; ++r) s += static_cast<double>(e[r]);
    if (log) {
      const T f = static_cast<T>(__builtin_log(s));
      for (int64_t r = 0; r < R; ++r) w[r] -= f;
    } else {
      const T f = static_cast<T>(1.0 / s);
      for (int64_t r = 0; r < R; ++r) w[r] = e[r] * f;
    }
  }
}

// w <= kSmCols side-by-side slices (columns c of rows r * I); s, m scratch of kSmCols + 16.
template <class V>
static void cols(int op, const typename VT<V>::T* x, const typename VT<V>::T* dy,
                 typename VT<V>::T* out, int64_t R, int64_t I, int64_t w, double* s,
                 typename VT<V>::T* m) {
  typedef typename VT<V>::T T;
  constexpr int L = VT<V>::kLanes;
  const bool log = op == kLogSoftmax || op == kLogSoftmaxGrad;
  for (int64_t i = 0; i < kSmCols + 16; ++i) s[i] = 0;
  auto add = [&](int64_t c, V v) {
    vf64 a, b;
    __builtin_memcpy(&a, s + c, sizeof a);
    __builtin_memcpy(&b, s + c + VT<vf64>::kLanes, sizeof b);
    acc_add(&a, &b, v);
    __builtin_memcpy(s + c, &a, sizeof a);
    __builtin_memcpy(s + c + VT<vf64>::kLanes, &b, sizeof b);
  };
  if (op < kSoftmaxGrad) {
    each<V>(w, [&](int64_t c, int64_t k) {
      V mv = ld<V>(x + c, k, 0);
      for (int64_t r = 1; r < R; ++r) mv = vmax_nan(mv, ld<V>(x + r * I + c, k, 0));
      __builtin_memcpy(m + c, &mv, sizeof mv);
    });
    for (int64_t r = 0; r < R; ++r) {
      each<V>(w, [&](int64_t c, int64_t k) {
        V mm;
        __builtin_memcpy(&mm, m + c, sizeof mm);
        const V d = ld<V>(x + r * I + c, k, 0) - mm;  // padded lanes: never read back
        const V e = vexp(d);
        st<V>(out + r * I + c, log ? d : e, k);
        add(c, e);
      });
    }
  } else {
    for (int64_t r = 0; r < R; ++r) {
      each<V>(w, [&](int64_t c, int64_t k) {
        const V g = ld<V>(dy + r * I + c, k, 0);
        add(c, log ? g : g * ld<V>(x + r * I + c, k, 0));
      });
    }
  }
  for (int64_t i = 0; i < w; ++i) {
    m[i] = static_cast<T>(op >= kSoftmaxGrad ? s[i] : log ? __builtin_log(s[i]) : 1.0 / s[i]);
  }
  for (int64_t r = 0; r < R; ++r) {
    each<V>(w, [&](int64_t c, int64_t k) {
      V f;
      __builtin_memcpy(&f, m + c, sizeof f);
      const int64_t at = r * I + c;
      V y;
      if (op == kSoftmax) {
        y = ld<V>(out + at, k, 0) * f;
      } else if (op == kLogSoftmax) {
        y = ld<V>(out + at, k, 0) - f;
      } else if (op == kSoftmaxGrad) {
        const V yv = ld<V>(x + at, k, 0);
        y = yv * (ld<V>(dy + at, k, 0) - f);
      } else {
        y = ld<V>(dy + at, k, 0) - vexp(ld<V>(x + at, k, 0)) * f;
      }
      st<V>(out + at, y, k);
    });
  }
  (void)L;
}

template <class V>
static void exec(int op, const char* xp, const char* dyp, char* op_out, int64_t O, int64_t R,
                 int64_t I, int nt) {
  typedef typename VT<V>::T T;
  const T* x = reinterpret_cast<const T*>(xp);
  const T* dy = reinterpret_cast<const T*>(dyp);
  T* out = reinterpret_cast<T*>(op_out);
  const int64_t ncb = I == 1 ? 1 : (I + kSmCols - 1) / kSmCols;
  auto tasks = [&](int64_t b, int64_t e) {
    if (I == 1 && R >= VT<V>::kLanes) {
      for (int64_t o = b; o < e; ++o) row<V>(op, x + o * R, dy ? dy + o * R : nullptr,
                                              out + o * R, R);
      return;
    }
    if (I == 1) {
      alignas(64) T t[kSmallBlock + VT<V>::kLanes];
      const int64_t step = kSmallBlock / R;
      for (int64_t o = b; o < e; o += step) {
        const int64_t n = e - o < step ? e - o : step;
        short_rows<V>(op, x + o * R, dy ? dy + o * R : nullptr, out + o * R, n, R, t);
      }
      return;
    }
    alignas(64) double s[kSmCols + 16];
    alignas(64) T m[kSmCols + 16];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / ncb, c0 = (t % ncb) * kSmCols;
      const int64_t w = I - c0 < kSmCols ? I - c0 : kSmCols;
      const int64_t at = o * R * I + c0;
      cols<V>(op, x + at, dy ? dy + at : nullptr, out + at, R, I, w, s, m);
    }
  };
  const int64_t n = O * ncb;
  if (nt <= 1 || n <= 1) {
    tasks(0, n);
    return;
  }
  if (nt > n) nt = static_cast<int>(n);
  struct Ctx {
    decltype(tasks)* f;
    int64_t n;
  } ctx{&tasks, n};
  pool_run(nt, nt, [](void* c, int t, int k) {
    Ctx* x = static_cast<Ctx*>(c);
    const int64_t b = x->n * t / k, e = x->n * (t + 1) / k;
    if (b < e) (*x->f)(b, e);
  }, &ctx);
}

static void fill(SoftmaxExec* f) {
  f[0] = exec<vf32>;
  f[1] = exec<vf64>;
}

#endif  // ML_SOFTMAX_LOOPS
