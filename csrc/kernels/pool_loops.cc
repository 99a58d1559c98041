// The max-pooling loops (see pool_loops.h): plain loops over raw pointers. Maxima and hits
// are selects, not branches (random data mispredicts a branch on every other element; ReLU
// outputs tie at 0), as in the numba loops they replaced.
#include "kernels/pool_loops.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/thread_pool.h"

namespace mindlite {

namespace {

// m[q] / nan[q] of output columns [qa, qb) of one output row, every tap's column inside the
// row: tap by tap (rows i, then columns j: the scan order of the border loop, so ties and
// signed zeros resolve as there) across the columns, which vectorises (SW the stride, 0 a
// runtime one).
template <typename T, int SW>
void max_row_interior(const T* src, int64_t h, int64_t w, int64_t r0, int64_t c0a, int64_t kh,
                      int64_t kw, int64_t sw_rt, int64_t dh, int64_t dw, int64_t qa,
                      int64_t qb, T* m, T* nan) {
  const int64_t sw = SW ? SW : sw_rt;
  const int64_t cnt = qb - qa;
  T* mq = m + qa;
  T* nq = nan + qa;
  for (int64_t i = 0; i < kh; ++i) {
    const int64_t r = r0 + i * dh;
    if (r < 0 || r >= h) continue;
    for (int64_t j = 0; j < kw; ++j) {
      const T* base = src + r * w + c0a + j * dw;     // column of output qa's tap
      for (int64_t q = 0; q < cnt; ++q) {
        const T v = base[q * sw];
        mq[q] = v > mq[q] ? v : mq[q];
        nq[q] = v != v ? T(1) : nq[q];
      }
    }
  }
}

}  // namespace

// max_pool of the planes [p0, p1) (of n c).
template <typename T>
void max_pool_planes(const T* x, T* out, int64_t p0, int64_t p1, int64_t h, int64_t w,
                     int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                     int64_t dh, int64_t dw, int64_t top, int64_t left) {
  const T ninf = -std::numeric_limits<T>::infinity();
  const T vnan = std::numeric_limits<T>::quiet_NaN();
  // interior output columns [qa, qb): q sw - left >= 0 and q sw - left + (kw - 1) dw < w
  const int64_t qa = std::min<int64_t>(ow, left > 0 ? (left + sw - 1) / sw : 0);
  const int64_t last = w - 1 + left - (kw - 1) * dw;
  const int64_t qb = std::max<int64_t>(qa, std::min<int64_t>(ow, last < 0 ? 0 : last / sw + 1));
  std::vector<T> mbuf(static_cast<size_t>(ow));
  std::vector<T> nbuf(static_cast<size_t>(ow));   // 1 where a NaN was seen
  T* m = mbuf.data();
  T* nanq = nbuf.data();
  for (int64_t nc = p0; nc < p1; ++nc) {
    const T* src = x + nc * h * w;
    T* dst = out + nc * oh * ow;
    for (int64_t y = 0; y < oh; ++y) {
      const int64_t r0 = y * sh - top;
      if (qb > qa) {
        std::fill(m + qa, m + qb, ninf);
        std::fill(nanq + qa, nanq + qb, T(0));
        const int64_t c0a = qa * sw - left;
        if (sw == 2) {
          max_row_interior<T, 2>(src, h, w, r0, c0a, kh, kw, sw, dh, dw, qa, qb, m, nanq);
        } else if (sw == 1) {
          max_row_interior<T, 1>(src, h, w, r0, c0a, kh, kw, sw, dh, dw, qa, qb, m, nanq);
        } else {
          max_row_interior<T, 0>(src, h, w, r0, c0a, kh, kw, sw, dh, dw, qa, qb, m, nanq);
        }
        for (int64_t q = qa; q < qb; ++q) dst[y * ow + q] = nanq[q] != T(0) ? vnan : m[q];
      }
      for (int64_t q = 0; q < ow; ++q) {
        if (q == qa && qb > qa) q = qb;                // the interior is done
        if (q >= ow) break;
        const int64_t c0 = q * sw - left;
        T mv = ninf;
        bool nan = false;
        for (int64_t i = 0; i < kh; ++i) {
          const int64_t r = r0 + i * dh;
          if (r < 0 || r >= h) continue;
          const T* row = src + r * w;
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t col = c0 + j * dw;
            if (col < 0 || col >= w) continue;
            const T v = row[col];
            mv = v > mv ? v : mv;
            nan |= v != v;
          }
        }
        dst[y * ow + q] = nan ? vnan : mv;
      }
    }
  }
}

// NOTE: planes split evenly over the pool from 2**17 window taps (ResNet18's 64 x 112 x 112
// MaxPool at 224: 0.54 ms on one thread); each plane is computed as on one thread.
template <typename T>
void max_pool(const T* x, T* out, int64_t n, int64_t c, int64_t h, int64_t w, int64_t oh,
              int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh,
              int64_t dw, int64_t top, int64_t left) {
  const int64_t planes = n * c;
  const int forced = get_num_threads();
  const bool big = planes * oh * ow * kh * kw >= (int64_t(1) << 17);
  const int want = !big ? 1 : forced > 0 ? forced : max_threads();
  const int nth = static_cast<int>(std::min<int64_t>(want, planes));
  auto body = [&](int64_t p0, int64_t p1) {
    max_pool_planes(x, out, p0, p1, h, w, oh, ow, kh, kw, sh, sw, dh, dw, top, left);
  };
  if (nth <= 1) return body(0, planes);
  struct Ctx {
    decltype(body)* f;
    int64_t planes;
  } ctx{&body, planes};
  pool_run(nth, nth, [](void* p, int i, int k) {
    Ctx& cx = *static_cast<Ctx*>(p);
    (*cx.f)(cx.planes * i / k, cx.planes * (i + 1) / k);
  }, &ctx);
}

template <typename T>
void max_pool_grad(const T* x, const T* out, const T* grad, T* dx, int64_t n, int64_t c,
                   int64_t h, int64_t w, int64_t oh, int64_t ow, int64_t kh, int64_t kw,
                   int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t top, int64_t left) {
  for (int64_t nc = 0; nc < n * c; ++nc) {
    const T* src = x + nc * h * w;
    const T* o_pl = out + nc * oh * ow;
    const T* g_pl = grad + nc * oh * ow;
    T* d = dx + nc * h * w;
    std::fill(d, d + h * w, T(0));
    for (int64_t y = 0; y < oh; ++y) {
      const int64_t r0 = y * sh - top;
      for (int64_t q = 0; q < ow; ++q) {
        const int64_t c0 = q * sw - left;
        const T o = o_pl[y * ow + q];
        const bool o_nan = o != o;
        int64_t hit_at = -1;
        // backwards, with selects: the last hit seen is the first in row-major order
        for (int64_t i = kh - 1; i >= 0; --i) {
          const int64_t r = r0 + i * dh;
          if (r < 0 || r >= h) continue;
          for (int64_t j = kw - 1; j >= 0; --j) {
            const int64_t col = c0 + j * dw;
            if (col < 0 || col >= w) continue;
            const T v = src[r * w + col];
            const bool hit = (v == o) | (o_nan & (v != v));
            hit_at = hit ? r * w + col : hit_at;
          }
        }
        if (hit_at >= 0) d[hit_at] += g_pl[y * ow + q];
      }
    }
  }
}

template <typename T>
void max_pool_2x2(const T* x, T* out, int64_t n, int64_t c, int64_t h, int64_t w, int64_t oh,
                  int64_t ow, int64_t sh, int64_t sw) {
  if constexpr (std::is_same<T, float>::value) {
    if (sh == 2 && sw == 2 && h == 2 * oh && w == 2 * ow &&
        max_pool_2x2_tiled_simd(x, out, n * c * oh, w)) {
      return;
    }
  }
  const T vnan = std::numeric_limits<T>::quiet_NaN();
  for (int64_t nc = 0; nc < n * c; ++nc) {
    const T* src = x + nc * h * w;
    T* dst = out + nc * oh * ow;
    for (int64_t y = 0; y < oh; ++y) {
      const T* r0 = src + y * sh * w;
      const T* r1 = r0 + w;
      for (int64_t q = 0; q < ow; ++q) {
        const int64_t col = q * sw;
        const T a = r0[col], b = r0[col + 1], e = r1[col], f = r1[col + 1];
        T m = a > b ? a : b;
        m = m > e ? m : e;
        m = m > f ? m : f;
        const bool nan = (a != a) | (b != b) | (e != e) | (f != f);
        dst[y * ow + q] = nan ? vnan : m;
      }
    }
  }
}

namespace {

template <typename T> struct BitsOf;
template <> struct BitsOf<float> { typedef uint32_t U; };
template <> struct BitsOf<double> { typedef uint64_t U; };

// g where hit, else +0, as a bit mask: exact (never -0 or NaN from a product) and branch-free.
template <typename T>
inline T masked(T g, bool hit) {
  typedef typename BitsOf<T>::U U;
  U u;
  std::memcpy(&u, &g, sizeof u);
  u &= static_cast<U>(0) - static_cast<U>(hit);
  T r;
  std::memcpy(&r, &u, sizeof r);
  return r;
}

// The windows tile x exactly (stride 2, H = 2 OH, W = 2 OW): the rows of x pair up, row pair
// r (of N C OH) holding the windows of out row r; every x element is written once.
// NOTE: a loop of its own, which GCC vectorises; inside the strided loop below it did not
// (64 x 16 x 8 x 8 float32: 76 -> 34 us; 64 x 16 x 32 x 32: ~1500 -> 280 us).
template <typename T>
void max_pool_grad_2x2_tiled(const T* x, const T* out, const T* grad, T* dx, int64_t rows,
                             int64_t w, int64_t ow) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* t0 = x + r * 2 * w;
    const T* t1 = t0 + w;
    T* d0 = dx + r * 2 * w;
    T* d1 = d0 + w;
    const T* o_row = out + r * ow;
    const T* g_row = grad + r * ow;
    for (int64_t q = 0; q < ow; ++q) {
      const T o = o_row[q], g = g_row[q];
      const T a = t0[2 * q], b = t0[2 * q + 1], e = t1[2 * q], f = t1[2 * q + 1];
      const bool o_nan = o != o;
      // & and |, never && / ||: those short-circuit into mispredicted branches
      const bool ha = (a == o) | (o_nan & (a != a));
      const bool hb = ((b == o) | (o_nan & (b != b))) & !ha;
      const bool he = ((e == o) | (o_nan & (e != e))) & !(ha | hb);
      const bool hf = ((f == o) | (o_nan & (f != f))) & !(ha | hb | he);
      d0[2 * q] = masked(g, ha);
      d0[2 * q + 1] = masked(g, hb);
      d1[2 * q] = masked(g, he);
      d1[2 * q + 1] = masked(g, hf);
    }
  }
}

}  // namespace

template <typename T>
void max_pool_grad_2x2(const T* x, const T* out, const T* grad, T* dx, int64_t n, int64_t c,
                       int64_t h, int64_t w, int64_t oh, int64_t ow, int64_t sh, int64_t sw) {
  if (sh == 2 && sw == 2 && h == 2 * oh && w == 2 * ow) {
    if constexpr (std::is_same<T, float>::value) {
      if (max_pool_grad_2x2_tiled_simd(x, out, grad, dx, n * c * oh, w)) return;
    }
    max_pool_grad_2x2_tiled(x, out, grad, dx, n * c * oh, w, ow);
    return;
  }
  const T zero = T(0);
  for (int64_t nc = 0; nc < n * c; ++nc) {
    const T* src = x + nc * h * w;
    const T* o_pl = out + nc * oh * ow;
    const T* g_pl = grad + nc * oh * ow;
    T* d = dx + nc * h * w;
    std::fill(d, d + h * w, zero);
    for (int64_t y = 0; y < oh; ++y) {
      const int64_t r = y * sh * w;
      for (int64_t q = 0; q < ow; ++q) {
        const int64_t i00 = r + q * sw, i01 = i00 + 1, i10 = i00 + w, i11 = i10 + 1;
        const T o = o_pl[y * ow + q];
        const T a = src[i00], b = src[i01], e = src[i10], f = src[i11];
        const bool o_nan = o != o;
        // & and |, never && / ||: those short-circuit into mispredicted branches
        bool ha = (a == o) | (o_nan & (a != a));
        bool hb = (b == o) | (o_nan & (b != b));
        bool he = (e == o) | (o_nan & (e != e));
        bool hf = (f == o) | (o_nan & (f != f));
        // the first hit, row-major
        hb = hb & !ha;
        he = he & !(ha | hb);
        hf = hf & !(ha | hb | he);
        const T g = g_pl[y * ow + q];
        d[i00] += masked(g, ha);
        d[i01] += masked(g, hb);
        d[i10] += masked(g, he);
        d[i11] += masked(g, hf);
      }
    }
  }
}

#define MINDLITE_POOL_INSTANTIATE(T)                                                          \
  template void max_pool<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t, int64_t,         \
                            int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,     \
                            int64_t, int64_t);                                                 \
  template void max_pool_grad<T>(const T*, const T*, const T*, T*, int64_t, int64_t, int64_t,  \
                                 int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,         \
                                 int64_t, int64_t, int64_t, int64_t, int64_t);                 \
  template void max_pool_2x2<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t, int64_t,     \
                                int64_t, int64_t, int64_t);                                    \
  template void max_pool_grad_2x2<T>(const T*, const T*, const T*, T*, int64_t, int64_t,       \
                                     int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);

MINDLITE_POOL_INSTANTIATE(float)
MINDLITE_POOL_INSTANTIATE(double)
#undef MINDLITE_POOL_INSTANTIATE

}  // namespace mindlite
