// The tiled 2 x 2 max-pooling loops of float32 (stride 2, H = 2 OH, W = 2 OW: the windows cover
// x exactly), four windows per step in 4-lane vectors (GCC vector extensions: SSE2 at the
// baseline, no ISA dispatch needed). The scalar loops (pool_loops.cc) ran one window per
// iteration over rows of 2-8 windows (the digits CNN's 8 x 8 and 4 x 4 maps): 24 us for a
// 64 x 16 x 8 x 8 forward and 67 for a 64 x 32 x 4 x 4 backward.
// Same results bit for bit as the scalar loops: a window's maximum is max(max(a, b),
// max(e, f)) with max(x, y) = x > y ? x : y, which returns the last of a, b, e, f (row-major)
// equal to the maximum, as the scalar chain does (so the sign of a tied zero matches); a NaN
// in the window gives the quiet NaN; the gradient goes to the first position (row-major)
// equal to the window's output (NaN matching NaN), every other position gets +0.
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/pool_loops.h"

namespace mindlite {
namespace {

typedef float V4 __attribute__((vector_size(16)));
typedef int32_t M4 __attribute__((vector_size(16)));

inline V4 load(const float* p) {
  V4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void store(float* p, V4 v) { std::memcpy(p, &v, sizeof v); }

inline V4 evens(V4 lo, V4 hi) { return __builtin_shuffle(lo, hi, M4{0, 2, 4, 6}); }
inline V4 odds(V4 lo, V4 hi) { return __builtin_shuffle(lo, hi, M4{1, 3, 5, 7}); }
inline V4 vmax(V4 x, V4 y) { return x > y ? x : y; }

// Four windows: the top row's 8 values at t (lo, hi halves), the bottom row's at b.
struct Quad {
  V4 a, b, e, f;  // per window: top-left, top-right, bottom-left, bottom-right
  Quad(V4 t_lo, V4 t_hi, V4 b_lo, V4 b_hi)
      : a(evens(t_lo, t_hi)), b(odds(t_lo, t_hi)), e(evens(b_lo, b_hi)), f(odds(b_lo, b_hi)) {}
};

inline V4 pool(const Quad& q) {
  const V4 m = vmax(vmax(q.a, q.b), vmax(q.e, q.f));
  const M4 nan = (q.a != q.a) | (q.b != q.b) | (q.e != q.e) | (q.f != q.f);
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  return nan ? V4{qnan, qnan, qnan, qnan} : m;
}

// The four windows' gradients, written back interleaved as x's layout.
inline void scatter(const Quad& q, V4 o, V4 g, float* top, float* bottom) {
  const M4 on = o != o;
  const M4 ha = (q.a == o) | (on & (q.a != q.a));
  const M4 hb = ((q.b == o) | (on & (q.b != q.b))) & ~ha;
  const M4 he = ((q.e == o) | (on & (q.e != q.e))) & ~(ha | hb);
  const M4 hf = ((q.f == o) | (on & (q.f != q.f))) & ~(ha | hb | he);
  const M4 gi = (M4)g;                      // the bits of g
  const V4 da = reinterpret_cast<V4>(gi & ha), db = reinterpret_cast<V4>(gi & hb);
  const V4 de = reinterpret_cast<V4>(gi & he), df = reinterpret_cast<V4>(gi & hf);
  store(top, __builtin_shuffle(da, db, M4{0, 4, 1, 5}));
  store(top + 4, __builtin_shuffle(da, db, M4{2, 6, 3, 7}));
  store(bottom, __builtin_shuffle(de, df, M4{0, 4, 1, 5}));
  store(bottom + 4, __builtin_shuffle(de, df, M4{2, 6, 3, 7}));
}

}  // namespace

bool max_pool_2x2_tiled_simd(const float* x, float* out, int64_t rows, int64_t w) {
  if (w % 8 == 0) {                       // per row pair, 4 windows (8 columns) a step
    const int64_t ow = w / 2;
    for (int64_t r = 0; r < rows; ++r) {
      const float* t = x + r * 2 * w;
      for (int64_t q = 0; q < ow; q += 4) {
        const float* p = t + 2 * q;
        store(out + r * ow + q, pool(Quad(load(p), load(p + 4), load(p + w), load(p + w + 4))));
      }
    }
    return true;
  }
  if (w != 4 || rows % 2) return false;   // W = 4: two row pairs (8 values each) a step
  for (int64_t r = 0; r < rows; r += 2) {
    const float* t = x + r * 8;
    store(out + r * 2, pool(Quad(load(t), load(t + 8), load(t + 4), load(t + 12))));
  }
  return true;
}

bool max_pool_grad_2x2_tiled_simd(const float* x, const float* out, const float* grad,
                                  float* dx, int64_t rows, int64_t w) {
  if (w % 8 == 0) {
    const int64_t ow = w / 2;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t base = r * 2 * w;
      for (int64_t q = 0; q < ow; q += 4) {
        const float* p = x + base + 2 * q;
        float* d = dx + base + 2 * q;
        scatter(Quad(load(p), load(p + 4), load(p + w), load(p + w + 4)),
                load(out + r * ow + q), load(grad + r * ow + q), d, d + w);
      }
    }
    return true;
  }
  if (w != 4 || rows % 2) return false;
  for (int64_t r = 0; r < rows; r += 2) {
    const float* t = x + r * 8;
    float* d = dx + r * 8;
    // the two row pairs' top rows are t and t + 8, their bottom rows t + 4 and t + 12: the
    // gradients of the four windows go back as two top halves and two bottom halves
    const Quad q(load(t), load(t + 8), load(t + 4), load(t + 12));
    float top[8], bottom[8];
    scatter(q, load(out + r * 2), load(grad + r * 2), top, bottom);
    std::memcpy(d, top, 4 * sizeof(float));
    std::memcpy(d + 4, bottom, 4 * sizeof(float));
    std::memcpy(d + 8, top + 4, 4 * sizeof(float));
    std::memcpy(d + 12, bottom + 4, 4 * sizeof(float));
  }
  return true;
}

}  // namespace mindlite
