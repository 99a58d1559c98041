// The engine's two backward convolutions (conv_engine.h).
//
// Input gradient, stride 1: dx = the forward convolution of dout with w' (C, Og, kh, kw),
// w'[g Cg + c][o][i][j] = w[g Og + o][c][kh - 1 - i][kw - 1 - j], top / left padding
// dh (kh - 1) - pt and dw (kw - 1) - pl. Other strides: per group the GEMM
// dcols (Cg T x N P) = W_g^T (Cg T x Og) @ dout_g (Og x N P) whose store adds every column
// into dx at its taps (a col2im), the threads on disjoint input channels.
// Filter gradient: per group dw_g[o][(c, t)] = sum over (n, p) of dout[n][o][p] im2col[(c, t)]
// [(n, p)]: per chunk of columns (n, p), dout's rows and the im2col rows are copied into
// contiguous buffers (threads on rows), then one GEMM with K = the chunk's columns adds into
// dw (chunks in order, so the sums do not depend on the threads).
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/conv_pairs.h"
#include "kernels/conv_engine.h"
#include "kernels/conv_gemm.h"
#include "kernels/conv_geom.h"
#include "kernels/conv_pack.h"
#include "kernels/conv_winograd.h"
#include "kernels/elementwise.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

constexpr int64_t kFilterChunkBytes = int64_t(16) << 20;   // the filter gradient's buffers

// w' of the stride-1 input gradient (see the top) at the live taps of its geometry:
// wt (C, Og nt) with wt[g Cg + c][o nt + t] = w[g Og + o][c][kt - 1 - taps[t].index].
// A transpose of (Og, Cg) per tap: rows of wt are filled kFlipRows at a time, so each o reads
// one contiguous run of w (kFlipRows kt values) and writes kFlipRows sequential streams.
// NOTE: the plain loop (one wt row at a time, reading w with a stride of Cg kt) cost more than
// the GEMM on MobileNetV2's 1 x 1 tail: (16, 1280, 1, 1) dout, 1280 x 320 weights, one thread
// ~500 of the call's ~770 us; the copy is the same bits whoever fills which rows.
constexpr int64_t kFlipRows = 16;
constexpr int64_t kFlipParallel = int64_t(1) << 15;   // elements of wt from which threads split

template <class T>
struct FlipIo {
  const T* w;
  const ConvGeom* g;
  const int64_t* src_tap;                    // kt - 1 - taps[t].index
  int64_t nt, nblocks;
  T* wt;
};

template <class T>
void flip_blocks(const FlipIo<T>& f, int64_t b0, int64_t b1) {
  const ConvGeom& g = *f.g;
  const int64_t cg = g.c / g.group, og = g.o / g.group, kt = g.kh * g.kw, nt = f.nt;
  const int64_t per_group = (cg + kFlipRows - 1) / kFlipRows;
  for (int64_t b = b0; b < b1; ++b) {
    const int64_t gi = b / per_group, c0 = (b - gi * per_group) * kFlipRows;
    const int64_t rows = std::min(kFlipRows, cg - c0);
    T* dst = f.wt + (gi * cg + c0) * og * nt;
    for (int64_t o = 0; o < og; ++o) {
      const T* src = f.w + ((gi * og + o) * cg + c0) * kt;
      for (int64_t r = 0; r < rows; ++r) {
        T* d = dst + (r * og + o) * nt;
        for (int64_t t = 0; t < nt; ++t) d[t] = src[r * kt + f.src_tap[t]];
      }
    }
  }
}

template <class T>
void flip_weights(const T* w, const ConvGeom& g, const std::vector<Tap>& taps, T* wt,
                  int threads) {
  const int64_t cg = g.c / g.group, og = g.o / g.group, kt = g.kh * g.kw;
  const int64_t nt = static_cast<int64_t>(taps.size());
  std::vector<int64_t> src_tap(nt);
  for (int64_t t = 0; t < nt; ++t) src_tap[t] = kt - 1 - taps[t].index;
  const FlipIo<T> f{w, &g, src_tap.data(), nt,
                    g.group * ((cg + kFlipRows - 1) / kFlipRows), wt};
  const int nth = static_cast<int>(std::min<int64_t>(threads, f.nblocks));
  if (nth <= 1 || g.c * og * nt < kFlipParallel) {
    flip_blocks(f, 0, f.nblocks);
    return;
  }
  pool_run(nth, nth, [](void* p, int tid, int n) {
    const FlipIo<T>& c = *static_cast<const FlipIo<T>*>(p);
    flip_blocks(c, c.nblocks * tid / n, c.nblocks * (tid + 1) / n);
  }, const_cast<FlipIo<T>*>(&f));
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

// The filter gradient's GEMM: dw_g (Og x Cg nt) = doutT (Og x J) @ colsT (J x Cg nt) per chunk
// of J columns (sample, position): doutT rows read in place (lda J), B panels transposed out
// of the im2col rows `cols` (Cg nt x J), C added into dw at each column's tap.
template <class T>
struct FilterIo {
  const T* cols;        // (Cg nt, J)
  int64_t ld;           // J
  int nr;
  T* dw;                // the group's first weight row
  const Tap* taps;
  int64_t nt, cg, kt;
  bool first;           // the first chunk: write, else add
};

template <class T>
void pack_cols_t(const void* p, int64_t k0, int64_t kc, int64_t j0, int64_t cols, T* dst) {
  const FilterIo<T>& c = *static_cast<const FilterIo<T>*>(p);
  for (int64_t q = 0; q < cols; ++q) {
    const T* src = c.cols + (j0 + q) * c.ld + k0;
    for (int64_t kk = 0; kk < kc; ++kk) dst[kk * c.nr + q] = src[kk];
  }
  for (int64_t kk = 0; kk < kc; ++kk) {
    for (int64_t q = cols; q < c.nr; ++q) dst[kk * c.nr + q] = T(0);
  }
}

template <class T>
void store_dw(const void* p, int64_t i0, int64_t i1, int64_t j0, int64_t cols, const T* cb,
              int64_t ldc) {
  const FilterIo<T>& c = *static_cast<const FilterIo<T>*>(p);
  for (int64_t i = i0; i < i1; ++i) {
    const T* src = cb + (i - i0) * ldc;
    T* row = c.dw + i * c.cg * c.kt;
    if (c.nt == c.kt) {                         // every tap: the columns are dw's own
      T* d = row + j0;
      if (c.first) {
        for (int64_t q = 0; q < cols; ++q) d[q] = src[q];
      } else {
        for (int64_t q = 0; q < cols; ++q) d[q] += src[q];
      }
      continue;
    }
    int64_t ch = j0 / c.nt, t = j0 - ch * c.nt;
    for (int64_t q = 0; q < cols; ++q) {
      T& d = row[ch * c.kt + c.taps[t].index];
      d = c.first ? src[q] : d + src[q];
      if (++t == c.nt) {
        t = 0;
        ++ch;
      }
    }
  }
}

// Fills rows [r0, r1) of the chunk buffers: doutT rows o < og (when r0 == 0 on the calling
// thread) and the im2col rows (c, t) of x_g over columns [j0, j0 + len).
template <class T>
struct ChunkIo {
  const T* dout;
  const T* x;
  const ConvGeom* g;
  const Tap* taps;
  int64_t nt, og, rows, j0, len, ld;
  bool pointwise;
  T* doutt;
  T* cols;
};

template <class T>
void fill_chunk(const ChunkIo<T>& c, int64_t r0, int64_t r1) {
  const ConvGeom& g = *c.g;
  const int64_t plane = g.oh * g.ow;
  for (int64_t r = r0; r < r1; ++r) {
    if (r < c.og) {                             // a dout row
      T* d = c.doutt + r * c.ld;
      int64_t q = 0;
      while (q < c.len) {
        const int64_t j = c.j0 + q, n = j / plane, p = j - n * plane;
        const int64_t run = std::min(plane - p, c.len - q);
        std::memcpy(d + q, c.dout + (n * g.o + r) * plane + p, run * sizeof(T));
        q += run;
      }
      continue;
    }
    const int64_t kk = r - c.og, ch = kk / c.nt;
    im2col_row(c.x, g.c * g.h * g.w, g, ch, c.taps[kk - ch * c.nt], c.j0, c.len, c.pointwise,
               c.cols + kk * c.ld);
  }
}

// Winograd F(2x2, 3x3) for a stride-1 input gradient (t: its forward geometry on dout) where
// the forward rule (winograd_tile: F(4x4) from 7 x 7 planes) leaves the direct engine: 3 x 3,
// every tap live, 16+ channels each way and 128 x 128 pairs, planes of 4 x 4 to 6 x 6 with at
// least 64 tiles in the batch, AVX-512. Measured with AVX-512 (the weights transformed at every
// call, as the input gradient always does), batch 16, one thread: 128 ch at 4 x 4 860-884 ->
// 605-630 us (two threads 451-454 -> 380-384), at 5 x 5 1.37 -> 1.06-1.07 ms (two: 742-745 ->
// 601-604 us), at 6 x 6 1.84 -> 1.06 ms, 256 ch at 4 x 4 3.21 -> 2.31 ms; left direct: 64
// channels (one thread 1.3-1.45x, but two 0.94-1.0x: 64 at 5 x 5 215-217 -> 228-230 us),
// 3 x 3 planes (half of each 2 x 2 tile wasted: 0.92-0.96x), batch 1 or 4 at 4 x 4 (4 / 16
// tiles: 0.60x / 0.67x). A function of the geometry only, like winograd_tile.
bool input_winograd_f2(const ConvGeom& t, const std::vector<Tap>& taps) {
  static const bool wide = std::strcmp(kernel_isa(), "avx512") == 0;
  if (!wide || winograd_mode() != kWinogradAuto || winograd_tile(t, taps) != 0 ||
      t.kh != 3 || t.kw != 3 || t.sh != 1 || t.sw != 1 || t.dh != 1 || t.dw != 1 ||
      t.group != 1 || taps.size() != 9 || t.c < 16 || t.o < 16 || t.c * t.o < 128 * 128 ||
      t.c * t.o > (int64_t(1) << 20)) {
    return false;
  }
  return t.oh >= 4 && t.oh <= 6 && t.ow >= 4 && t.ow <= 6 &&
         t.n * ((t.oh + 1) / 2) * ((t.ow + 1) / 2) >= 64;
}

}  // namespace

template <class T>
void conv_gemm_backprop_input(const T* dout, const T* w, T* dx, const ConvGeom& g,
                              int threads) {
  const int64_t cg = g.c / g.group, og = g.o / g.group, kt = g.kh * g.kw;
  const int64_t plane = g.oh * g.ow;
  if (g.n * g.c * g.h * g.w == 0) return;
  if (conv_backprop_input_pairs(dout, w, dx, g, threads)) return;   // planes up to 4 positions
  if (g.sh == 1 && g.sw == 1) {
    const ConvGeom t{g.n, g.o, g.oh, g.ow, g.c, g.kh, g.kw, g.h, g.w, 1, 1, g.dh, g.dw,
                     g.dh * (g.kh - 1) - g.pt, g.dw * (g.kw - 1) - g.pl, g.group};
    const std::vector<Tap> ttaps = live_taps(t);
    T* wt = conv_buffer<T>(kBufFlippedW, g.c * og * static_cast<int64_t>(ttaps.size()));
    flip_weights(w, g, ttaps, wt, threads);
    if (input_winograd_f2(t, ttaps) &&
        conv_winograd_forward(dout, wt, dx, t, ConvEpilogue<T>{}, threads, 2, false)) {
      return;
    }
    conv_forward_taps<T>(dout, wt, false, dx, t, ttaps, ConvEpilogue<T>{}, threads, false);
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
    ConvColIo<T> c{dout + gi * og * plane, g.o * plane, plane, gemm_tile<T>().nr,
               dx + gi * cg * g.h * g.w, g.c * g.h * g.w, g.h, g.w, g.ow, g.sh, g.sw,
               taps.data(), nt};
    GemmJob<T> job{k, g.n * plane, og, apack, conv_pack<T>().rows, conv_pack<T>().col2im, &c};
    gemm_parallel(job, threads, nt);
  }
}

template <class T>
void conv_gemm_backprop_filter(const T* dout, const T* x, T* dw, const ConvGeom& g,
                               int threads) {
  const int64_t cg = g.c / g.group, og = g.o / g.group, kt = g.kh * g.kw;
  const int64_t total = g.n * g.oh * g.ow;
  const std::vector<Tap> taps = live_taps(g);
  const int64_t nt = static_cast<int64_t>(taps.size()), k = cg * nt;
  if (nt < kt || total == 0) std::fill(dw, dw + g.o * cg * kt, T(0));
  if (nt == 0 || total == 0 || cg == 0 || og == 0) return;
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 &&
                         g.pl == 0 && g.oh == g.h && g.ow == g.w;
  // chunks of at most kFilterChunkBytes of buffers, a multiple of the K block
  const int64_t per_col = (og + k) * static_cast<int64_t>(sizeof(T));
  const int64_t chunk = std::min(total, std::max<int64_t>(
      kGemmKc, kFilterChunkBytes / per_col / kGemmKc * kGemmKc));
  T* doutt = conv_buffer<T>(kBufDoutRows, og * chunk);
  T* cols = conv_buffer<T>(kBufColRows, k * chunk);
  for (int64_t gi = 0; gi < g.group; ++gi) {
    for (int64_t j0 = 0; j0 < total; j0 += chunk) {
      const int64_t len = std::min(chunk, total - j0);
      ChunkIo<T> io{dout + gi * og * g.oh * g.ow, x + gi * cg * g.h * g.w, &g, taps.data(), nt,
                    og, og + k, j0, len, chunk, pointwise, doutt, cols};
      const int nth = static_cast<int>(std::min<int64_t>(threads, io.rows / 8 + 1));
      if (nth <= 1) {
        fill_chunk(io, 0, io.rows);
      } else {
        pool_run(nth, nth, [](void* p, int tid, int n) {
          const ChunkIo<T>& c = *static_cast<const ChunkIo<T>*>(p);
          fill_chunk(c, c.rows * tid / n, c.rows * (tid + 1) / n);
        }, &io);
      }
      FilterIo<T> f{cols, chunk, gemm_tile<T>().nr, dw + gi * og * cg * kt, taps.data(), nt,
                    cg, kt, j0 == 0};
      GemmJob<T> job{og, k, len, doutt, &pack_cols_t<T>, &store_dw<T>, &f, chunk};
      gemm_parallel(job, threads);
    }
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
