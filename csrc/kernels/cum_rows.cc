// CumSum / CumProd rows (see cum_rows.h). NOTE: written in C++ for the thread pool: the numba
// loop's rows ran on one thread below 1M elements (a Python helper thread's round trip cost
// more than half of a 256 x 256 cumsum), 1.85x PyTorch's two threads there.
#include "kernels/cum_rows.h"

#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

// Integers accumulate unsigned (wrapping, as numpy's and numba's stores do; no UB).
template <class T> struct Acc { typedef T type; };
template <> struct Acc<int32_t> { typedef uint32_t type; };
template <> struct Acc<int64_t> { typedef uint64_t type; };

template <class T>
void rows_loop(const CumRowsPlan& p, const T* x, T* out, int64_t r0, int64_t r1) {
  typedef typename Acc<T>::type A;
  const int64_t n = p.n;
  for (int64_t r = r0; r < r1; ++r) {
    const T* xr = x + r * n;
    T* o = out + r * n;
    A acc = p.prod ? A(1) : A(0);
    for (int64_t step = 0; step < n; ++step) {
      const int64_t i = p.reverse ? n - 1 - step : step;
      if (p.exclusive) o[i] = static_cast<T>(acc);
      if (step == 0 && !p.exclusive) {
        acc = static_cast<A>(xr[i]);          // the first element itself (keeps a -0.0)
      } else {
        acc = p.prod ? static_cast<A>(acc * static_cast<A>(xr[i]))
                     : static_cast<A>(acc + static_cast<A>(xr[i]));
      }
      if (!p.exclusive) o[i] = static_cast<T>(acc);
    }
  }
}

template <class T> void run_typed(const CumRowsPlan& p, const char* xp, char* op) {
  const T* x = reinterpret_cast<const T*>(xp);
  T* out = reinterpret_cast<T*>(op);
  auto body = [&](int64_t r0, int64_t r1) { rows_loop<T>(p, x, out, r0, r1); };
  const int64_t elems = p.rows * p.n;
  const uint32_t key = split_key(kFamilyCum, p.prod ? 1 : 0, static_cast<uint32_t>(p.dt));
  const SplitDecision d = decide_split(key, elems, 2);   // a dependent add per element
  if (d.threads <= 1 || p.rows < 2) {
    run_timed(key, elems, d, [&] { body(0, p.rows); });
    return;
  }
  run_timed(key, elems, d, [&] { parallel_for(p.rows, d.threads, body); });
}

}  // namespace

void run_cum_rows(const CumRowsPlan& p, const char* x, char* out) {
  if (p.rows == 0 || p.n == 0) return;
  switch (p.dt) {
    case kCumF32: return run_typed<float>(p, x, out);
    case kCumF64: return run_typed<double>(p, x, out);
    case kCumI32: return run_typed<int32_t>(p, x, out);
    default: return run_typed<int64_t>(p, x, out);
  }
}

}  // namespace mindlite
