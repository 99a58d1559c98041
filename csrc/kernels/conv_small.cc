// The small-convolution kernels (see conv_small.h): a bounds-checked im2col / col2im of one
// sample per group, and the ISA's packed matrix loop for every product. That loop reads the
// right-hand matrix in rows padded to kMatmulPad columns, so the column buffers here have
// rows of ldp = P rounded up to kMatmulPad, the pad columns zero.
#include "kernels/conv_small.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>


namespace mindlite {
namespace {

template <typename T>
int64_t round_up(int64_t v) {
  constexpr int64_t pad = kConvSmallPadBytes / sizeof(T);
  return (v + pad - 1) / pad * pad;
}

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

// Row offsets p * ld, p in [0, k), in a per-thread buffer.
const int64_t* strided(int64_t k, int64_t ld) {
  thread_local std::vector<int64_t> off;
  if (static_cast<int64_t>(off.size()) < k) off.resize(k);
  for (int64_t p = 0; p < k; ++p) off[p] = p * ld;
  return off.data();
}

// Where implicit_conv finds its operands: `batch` samples of `groups` groups; sample n's
// group gi reads in + n in_n + gi in_g and a + gi a_g, and writes out + n out_n + gi out_g.
struct Steps {
  int64_t batch, groups, in_n, in_g, a_g, out_n, out_g;
};

// Stride-1 convolutions as implicit GEMMs: out (m, oh, ow) = a (m, cin kh kw) times the
// taps of `in` (cin, hin, win) read at (y + i dh - top, x + j dw - left), zero outside, for
// every sample and group of `st`. Each input is copied into a zero-bordered plane (cin, hp,
// wp), hp = oh + dh (kh - 1), wp = ow + dw (kw - 1) (the borders are zeroed once per call:
// every sample overwrites the same interior); the column matrix's row (c, i, j) is then the
// plane's flat slice from (c hp + i dh) wp + j dw over positions y wp + x, so the GEMM reads
// it in place (row offsets) and computes (oh - 1) wp + ow positions, of which the ow per
// row are kept.
template <typename T>
void implicit_conv(const T* in, int64_t cin, int64_t hin, int64_t win, const T* a, int64_t m,
                   T* out, int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t dh,
                   int64_t dw, int64_t top, int64_t left, const Steps& st) {
  const int64_t hp = oh + dh * (kh - 1), wp = ow + dw * (kw - 1), k = cin * kh * kw;
  const int64_t n = (oh - 1) * wp + ow;
  const int64_t slack = 2 * kConvSmallPadBytes / static_cast<int64_t>(sizeof(T));
  thread_local std::vector<char> pbuf, obuf;
  thread_local std::vector<int64_t> offs;
  T* plane = scratch<T>(&pbuf, cin * hp * wp + slack);
  std::fill(plane, plane + cin * hp * wp + slack, T(0));
  if (static_cast<int64_t>(offs.size()) < k) offs.resize(k);
  for (int64_t c = 0; c < cin; ++c) {
    for (int64_t i = 0; i < kh; ++i) {
      for (int64_t j = 0; j < kw; ++j) offs[(c * kh + i) * kw + j] = (c * hp + i * dh) * wp + j * dw;
    }
  }
  T* tmp = wp == ow ? nullptr : scratch<T>(&obuf, m * n);
  const ConvSmallGemm mm = conv_small_gemm_table()[dtype_of<T>()];
  // rows r of `in` land at plane row r + top, columns s at s + left (clipped to the plane)
  const int64_t r0 = std::max<int64_t>(0, -top), r1 = std::min(hin, hp - top);
  const int64_t s0 = std::max<int64_t>(0, -left), s1 = std::min(win, wp - left);
  for (int64_t b = 0; b < st.batch; ++b) {
    for (int64_t gi = 0; gi < st.groups; ++gi) {
      const T* src_n = in + b * st.in_n + gi * st.in_g;
      T* dst_n = out + b * st.out_n + gi * st.out_g;
      for (int64_t c = 0; c < cin; ++c) {
        for (int64_t r = r0; r < r1; ++r) {
          const T* src = src_n + (c * hin + r) * win;
          T* dst = plane + (c * hp + r + top) * wp + left;
          for (int64_t s = s0; s < s1; ++s) dst[s] = src[s];
        }
      }
      if (!tmp) {  // the positions are out's own layout
        mm(a + gi * st.a_g, plane, offs.data(), dst_n, m, n, k);
        continue;
      }
      mm(a + gi * st.a_g, plane, offs.data(), tmp, m, n, k);
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t y = 0; y < oh; ++y) {
          const T* src = tmp + r * n + y * wp;
          T* dst = dst_n + (r * oh + y) * ow;
          for (int64_t x = 0; x < ow; ++x) dst[x] = src[x];
        }
      }
    }
  }
}

}  // namespace

template <typename T>
void conv_small_forward(const T* x, const T* w, T* out, const ConvGeom& g) {
  const int64_t cg = g.c / g.group, og = g.o / g.group, kg = cg * g.kh * g.kw;
  const int64_t p = g.oh * g.ow, ldp = round_up<T>(p);
  if (g.n * g.o * p == 0) return;
  if (kg == 0) {
    std::fill(out, out + g.n * g.o * p, T(0));
    return;
  }
  if (g.sh == 1 && g.sw == 1) {
    const Steps st{g.n, g.group, g.c * g.h * g.w, cg * g.h * g.w, og * kg, g.o * p, og * p};
    implicit_conv(x, cg, g.h, g.w, w, og, out, g.oh, g.ow, g.kh, g.kw, g.dh, g.dw, g.pt, g.pl,
                  st);
    return;
  }
  thread_local std::vector<char> buf;
  T* cols = scratch<T>(&buf, kg * ldp);
  const int64_t* off = strided(kg, ldp);
  const ConvSmallGemm mm = conv_small_gemm_table()[dtype_of<T>()];
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t gi = 0; gi < g.group; ++gi) {
      im2col(x + (n * g.c + gi * cg) * g.h * g.w, cols, cg, g, ldp);
      mm(w + gi * og * kg, cols, off, out + (n * g.o + gi * og) * p, og, p, kg);
    }
  }
}

template <typename T>
void conv_small_backprop_input(const T* dout, const T* w, T* dx, const ConvGeom& g) {
  const int64_t cg = g.c / g.group, og = g.o / g.group, kg = cg * g.kh * g.kw;
  const int64_t p = g.oh * g.ow, ldp = round_up<T>(p), hw = g.h * g.w;
  if (g.n * g.c * hw == 0) return;
  if (og == 0 || p == 0) {
    std::fill(dx, dx + g.n * g.c * hw, T(0));
    return;
  }
  const int64_t ext_h = g.dh * (g.kh - 1), ext_w = g.dw * (g.kw - 1);
  thread_local std::vector<char> wbuf, dbuf, cbuf;
  if (g.sh == 1 && g.sw == 1 && g.pt <= ext_h && g.pl <= ext_w) {
    // a stride-1 convolution of dout with the flipped, transposed weights:
    // wf[g][c, (o kh + i) kw + j] = w[g o', c, kh - 1 - i, kw - 1 - j]
    const int64_t kf = og * g.kh * g.kw;
    T* wf = scratch<T>(&wbuf, g.group * cg * kf);
    for (int64_t gi = 0; gi < g.group; ++gi) {
      for (int64_t o = 0; o < og; ++o) {
        for (int64_t c = 0; c < cg; ++c) {
          const T* src = w + ((gi * og + o) * cg + c) * g.kh * g.kw;
          T* dst = wf + (gi * cg + c) * kf + o * g.kh * g.kw;
          for (int64_t t = 0; t < g.kh * g.kw; ++t) dst[t] = src[g.kh * g.kw - 1 - t];
        }
      }
    }
    const Steps st{g.n, g.group, g.o * p, og * p, cg * kf, g.c * hw, cg * hw};
    implicit_conv(dout, og, g.oh, g.ow, wf, cg, dx, g.h, g.w, g.kh, g.kw, g.dh, g.dw,
                  ext_h - g.pt, ext_w - g.pl, st);
    return;
  }
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
  const int64_t* off = strided(og, ldp);
  const ConvSmallGemm mm = conv_small_gemm_table()[dtype_of<T>()];
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t gi = 0; gi < g.group; ++gi) {
      const T* src = dout + (n * g.o + gi * og) * p;
      for (int64_t r = 0; r < og; ++r) std::memcpy(d + r * ldp, src + r * p, p * sizeof(T));
      mm(wt + gi * kg * og, d, off, dcols, kg, p, og);
      col2im(dcols, dx + (n * g.c + gi * cg) * hw, cg, g, p);
    }
  }
}

namespace {

// The filter gradient for batches of small planes (P < N), columns batch innermost:
// dw[g].T (Kg, Og) = cols (Kg, P N) @ dt (P N, Og), cols[(c, i, j), q N + n] = the tap of
// sample n at output position q, dt[q N + n, o] = dout[n, g Og + o, q]; each element sums
// its terms in (position, sample) order. The input goes first into xt (Cg, hp wp, N): the
// plane every tap reaches (zero outside the image), sample innermost, so each column run is
// one contiguous copy of N values.
template <typename T>
void filter_batch_inner(const T* dout, const T* x, T* dw, const ConvGeom& g) {
  const int64_t cg = g.c / g.group, og = g.o / g.group, kg = cg * g.kh * g.kw;
  const int64_t p = g.oh * g.ow, np = g.n * p, ldo = round_up<T>(og), nb = g.n;
  const int64_t hp = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  const int64_t wp = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  thread_local std::vector<char> xbuf, cbuf, dbuf, obuf;
  T* xt = scratch<T>(&xbuf, cg * hp * wp * nb);
  T* cols = scratch<T>(&cbuf, kg * np);
  T* dt = scratch<T>(&dbuf, np * ldo);
  T* res = scratch<T>(&obuf, kg * og);
  const int64_t* off = strided(np, ldo);
  const ConvSmallGemm mm = conv_small_gemm_table()[dtype_of<T>()];
  const int64_t r0 = std::max<int64_t>(0, -g.pt), r1 = std::min(g.h, hp - g.pt);
  const int64_t s0 = std::max<int64_t>(0, -g.pl), s1 = std::min(g.w, wp - g.pl);
  for (int64_t gi = 0; gi < g.group; ++gi) {
    std::fill(xt, xt + cg * hp * wp * nb, T(0));
    for (int64_t n = 0; n < nb; ++n) {
      for (int64_t c = 0; c < cg; ++c) {
        const T* src = x + (n * g.c + gi * cg + c) * g.h * g.w;
        T* plane = xt + c * hp * wp * nb + n;
        for (int64_t r = r0; r < r1; ++r) {
          for (int64_t q = s0; q < s1; ++q) {
            plane[((r + g.pt) * wp + q + g.pl) * nb] = src[r * g.w + q];
          }
        }
      }
    }
    for (int64_t c = 0; c < cg; ++c) {
      for (int64_t i = 0; i < g.kh; ++i) {
        for (int64_t j = 0; j < g.kw; ++j) {
          T* row = cols + ((c * g.kh + i) * g.kw + j) * np;
          for (int64_t y = 0; y < g.oh; ++y) {
            for (int64_t q = 0; q < g.ow; ++q) {
              const T* src = xt + ((c * hp + y * g.sh + i * g.dh) * wp + q * g.sw + j * g.dw) * nb;
              std::memcpy(row + (y * g.ow + q) * nb, src, nb * sizeof(T));
            }
          }
        }
      }
    }
    for (int64_t n = 0; n < nb; ++n) {
      for (int64_t o = 0; o < og; ++o) {
        const T* src = dout + (n * g.o + gi * og + o) * p;
        for (int64_t q = 0; q < p; ++q) dt[(q * nb + n) * ldo + o] = src[q];
      }
    }
    for (int64_t r = 0; r < np; ++r) std::fill(dt + r * ldo + og, dt + (r + 1) * ldo, T(0));
    mm(cols, dt, off, res, kg, og, np);
    for (int64_t o = 0; o < og; ++o) {
      for (int64_t k = 0; k < kg; ++k) dw[(gi * og + o) * kg + k] = res[k * og + o];
    }
  }
}

}  // namespace

template <typename T>
void conv_small_backprop_filter(const T* dout, const T* x, T* dw, const ConvGeom& g) {
  const int64_t cg = g.c / g.group, og = g.o / g.group, kg = cg * g.kh * g.kw;
  const int64_t p = g.oh * g.ow, np = g.n * p, ldk = round_up<T>(kg);
  if (og * kg == 0) return;
  if (np == 0) {
    std::fill(dw, dw + g.o * kg, T(0));
    return;
  }
  if (p < g.n) {
    filter_batch_inner(dout, x, dw, g);
    return;
  }
  thread_local std::vector<char> abuf, bbuf, cbuf;
  T* a = scratch<T>(&abuf, og * np);     // dout[:, g] as (Og, N P), sample-major columns
  T* b = scratch<T>(&bbuf, np * ldk);    // the column matrix transposed: (N P, Kg) rows of ldk
  T* cols = scratch<T>(&cbuf, kg * p);   // one sample's columns (Kg, P)
  const int64_t* off = strided(np, ldk);
  const ConvSmallGemm mm = conv_small_gemm_table()[dtype_of<T>()];
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
    mm(a, b, off, dw + gi * og * kg, og, kg, np);
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
