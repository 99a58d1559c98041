// The convolution data-movement loops (see conv_loops.h). Plain loops over raw pointers with
// unit-stride inner runs where the layout allows, so the compiler vectorises the copies; the
// table gathers and scatter-adds stay scalar (as in the numba loops they replaced).
#include "kernels/conv_loops.h"

#include <algorithm>

namespace mindlite {

template <typename T>
void conv_pad(const T* x, T* xp, int64_t n, int64_t c, int64_t h, int64_t w, int64_t hp,
              int64_t wp, int64_t top, int64_t left) {
  const int64_t plane = hp * wp;
  for (int64_t nc = 0; nc < n * c; ++nc) {
    T* dst = xp + nc * plane;
    const T* src = x + nc * h * w;
    std::fill(dst, dst + plane, T(0));
    for (int64_t r = 0; r < h; ++r) {
      T* d = dst + (r + top) * wp + left;
      const T* s = src + r * w;
      for (int64_t j = 0; j < w; ++j) d[j] = s[j];
    }
  }
}

template <typename T>
void conv_im2col(const T* xp, T* cols, const int64_t* tab, int64_t n, int64_t c, int64_t hw,
                 int64_t k, int64_t p) {
  const int64_t np = n * p;
  for (int64_t ci = 0; ci < c; ++ci) {
    for (int64_t ki = 0; ki < k; ++ki) {
      const int64_t* idx = tab + ki * p;
      T* row = cols + (ci * k + ki) * np;
      for (int64_t ni = 0; ni < n; ++ni) {
        const T* src = xp + (ni * c + ci) * hw;
        T* dst = row + ni * p;
        for (int64_t q = 0; q < p; ++q) dst[q] = src[idx[q]];
      }
    }
  }
}

template <typename T>
void conv_col2im(const T* cols, T* dxp, const int64_t* tab, int64_t n, int64_t c, int64_t hw,
                 int64_t k, int64_t p) {
  std::fill(dxp, dxp + n * c * hw, T(0));
  const int64_t np = n * p;
  for (int64_t ci = 0; ci < c; ++ci) {
    for (int64_t ki = 0; ki < k; ++ki) {
      const int64_t* idx = tab + ki * p;
      const T* row = cols + (ci * k + ki) * np;
      for (int64_t ni = 0; ni < n; ++ni) {
        T* dst = dxp + (ni * c + ci) * hw;
        const T* src = row + ni * p;
        for (int64_t q = 0; q < p; ++q) dst[idx[q]] += src[q];
      }
    }
  }
}

template <typename T>
void conv_pad_t(const T* x, T* xt, int64_t n, int64_t c, int64_t h, int64_t w, int64_t s,
                int64_t top, int64_t left, int64_t wp) {
  std::fill(xt, xt + c * s * n, T(0));
  for (int64_t ni = 0; ni < n; ++ni) {
    for (int64_t ci = 0; ci < c; ++ci) {
      const T* src = x + (ni * c + ci) * h * w;
      T* plane = xt + ci * s * n + ni;
      for (int64_t r = 0; r < h; ++r) {
        T* d = plane + ((r + top) * wp + left) * n;
        const T* sr = src + r * w;
        for (int64_t j = 0; j < w; ++j) d[j * n] = sr[j];
      }
    }
  }
}

template <typename T>
void conv_im2col_t(const T* xt, T* cols, const int64_t* tab, int64_t c, int64_t s, int64_t n,
                   int64_t k, int64_t p) {
  for (int64_t ci = 0; ci < c; ++ci) {
    const T* plane = xt + ci * s * n;
    for (int64_t ki = 0; ki < k; ++ki) {
      const int64_t* idx = tab + ki * p;
      T* row = cols + (ci * k + ki) * p * n;
      for (int64_t q = 0; q < p; ++q) {
        const T* src = plane + idx[q] * n;
        T* dst = row + q * n;
        for (int64_t j = 0; j < n; ++j) dst[j] = src[j];
      }
    }
  }
}

template <typename T>
void conv_col2im_t(const T* cols, T* dxt, const int64_t* tab, int64_t c, int64_t s, int64_t n,
                   int64_t k, int64_t p) {
  std::fill(dxt, dxt + c * s * n, T(0));
  for (int64_t ci = 0; ci < c; ++ci) {
    T* plane = dxt + ci * s * n;
    for (int64_t ki = 0; ki < k; ++ki) {
      const int64_t* idx = tab + ki * p;
      const T* row = cols + (ci * k + ki) * p * n;
      for (int64_t q = 0; q < p; ++q) {
        T* dst = plane + idx[q] * n;
        const T* src = row + q * n;
        for (int64_t j = 0; j < n; ++j) dst[j] += src[j];
      }
    }
  }
}

template <typename T>
void conv_crop_t(const T* dxt, T* dx, int64_t n, int64_t c, int64_t h, int64_t w, int64_t s,
                 int64_t top, int64_t left, int64_t wp) {
  for (int64_t ni = 0; ni < n; ++ni) {
    for (int64_t ci = 0; ci < c; ++ci) {
      T* dst = dx + (ni * c + ci) * h * w;
      const T* plane = dxt + ci * s * n + ni;
      for (int64_t r = 0; r < h; ++r) {
        const T* sr = plane + ((r + top) * wp + left) * n;
        T* d = dst + r * w;
        for (int64_t j = 0; j < w; ++j) d[j] = sr[j * n];
      }
    }
  }
}

template <typename T>
void conv_to_batch_inner(const T* d, T* dt, int64_t n, int64_t o, int64_t p) {
  for (int64_t ni = 0; ni < n; ++ni) {
    for (int64_t oi = 0; oi < o; ++oi) {
      const T* src = d + (ni * o + oi) * p;
      T* dst = dt + oi * p * n + ni;
      for (int64_t q = 0; q < p; ++q) dst[q * n] = src[q];
    }
  }
}

template <typename T>
void conv_from_batch_inner(const T* dt, T* d, int64_t n, int64_t o, int64_t p) {
  for (int64_t ni = 0; ni < n; ++ni) {
    for (int64_t oi = 0; oi < o; ++oi) {
      const T* src = dt + oi * p * n + ni;
      T* dst = d + (ni * o + oi) * p;
      for (int64_t q = 0; q < p; ++q) dst[q] = src[q * n];
    }
  }
}

template <typename T>
void conv_expand_taps(const T* src, T* dw, const int64_t* live, int64_t o0, int64_t o1,
                      int64_t c, int64_t l, int64_t t) {
  // blocks of rows zeroed by one fill (a memset) and then given their live values while in L1:
  // per-row zero loops became a memset call per 9-value row (ResNet18's 512 x 512 x 3 x 3
  // 1.6x slower than numpy's fill + fancy-index store)
  constexpr int64_t kRows = 512;
  const int64_t r1 = o1 * c;
  for (int64_t r0 = o0 * c; r0 < r1; r0 += kRows) {
    const int64_t re = std::min(r1, r0 + kRows);
    std::fill(dw + r0 * t, dw + re * t, T(0));
    for (int64_t r = r0; r < re; ++r) {
      T* d = dw + r * t;
      const T* v = src + r * l;
      for (int64_t j = 0; j < l; ++j) d[live[j]] = v[j];
    }
  }
}

template <typename T>
void conv_to_channels_last(const T* src, T* dst, int64_t n0, int64_t n1, int64_t o, int64_t p) {
  constexpr int64_t kB = 16;
  for (int64_t ni = n0; ni < n1; ++ni) {
    const T* s = src + ni * o * p;
    T* d = dst + ni * o * p;
    for (int64_t r0 = 0; r0 < o; r0 += kB) {
      const int64_t r1 = std::min(o, r0 + kB);
      for (int64_t c0 = 0; c0 < p; c0 += kB) {
        const int64_t c1 = std::min(p, c0 + kB);
        for (int64_t c = c0; c < c1; ++c) {
          for (int64_t r = r0; r < r1; ++r) d[c * o + r] = s[r * p + c];
        }
      }
    }
  }
}

#define MINDLITE_CONV_INSTANTIATE(T)                                                           \
  template void conv_pad<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t, int64_t,         \
                            int64_t, int64_t, int64_t);                                        \
  template void conv_im2col<T>(const T*, T*, const int64_t*, int64_t, int64_t, int64_t,        \
                               int64_t, int64_t);                                              \
  template void conv_col2im<T>(const T*, T*, const int64_t*, int64_t, int64_t, int64_t,        \
                               int64_t, int64_t);                                              \
  template void conv_pad_t<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t, int64_t,       \
                              int64_t, int64_t, int64_t);                                      \
  template void conv_im2col_t<T>(const T*, T*, const int64_t*, int64_t, int64_t, int64_t,      \
                                 int64_t, int64_t);                                            \
  template void conv_col2im_t<T>(const T*, T*, const int64_t*, int64_t, int64_t, int64_t,      \
                                 int64_t, int64_t);                                            \
  template void conv_crop_t<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t, int64_t,      \
                               int64_t, int64_t, int64_t);                                     \
  template void conv_to_batch_inner<T>(const T*, T*, int64_t, int64_t, int64_t);               \
  template void conv_from_batch_inner<T>(const T*, T*, int64_t, int64_t, int64_t);           \
  template void conv_to_channels_last<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t);    \
  template void conv_expand_taps<T>(const T*, T*, const int64_t*, int64_t, int64_t, int64_t,   \
                                    int64_t, int64_t);

MINDLITE_CONV_INSTANTIATE(float)
MINDLITE_CONV_INSTANTIATE(double)
#undef MINDLITE_CONV_INSTANTIATE

}  // namespace mindlite
