// The engine's two backward convolutions (conv_engine.h).
//
// Input gradient, stride 1: dx = the forward convolution of dout with w' (C, Og, kh, kw),
// w'[g Cg + c][o][i][j] = w[g Og + o][c][kh - 1 - i][kw - 1 - j], top / left padding
// dh (kh - 1) - pt and dw (kw - 1) - pl. Other strides: per group the GEMM
// dcols (Cg T x N P) = W_g^T (Cg T x Og) @ dout_g (Og x N P) whose store adds every column
// into dx at its taps (a col2im), the threads on disjoint input channels.
// Filter gradient: per group dw_g[o][(c, t)] = sum over (n, p) of dout[n][o][p] im2col[(c, t)]
// [(n, p)], both rows copied, per chunk of kDotChunk columns, into contiguous zero-padded rows
// and multiplied by the ISA's dot-product tile (conv_gemm.h).
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/conv_engine.h"
#include "kernels/conv_gemm.h"
#include "kernels/conv_geom.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

constexpr int64_t kDotChunk = 1024;   // columns per chunk of the filter gradient
constexpr int kDotRa = 4, kDotRb = 6;

// ---- input gradient, stride > 1 --------------------------------------------------------------
template <class T>
struct InCtx {
  const T* dout;        // the group's first dout channel of sample 0
  int64_t ds_n, plane;  // dout's sample stride (O P), P
  int nr;
  T* dx;                // the group's first dx channel of sample 0
  int64_t xs_n, h, w, ow, sh, sw;
  const Tap* taps;
  int64_t nt;
};

template <class T>
void pack_dout(const void* p, int64_t k0, int64_t kc, int64_t j0, int64_t cols, T* dst) {
  const InCtx<T>& c = *static_cast<const InCtx<T>*>(p);
  ColRun runs[kGemmMaxNr];
  const int nrun = split_runs(j0, cols, c.plane, 0, false, runs);
  for (int64_t kk = 0; kk < kc; ++kk) {
    T* d = dst + kk * c.nr;
    const T* src = c.dout + (k0 + kk) * c.plane;
    for (int r = 0; r < nrun; ++r) {
      std::memcpy(d + runs[r].q0, src + runs[r].n * c.ds_n + runs[r].p0, runs[r].len * sizeof(T));
    }
    std::fill(d + cols, d + c.nr, T(0));
  }
}

template <class T>
void store_col2im(const void* p, int64_t i0, int64_t i1, int64_t j0, int64_t cols,
                  const T* cb) {
  const InCtx<T>& c = *static_cast<const InCtx<T>*>(p);
  ColRun runs[kGemmMaxNr];
  const int nrun = split_runs(j0, cols, c.plane, c.ow, true, runs);
  for (int64_t i = i0; i < i1; ++i) {
    const int64_t ch = i / c.nt;
    const Tap& tap = c.taps[i - ch * c.nt];
    const T* src = cb + (i - i0) * c.nr;
    for (int r = 0; r < nrun; ++r) {
      const ColRun& run = runs[r];
      const int64_t iy = run.oy * c.sh + tap.dy;
      if (iy < 0 || iy >= c.h) continue;
      T* row = c.dx + run.n * c.xs_n + (ch * c.h + iy) * c.w;
      const int64_t off = run.ox0 * c.sw + tap.dx;
      int64_t lo, hi;
      tap_range(off, c.sw, c.w, run.len, &lo, &hi);
      const T* s = src + run.q0;
      for (int64_t q = lo; q < hi; ++q) row[off + q * c.sw] += s[q];
    }
  }
}

// w' of the stride-1 input gradient (see the top), all taps.
template <class T>
void flip_weights(const T* w, const ConvGeom& g, T* wt) {
  const int64_t cg = g.c / g.group, og = g.o / g.group, kt = g.kh * g.kw;
  for (int64_t gi = 0; gi < g.group; ++gi) {
    for (int64_t o = 0; o < og; ++o) {
      for (int64_t ch = 0; ch < cg; ++ch) {
        const T* src = w + ((gi * og + o) * cg + ch) * kt;
        T* dst = wt + ((gi * cg + ch) * og + o) * kt;
        for (int64_t t = 0; t < kt; ++t) dst[kt - 1 - t] = src[t];
      }
    }
  }
}

// ---- filter gradient ---------------------------------------------------------------------------
// The im2col row of input channel ch at `tap` over columns [j0, j0 + len) of x_g.
template <class T>
void im2col_row(const T* x, int64_t xs_n, const ConvGeom& g, int64_t ch, const Tap& tap,
                int64_t j0, int64_t len, bool pointwise, T* dst) {
  const int64_t plane = g.oh * g.ow, hw = g.h * g.w;
  int64_t q = 0;
  while (q < len) {
    const int64_t j = j0 + q, n = j / plane, p = j - n * plane;
    const T* xc = x + n * xs_n + ch * hw;
    if (pointwise) {
      const int64_t run = std::min(plane - p, len - q);
      std::memcpy(dst + q, xc + p, run * sizeof(T));
      q += run;
      continue;
    }
    const int64_t oy = p / g.ow, ox = p - oy * g.ow;
    const int64_t run = std::min(g.ow - ox, len - q);
    T* d = dst + q;
    q += run;
    const int64_t iy = oy * g.sh + tap.dy;
    if (iy < 0 || iy >= g.h) {
      std::fill(d, d + run, T(0));
      continue;
    }
    const T* row = xc + iy * g.w;
    const int64_t off = ox * g.sw + tap.dx;
    int64_t lo, hi;
    tap_range(off, g.sw, g.w, run, &lo, &hi);
    std::fill(d, d + lo, T(0));
    if (g.sw == 1) {
      std::memcpy(d + lo, row + off + lo, (hi - lo) * sizeof(T));
    } else {
      for (int64_t r = lo; r < hi; ++r) d[r] = row[off + r * g.sw];
    }
    std::fill(d + hi, d + run, T(0));
  }
}

template <class T>
struct FilterCtx {
  const T* dout;          // the group's first dout channel of sample 0
  const T* x;             // the group's first x channel of sample 0
  T* dw;                  // the group's first weight row
  const ConvGeom* g;
  const Tap* taps;
  int64_t nt, og, cg, kt, nblocks;
  bool pointwise;
  PoolErrors* errors;
};

// Rows [b0, b1) of 6-row blocks of the (Cg nt) im2col rows, every output channel.
template <class T>
void filter_blocks(const FilterCtx<T>& c, int64_t b0, int64_t b1) {
  const ConvGeom& g = *c.g;
  const GemmDot<T>& dot = gemm_dot<T>();
  const int64_t k = c.cg * c.nt, plane = g.oh * g.ow, total = g.n * plane;
  const int64_t r0 = b0 * kDotRb, r1 = std::min(k, b1 * kDotRb);
  if (r1 <= r0) return;
  const int64_t chunk = std::min(kDotChunk, round_up(total, dot.lanes));
  T* dbuf = conv_buffer<T>(kBufDoutRows, c.og * chunk);
  T* xbuf = conv_buffer<T>(kBufColRows, (r1 - r0) * chunk);
  for (int64_t j0 = 0; j0 < total; j0 += chunk) {
    const int64_t len = std::min(chunk, total - j0), lp = round_up(len, dot.lanes);
    for (int64_t o = 0; o < c.og; ++o) {         // dout rows, contiguous over the chunk
      T* d = dbuf + o * chunk;
      int64_t q = 0;
      while (q < len) {
        const int64_t j = j0 + q, n = j / plane, p = j - n * plane;
        const int64_t run = std::min(plane - p, len - q);
        std::memcpy(d + q, c.dout + (n * g.o + o) * plane + p, run * sizeof(T));
        q += run;
      }
      std::fill(d + len, d + lp, T(0));
    }
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t ch = r / c.nt;
      T* d = xbuf + (r - r0) * chunk;
      im2col_row(c.x, g.c * g.h * g.w, g, ch, c.taps[r - ch * c.nt], j0, len, c.pointwise, d);
      std::fill(d + len, d + lp, T(0));
    }
    for (int64_t r = r0; r < r1; r += kDotRb) {
      const int rb = static_cast<int>(std::min<int64_t>(kDotRb, r1 - r));
      for (int64_t o = 0; o < c.og; o += kDotRa) {
        const int ra = static_cast<int>(std::min<int64_t>(kDotRa, c.og - o));
        T tile[kDotRa * kDotRb];
        dot.dot(lp, dbuf + o * chunk, chunk, ra, xbuf + (r - r0) * chunk, chunk,
                rb, tile, kDotRb);
        for (int a = 0; a < ra; ++a) {
          for (int b = 0; b < rb; ++b) {
            const int64_t kk = r + b, ch = kk / c.nt;
            T& out = c.dw[((o + a) * c.cg + ch) * c.kt + c.taps[kk - ch * c.nt].index];
            out = j0 == 0 ? tile[a * kDotRb + b] : out + tile[a * kDotRb + b];
          }
        }
      }
    }
  }
}

}  // namespace

template <class T>
void conv_gemm_backprop_input(const T* dout, const T* w, T* dx, const ConvGeom& g,
                              int threads) {
  const int64_t cg = g.c / g.group, og = g.o / g.group, kt = g.kh * g.kw;
  const int64_t plane = g.oh * g.ow;
  if (g.n * g.c * g.h * g.w == 0) return;
  if (g.sh == 1 && g.sw == 1) {
    T* wt = conv_buffer<T>(kBufFlippedW, g.c * og * kt);
    flip_weights(w, g, wt);
    const ConvGeom t{g.n, g.o, g.oh, g.ow, g.c, g.kh, g.kw, g.h, g.w, 1, 1, g.dh, g.dw,
                     g.dh * (g.kh - 1) - g.pt, g.dw * (g.kw - 1) - g.pl, g.group};
    conv_gemm_forward<T>(dout, wt, nullptr, dx, t, ConvEpilogue<T>{}, threads);
    return;
  }
  std::fill(dx, dx + g.n * g.c * g.h * g.w, T(0));
  const std::vector<Tap> taps = live_taps(g);
  const int64_t nt = static_cast<int64_t>(taps.size()), k = cg * nt;
  if (nt == 0 || plane == 0) return;
  T* lw = conv_buffer<T>(kBufLiveW, og * k);
  T* apack = conv_buffer<T>(kBufPackedWt, packed_a_size<T>(k, og));
  for (int64_t gi = 0; gi < g.group; ++gi) {
    for (int64_t o = 0; o < og; ++o) {
      for (int64_t ch = 0; ch < cg; ++ch) {
        for (int64_t t = 0; t < nt; ++t) {
          lw[(o * cg + ch) * nt + t] = w[((gi * og + o) * cg + ch) * kt + taps[t].index];
        }
      }
    }
    pack_a_cols(lw, k, k, og, apack);
    InCtx<T> c{dout + gi * og * plane, g.o * plane, plane, gemm_tile<T>().nr,
               dx + gi * cg * g.h * g.w, g.c * g.h * g.w, g.h, g.w, g.ow, g.sh, g.sw,
               taps.data(), nt};
    GemmJob<T> job{k, g.n * plane, og, apack, &pack_dout<T>, &store_col2im<T>, &c};
    gemm_parallel(job, threads, nt);
  }
}

template <class T>
void conv_gemm_backprop_filter(const T* dout, const T* x, T* dw, const ConvGeom& g,
                               int threads) {
  const int64_t cg = g.c / g.group, og = g.o / g.group, kt = g.kh * g.kw;
  const int64_t total = g.n * g.oh * g.ow;
  const std::vector<Tap> taps = live_taps(g);
  const int64_t nt = static_cast<int64_t>(taps.size());
  if (nt < kt || total == 0) std::fill(dw, dw + g.o * cg * kt, T(0));
  if (nt == 0 || total == 0 || cg == 0) return;
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 &&
                         g.pl == 0 && g.oh == g.h && g.ow == g.w;
  const int64_t nblocks = (cg * nt + kDotRb - 1) / kDotRb;
  for (int64_t gi = 0; gi < g.group; ++gi) {
    FilterCtx<T> c{dout + gi * og * g.oh * g.ow, x + gi * cg * g.h * g.w, dw + gi * og * cg * kt,
                   &g, taps.data(), nt, og, cg, kt, nblocks, pointwise, nullptr};
    const int nth = static_cast<int>(std::min<int64_t>(threads, nblocks));
    if (nth <= 1) {
      filter_blocks(c, 0, nblocks);
      continue;
    }
    PoolErrors errors;
    c.errors = &errors;
    pool_run(nth, nth, [](void* p, int tid, int n) {
      const FilterCtx<T>& cx = *static_cast<const FilterCtx<T>*>(p);
      cx.errors->guard([&] {
        filter_blocks(cx, cx.nblocks * tid / n, cx.nblocks * (tid + 1) / n);
      });
    }, &c);
    errors.rethrow();
  }
}

template void conv_gemm_backprop_input<float>(const float*, const float*, float*,
                                              const ConvGeom&, int);
template void conv_gemm_backprop_input<double>(const double*, const double*, double*,
                                               const ConvGeom&, int);
template void conv_gemm_backprop_filter<float>(const float*, const float*, float*,
                                               const ConvGeom&, int);
template void conv_gemm_backprop_filter<double>(const double*, const double*, double*,
                                                const ConvGeom&, int);

}  // namespace mindlite
