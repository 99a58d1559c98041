// The small-convolution kernels (see conv_small.h): a bounds-checked im2col / col2im of one
// sample per group, and the ISA's packed matrix loop for every product. That loop reads the
// right-hand matrix in rows padded to kMatmulPad columns, so the column buffers here have
// rows of ldp = P rounded up to kMatmulPad, the pad columns zero.
#include "kernels/conv_small.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/elementwise.h"

namespace mindlite {
namespace {

int64_t round_up(int64_t v) { return (v + kMatmulPad - 1) / kMatmulPad * kMatmulPad; }

template <typename T>
constexpr int dtype_of() {
  return std::is_same<T, float>::value ? kF32 : kF64;
}

template <typename T>
T* scratch(std::vector<char>* buf, int64_t count) {
  const size_t bytes = static_cast<size_t>(count) * sizeof(T);
  if (buf->size() < bytes) buf->resize(bytes);
  return reinterpret_cast<T*>(buf->data());
}

// The output columns [lo, hi) whose tap x = q sw + off lands inside [0, w).
void in_range(int64_t off, int64_t sw, int64_t w, int64_t ow, int64_t* lo, int64_t* hi) {
  int64_t a = off >= 0 ? 0 : (-off + sw - 1) / sw;
  int64_t b = w - off <= 0 ? 0 : (w - off - 1) / sw + 1;
  *lo = std::min(a, ow);
  *hi = std::max(*lo, std::min(b, ow));
}

// cols (Cg kh kw, ldp): row (c kh + i) kw + j, column y OW + q = x[c, y sh + i dh - pt,
// q sw + j dw - pl], 0 outside the plane; x is one sample's group (Cg, H, W).
template <typename T>
void im2col(const T* x, T* cols, int64_t cg, const ConvGeom& g, int64_t ldp) {
  const int64_t p = g.oh * g.ow;
  for (int64_t c = 0; c < cg; ++c) {
    for (int64_t i = 0; i < g.kh; ++i) {
      for (int64_t j = 0; j < g.kw; ++j) {
        T* row = cols + ((c * g.kh + i) * g.kw + j) * ldp;
        const int64_t xoff = j * g.dw - g.pl;
        int64_t lo, hi;
        in_range(xoff, g.sw, g.w, g.ow, &lo, &hi);
        for (int64_t y = 0; y < g.oh; ++y) {
          T* dst = row + y * g.ow;
          const int64_t iy = y * g.sh + i * g.dh - g.pt;
          if (iy < 0 || iy >= g.h) {
            std::fill(dst, dst + g.ow, T(0));
            continue;
          }
          const T* src = x + (c * g.h + iy) * g.w;
          std::fill(dst, dst + lo, T(0));
          if (g.sw == 1) {
            std::memcpy(dst + lo, src + lo + xoff, (hi - lo) * sizeof(T));
          } else {
            for (int64_t q = lo; q < hi; ++q) dst[q] = src[q * g.sw + xoff];
          }
          std::fill(dst + hi, dst + g.ow, T(0));
        }
        std::fill(row + p, row + ldp, T(0));
      }
    }
  }
}

// The adjoint of im2col: dx (Cg, H, W) = 0, then every in-plane tap adds its column entry, in
// (kernel offset, output position) order per element.
template <typename T>
void col2im(const T* cols, T* dx, int64_t cg, const ConvGeom& g, int64_t ldp) {
  std::fill(dx, dx + cg * g.h * g.w, T(0));
  for (int64_t c = 0; c < cg; ++c) {
    for (int64_t i = 0; i < g.kh; ++i) {
      for (int64_t j = 0; j < g.kw; ++j) {
        const T* row = cols + ((c * g.kh + i) * g.kw + j) * ldp;
        const int64_t xoff = j * g.dw - g.pl;
        int64_t lo, hi;
        in_range(xoff, g.sw, g.w, g.ow, &lo, &hi);
        for (int64_t y = 0; y < g.oh; ++y) {
          const int64_t iy = y * g.sh + i * g.dh - g.pt;
          if (iy < 0 || iy >= g.h) continue;
          const T* src = row + y * g.ow;
          T* dst = dx + (c * g.h + iy) * g.w;
          for (int64_t q = lo; q < hi; ++q) dst[q * g.sw + xoff] += src[q];
        }
      }
    }
  }
}

}  // namespace

template <typename T>
void conv_small_forward(const T* x, const T* w, T* out, const ConvGeom& g) {
  const int64_t cg = g.c / g.group, og = g.o / g.group, kg = cg * g.kh * g.kw;
  const int64_t p = g.oh * g.ow, ldp = round_up(p);
  if (g.n * g.o * p == 0) return;
  if (kg == 0) {
    std::fill(out, out + g.n * g.o * p, T(0));
    return;
  }
  thread_local std::vector<char> buf;
  T* cols = scratch<T>(&buf, kg * ldp);
  const MatmulFn mm = kernel_tables().matmul[dtype_of<T>()];
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t gi = 0; gi < g.group; ++gi) {
      im2col(x + (n * g.c + gi * cg) * g.h * g.w, cols, cg, g, ldp);
      mm(reinterpret_cast<const char*>(w + gi * og * kg), reinterpret_cast<const char*>(cols),
         reinterpret_cast<char*>(out + (n * g.o + gi * og) * p), og, p, kg, ldp);
    }
  }
}

template <typename T>
void conv_small_backprop_input(const T* dout, const T* w, T* dx, const ConvGeom& g) {
  const int64_t cg = g.c / g.group, og = g.o / g.group, kg = cg * g.kh * g.kw;
  const int64_t p = g.oh * g.ow, ldp = round_up(p);
  if (g.n * g.c * g.h * g.w == 0) return;
  if (og == 0 || p == 0) {
    std::fill(dx, dx + g.n * g.c * g.h * g.w, T(0));
    return;
  }
  thread_local std::vector<char> wbuf, dbuf, cbuf;
  T* wt = scratch<T>(&wbuf, g.group * kg * og);  // per group W[g].T (Kg, Og)
  for (int64_t gi = 0; gi < g.group; ++gi) {
    const T* src = w + gi * og * kg;
    T* dst = wt + gi * kg * og;
    for (int64_t r = 0; r < og; ++r) {
      for (int64_t k = 0; k < kg; ++k) dst[k * og + r] = src[r * kg + k];
    }
  }
  T* d = scratch<T>(&dbuf, og * ldp);   // dout[n, g] (Og, P) in rows of ldp
  T* dcols = scratch<T>(&cbuf, kg * p);
  for (int64_t r = 0; r < og; ++r) std::fill(d + r * ldp + p, d + (r + 1) * ldp, T(0));
  const MatmulFn mm = kernel_tables().matmul[dtype_of<T>()];
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t gi = 0; gi < g.group; ++gi) {
      const T* src = dout + (n * g.o + gi * og) * p;
      for (int64_t r = 0; r < og; ++r) std::memcpy(d + r * ldp, src + r * p, p * sizeof(T));
      mm(reinterpret_cast<const char*>(wt + gi * kg * og), reinterpret_cast<const char*>(d),
         reinterpret_cast<char*>(dcols), kg, p, og, ldp);
      col2im(dcols, dx + (n * g.c + gi * cg) * g.h * g.w, cg, g, p);
    }
  }
}

template <typename T>
void conv_small_backprop_filter(const T* dout, const T* x, T* dw, const ConvGeom& g) {
  const int64_t cg = g.c / g.group, og = g.o / g.group, kg = cg * g.kh * g.kw;
  const int64_t p = g.oh * g.ow, np = g.n * p, ldk = round_up(kg);
  if (og * kg == 0) return;
  if (np == 0) {
    std::fill(dw, dw + g.o * kg, T(0));
    return;
  }
  thread_local std::vector<char> abuf, bbuf, cbuf;
  T* a = scratch<T>(&abuf, og * np);     // dout[:, g] as (Og, N P), sample-major columns
  T* b = scratch<T>(&bbuf, np * ldk);    // the column matrix transposed: (N P, Kg) rows of ldk
  T* cols = scratch<T>(&cbuf, kg * p);   // one sample's columns (Kg, P)
  const MatmulFn mm = kernel_tables().matmul[dtype_of<T>()];
  for (int64_t gi = 0; gi < g.group; ++gi) {
    for (int64_t n = 0; n < g.n; ++n) {
      const T* src = dout + (n * g.o + gi * og) * p;
      for (int64_t r = 0; r < og; ++r) std::memcpy(a + r * np + n * p, src + r * p, p * sizeof(T));
      im2col(x + (n * g.c + gi * cg) * g.h * g.w, cols, cg, g, p);
      T* bn = b + n * p * ldk;
      for (int64_t q = 0; q < p; ++q) {
        T* dst = bn + q * ldk;
        for (int64_t k = 0; k < kg; ++k) dst[k] = cols[k * p + q];
        std::fill(dst + kg, dst + ldk, T(0));
      }
    }
    mm(reinterpret_cast<const char*>(a), reinterpret_cast<const char*>(b),
       reinterpret_cast<char*>(dw + gi * og * kg), og, kg, np, ldk);
  }
}

template void conv_small_forward<float>(const float*, const float*, float*, const ConvGeom&);
template void conv_small_forward<double>(const double*, const double*, double*, const ConvGeom&);
template void conv_small_backprop_input<float>(const float*, const float*, float*,
                                               const ConvGeom&);
template void conv_small_backprop_input<double>(const double*, const double*, double*,
                                                const ConvGeom&);
template void conv_small_backprop_filter<float>(const float*, const float*, float*,
                                                const ConvGeom&);
template void conv_small_backprop_filter<double>(const double*, const double*, double*,
                                                 const ConvGeom&);

}  // namespace mindlite
