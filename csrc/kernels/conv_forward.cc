// The engine's forward convolution (conv_engine.h): per group one GEMM
//   out_g (Og x N P) = W_g (Og x Cg T) @ im2col(x_g) (Cg T x N P),  T = live taps,
// B panels packed straight from x, the epilogue (bias, residual, activation) applied as the
// C buffer is written to NCHW out.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/conv_engine.h"
#include "kernels/conv_gemm.h"
#include "kernels/conv_geom.h"

namespace mindlite {
namespace {

template <class T>
struct FwdCtx {
  const T* x;             // the group's first input channel of sample 0
  int64_t xs_n;           // sample stride of x (C H W)
  int64_t h, w, ow, plane, sh, sw;
  const Tap* taps;
  int64_t nt;
  bool pointwise;         // input position = output position (1 x 1, stride 1, no padding)
  int nr;
  T* out;                 // the group's first output channel of sample 0
  int64_t os_n;           // sample stride of out (O P)
  const T* bias;          // the group's bias, or null
  const T* residual;      // laid out as out (group offset applied), or null
  int act;
};

// B[kk][q] = x value of input channel kk / nt at tap kk % nt for column j0 + q.
template <class T>
void pack_im2col(const void* p, int64_t k0, int64_t kc, int64_t j0, int64_t cols, T* dst) {
  const FwdCtx<T>& c = *static_cast<const FwdCtx<T>*>(p);
  ColRun runs[kGemmMaxNr];
  const int nrun = split_runs(j0, cols, c.plane, c.ow, !c.pointwise, runs);
  const int64_t hw = c.h * c.w;
  int64_t ch = k0 / c.nt, t = k0 - ch * c.nt;
  for (int64_t kk = 0; kk < kc; ++kk) {
    T* d = dst + kk * c.nr;
    const T* xc = c.x + ch * hw;
    if (c.pointwise) {
      for (int r = 0; r < nrun; ++r) {
        std::memcpy(d + runs[r].q0, xc + runs[r].n * c.xs_n + runs[r].p0,
                    runs[r].len * sizeof(T));
      }
    } else {
      const Tap& tap = c.taps[t];
      for (int r = 0; r < nrun; ++r) {
        const ColRun& run = runs[r];
        T* dr = d + run.q0;
        const int64_t iy = run.oy * c.sh + tap.dy;
        if (iy < 0 || iy >= c.h) {
          std::fill(dr, dr + run.len, T(0));
          continue;
        }
        const T* row = xc + run.n * c.xs_n + iy * c.w;
        const int64_t off = run.ox0 * c.sw + tap.dx;
        int64_t lo, hi;
        tap_range(off, c.sw, c.w, run.len, &lo, &hi);
        std::fill(dr, dr + lo, T(0));
        if (c.sw == 1) {
          std::memcpy(dr + lo, row + off + lo, (hi - lo) * sizeof(T));
        } else {
          for (int64_t q = lo; q < hi; ++q) dr[q] = row[off + q * c.sw];
        }
        std::fill(dr + hi, dr + run.len, T(0));
      }
    }
    std::fill(d + cols, d + c.nr, T(0));
    if (++t == c.nt) {
      t = 0;
      ++ch;
    }
  }
}

template <class T>
void store_out(const void* p, int64_t i0, int64_t i1, int64_t j0, int64_t cols, const T* cb) {
  const FwdCtx<T>& c = *static_cast<const FwdCtx<T>*>(p);
  ColRun runs[kGemmMaxNr];
  const int nrun = split_runs(j0, cols, c.plane, c.ow, false, runs);
  for (int64_t i = i0; i < i1; ++i) {
    const T b = c.bias ? c.bias[i] : T(0);
    const T* src = cb + (i - i0) * c.nr;
    for (int r = 0; r < nrun; ++r) {
      const ColRun& run = runs[r];
      const int64_t at = run.n * c.os_n + i * c.plane + run.p0;
      T* d = c.out + at;
      const T* s = src + run.q0;
      if (c.residual) {
        const T* res = c.residual + at;
        for (int64_t q = 0; q < run.len; ++q) d[q] = conv_act((s[q] + b) + res[q], c.act);
      } else if (c.act == kConvActNone) {
        for (int64_t q = 0; q < run.len; ++q) d[q] = s[q] + b;
      } else if (c.act == kConvActRelu) {
        for (int64_t q = 0; q < run.len; ++q) {
          const T v = s[q] + b;
          d[q] = !(v <= T(0)) ? v : T(0);
        }
      } else {
        for (int64_t q = 0; q < run.len; ++q) d[q] = conv_act(s[q] + b, c.act);
      }
    }
  }
}

// The weight rows of group gi restricted to the live taps: (Og, Cg nt), or w itself when
// every tap is live.
template <class T>
const T* live_weights(const T* w, const ConvGeom& g, const std::vector<Tap>& taps,
                      std::vector<T>* buf) {
  const int64_t cg = g.c / g.group, kt = g.kh * g.kw, nt = static_cast<int64_t>(taps.size());
  if (nt == kt) return w;
  buf->resize(static_cast<size_t>(g.o * cg * nt));
  for (int64_t o = 0; o < g.o; ++o) {
    for (int64_t ch = 0; ch < cg; ++ch) {
      for (int64_t t = 0; t < nt; ++t) {
        (*buf)[(o * cg + ch) * nt + t] = w[(o * cg + ch) * kt + taps[t].index];
      }
    }
  }
  return buf->data();
}

}  // namespace

template <class T>
int64_t conv_packed_size(const ConvGeom& g) {
  const int64_t og = g.o / g.group, k = g.c / g.group * static_cast<int64_t>(live_taps(g).size());
  return g.group * packed_a_size<T>(og, k);
}

template <class T>
void conv_pack_weights(const T* w, const ConvGeom& g, T* packed) {
  const std::vector<Tap> taps = live_taps(g);
  std::vector<T> buf;
  const T* lw = live_weights(w, g, taps, &buf);
  const int64_t og = g.o / g.group, k = g.c / g.group * static_cast<int64_t>(taps.size());
  for (int64_t gi = 0; gi < g.group; ++gi) {
    pack_a_rows(lw + gi * og * k, k, og, k, packed + gi * packed_a_size<T>(og, k));
  }
}

template <class T>
void conv_gemm_forward(const T* x, const T* w, const T* packed, T* out, const ConvGeom& g,
                       const ConvEpilogue<T>& ep, int threads) {
  const int64_t plane = g.oh * g.ow, og = g.o / g.group, cg = g.c / g.group;
  if (g.n * g.o * plane == 0) return;
  const std::vector<Tap> taps = live_taps(g);
  const int64_t nt = static_cast<int64_t>(taps.size()), k = cg * nt;
  const int64_t asize = packed_a_size<T>(og, k);
  if (!packed) {
    T* pbuf = conv_buffer<T>(kBufPackedW, g.group * asize);
    conv_pack_weights(w, g, pbuf);
    packed = pbuf;
  }
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 &&
                         g.pl == 0 && g.oh == g.h && g.ow == g.w;
  for (int64_t gi = 0; gi < g.group; ++gi) {
    FwdCtx<T> c{x + gi * cg * g.h * g.w, g.c * g.h * g.w, g.h, g.w, g.ow, plane, g.sh, g.sw,
                taps.data(), nt, pointwise, gemm_tile<T>().nr,
                out + gi * og * plane, g.o * plane, ep.bias ? ep.bias + gi * og : nullptr,
                ep.residual ? ep.residual + gi * og * plane : nullptr, ep.act};
    GemmJob<T> job{og, g.n * plane, k, packed + gi * asize, &pack_im2col<T>, &store_out<T>, &c};
    gemm_parallel(job, threads);
  }
}

template int64_t conv_packed_size<float>(const ConvGeom&);
template int64_t conv_packed_size<double>(const ConvGeom&);
template void conv_pack_weights<float>(const float*, const ConvGeom&, float*);
template void conv_pack_weights<double>(const double*, const ConvGeom&, double*);
template void conv_gemm_forward<float>(const float*, const float*, const float*, float*,
                                       const ConvGeom&, const ConvEpilogue<float>&, int);
template void conv_gemm_forward<double>(const double*, const double*, const double*, double*,
                                        const ConvGeom&, const ConvEpilogue<double>&, int);

}  // namespace mindlite
