// The engine's forward convolution (conv_engine.h): per group one GEMM
//   out_g (Og x N P) = W_g (Og x Cg T) @ im2col(x_g) (Cg T x N P),  T = live taps,
// B panels packed straight from x, the epilogue (bias, residual, activation) applied as the
// C buffer is written to NCHW out; pointwise convolutions (1 x 1, stride 1, unpadded, one
// group) on the direct tile instead, both operands read in place (pointwise_direct).
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/conv_engine.h"
#include "kernels/conv_gemm.h"
#include "kernels/conv_geom.h"
#include "kernels/conv_pack.h"
#include "kernels/conv_pairs.h"
#include "kernels/conv_winograd.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

// The weight rows of group gi restricted to the live taps: (Og, Cg nt), or w itself when
// every tap is live.
// (A per-thread buffer: a fresh allocation of a layer's weights each call was measured at
// twice the GEMM's time for ResNet18's 2 x 2 -> 1 x 1 convolution, page faults included.)
template <class T>
const T* live_weights(const T* w, const ConvGeom& g, const std::vector<Tap>& taps) {
  const int64_t cg = g.c / g.group, kt = g.kh * g.kw, nt = static_cast<int64_t>(taps.size());
  if (nt == kt) return w;
  T* buf = conv_buffer<T>(kBufLiveW, g.o * cg * nt);
  for (int64_t row = 0; row < g.o * cg; ++row) {
    const T* src = w + row * kt;
    T* dst = buf + row * nt;
    for (int64_t t = 0; t < nt; ++t) dst[t] = src[taps[t].index];
  }
  return buf;
}

bool is_pointwise(const ConvGeom& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0 &&
         g.oh == g.h && g.ow == g.w;
}

// A pointwise convolution (1 x 1, stride 1, unpadded, one group) as per sample
// out[n] (O x P) = W (O x C) @ x[n] (C x P) on the register tile with both operands read in
// place (GemmTile::direct): the weights' rows and x's channel rows, no packing of either, no
// C buffer; each tile's R x NR sums get the epilogue (bias, residual, activation: the engine
// store's rules) in registers and are written once. Only a last
// partial column panel is computed apart (pointwise_run). Every output sums its C terms in one
// order whatever the thread split: channel order, or for a plane's last few columns lane
// partial sums (pointwise_tail_dot).
// NOTE: measured against OpenBLAS's sgemm on NCHW (the previous path for planes >= 14 x 14)
// and the packed engine (smaller planes) on MobileNetV2's 15 pointwise shapes at 224, one Zen 4
// thread, thread CPU: 3.41 vs 3.92 ms in all; 32 -> 16 at 112 x 112 174 vs 305-313 us, 144 ->
// 24 at 56 x 56 208 vs 288-298 us, 16 -> 96 at 112 x 112 658 vs 717-781 us (its 4.8 MB
// output's writes bound it); sgemm zeroes C before it accumulates, one more pass.
template <class T>
struct PointwiseIo {
  const T *x, *w;
  T* out;
  const ConvGeom* g;
  const ConvEpilogue<T>* ep;
  int64_t cpanels;          // column panels per sample
};

// The last r = cols % L (1 to 8) columns of a sample's plane, when K is a whole number of
// vectors (L = NR / 2 lanes): per column, dot products along K with each weight row (the
// column copied contiguous; GemmDot), instead of a vector of columns of which r lanes are used;
// a whole vector of the tail before them (cols >= L) goes on the one-vector tile in place. A
// 7 x 7 plane (49 = 32 + 16 + 1) then costs 3.06 vector multiply-adds per row and k instead of
// 4. NOTE: those r columns sum K as lane partial sums, then lane by lane (GemmDot's order),
// not in K order as the tile does; the same on any thread split, so fused = unfused and the
// thread count never matters, but they are not the bits of the tile's order.
template <class T>
bool pointwise_tail_dot(const PointwiseIo<T>& c, int64_t n, int64_t j0, int64_t cols,
                        int64_t i0, int64_t i1) {
  const GemmTile<T>& t = gemm_tile<T>();
  const GemmDot<T>& d = gemm_dot<T>();
  const ConvGeom& g = *c.g;
  const int64_t plane = g.oh * g.ow, k = g.c, lanes = t.nr / 2;
  const int64_t r = cols % lanes, v = cols - r;      // v: 0 or one vector of columns
  if (r == 0 || r > 8 || k == 0 || k % d.lanes != 0) return false;
  const T* x = c.x + n * g.c * plane;
  T* bt = conv_buffer<T>(kBufPanelB, r * k);
  for (int64_t kk = 0; kk < k; ++kk) {
    for (int64_t s = 0; s < r; ++s) bt[s * k + kk] = x[kk * plane + j0 + v + s];
  }
  const int64_t at = n * g.o * plane + j0;           // out offset of row 0 of this panel
  for (int64_t i = i0; i < i1; i += t.mr) {
    const int rows = static_cast<int>(std::min<int64_t>(t.mr, i1 - i));
    T* o = c.out + at + i * plane;
    const T* res = c.ep->residual ? c.ep->residual + at + i * plane : nullptr;
    const T* bias = c.ep->bias ? c.ep->bias + i : nullptr;
    if (v > 0) {
      const GemmEpilogue<T> ep{bias, res, c.ep->act};
      t.direct1(k, c.w + i * k, k, rows, x + j0, plane, o, plane, false, &ep);
    }
    for (int rr = 0; rr < rows; rr += 4) {
      const int ra = std::min(4, rows - rr);
      for (int64_t s = 0; s < r; s += 6) {
        d.dot(k, c.w + (i + rr) * k, k, ra, bt + s * k, k, static_cast<int>(std::min<int64_t>(
            6, r - s)), o + rr * plane + v + s, plane);
      }
    }
    conv_pack<T>().epilogue(o + v, plane, res ? res + v : nullptr, rows, r, bias, c.ep->act);
  }
  return true;
}

// A last partial column panel of `cols` columns is computed as a window of `width` columns
// (one vector of the tile when cols fits in it, else both) ending at the plane's end and read
// in place: no copy of its K rows (a 7 x 7 plane's 17 columns, K up to 960, were copied per
// call and per thread chunk); only planes narrower than the window are copied, zero-padded.
// The window's sums go to a scratch tile and its last `cols` columns are written with the
// epilogue, or, when the window is exactly the panel, straight to out with it.
template <class T>
void pointwise_run(const PointwiseIo<T>& c, int64_t p0, int64_t p1, int64_t i0, int64_t i1) {
  const GemmTile<T>& t = gemm_tile<T>();
  const ConvPack<T>& pk = conv_pack<T>();
  const ConvGeom& g = *c.g;
  const int64_t plane = g.oh * g.ow, k = g.c, nr = t.nr, mr = t.mr;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t n = p / c.cpanels, j0 = (p - n * c.cpanels) * nr;
    const int64_t cols = std::min(nr, plane - j0);
    if (cols < nr && pointwise_tail_dot(c, n, j0, cols, i0, i1)) continue;
    const int64_t width = cols <= nr / 2 ? nr / 2 : nr;
    const GemmDirectFn<T> tile = width == nr ? t.direct : t.direct1;
    const T* x = c.x + n * g.c * plane;
    const T* b = x + j0;
    int64_t ldb = plane, shift;               // our columns start at window column `shift`
    partial_panel(&b, &ldb, &shift, x, plane, cols, width, k);
    const int64_t at = n * g.o * plane + j0;       // out offset of row 0 of this panel
    for (int64_t i = i0; i < i1; i += mr) {
      const int rows = static_cast<int>(std::min(mr, i1 - i));
      T* o = c.out + at + i * plane;
      const T* res = c.ep->residual ? c.ep->residual + at + i * plane : nullptr;
      const T* bias = c.ep->bias ? c.ep->bias + i : nullptr;
      if (cols == width) {                // the epilogue in registers
        const GemmEpilogue<T> ep{bias, res, c.ep->act};
        tile(k, c.w + i * k, k, rows, b, ldb, o, plane, false, &ep);
      } else {
        T* ct = conv_buffer<T>(kBufPanelC, mr * width);
        tile(k, c.w + i * k, k, rows, b, ldb, ct, width, false, nullptr);
        for (int r = 0; r < rows; ++r) {
          std::copy(ct + r * width + shift, ct + r * width + shift + cols, o + r * plane);
        }
        pk.epilogue(o, plane, res, rows, cols, bias, c.ep->act);
      }
    }
  }
}

template <class T>
bool pointwise_direct(const T* x, const T* w, T* out, const ConvGeom& g,
                      const ConvEpilogue<T>& ep, int threads) {
  if (!is_pointwise(g) || g.group != 1) return false;
  const GemmTile<T>& t = gemm_tile<T>();
  const int64_t plane = g.oh * g.ow;
  // planes narrower than a vector (the 1 x 1 / 2 x 2 planes of a 32 x 32 training step):
  // per sample most lanes would be empty; the packed engine takes batch x positions as its
  // columns instead.
  // NOTE: (16, 320, 1, 1) -> 1280, one thread, thread CPU: 2.1 ms here (3.9 ms with a whole
  // 32-column panel per sample), 0.27 ms packed.
  if (plane < t.nr / 2 && g.n > 1) return false;
  PointwiseIo<T> io{x, w, out, &g, &ep, (plane + t.nr - 1) / t.nr};
  const int64_t npanels = g.n * io.cpanels, nunits = (g.o + t.mr - 1) / t.mr;
  if (threads <= 1 || (npanels < 2 && nunits < 2)) {
    pointwise_run(io, 0, npanels, 0, g.o);
    return true;
  }
  struct Run {
    const PointwiseIo<T>* io;
    int64_t npanels, nunits, mr, o, cparts;
  } run{&io, npanels, nunits, t.mr, g.o, 0};
  const GemmGrid grid = gemm_grid(npanels, nunits, threads);   // conv_gemm.h
  run.cparts = grid.cparts;
  PoolErrors errors;
  struct Task {
    const Run* run;
    PoolErrors* errors;
  } task{&run, &errors};
  pool_run(threads, static_cast<int>(grid.chunks()), [](void* p, int ci, int nc) {
    const Task& tk = *static_cast<const Task*>(p);
    const Run& r = *tk.run;
    const int64_t rparts = nc / r.cparts, cp = ci % r.cparts, rp = ci / r.cparts;
    const int64_t u0 = r.nunits * rp / rparts, u1 = r.nunits * (rp + 1) / rparts;
    tk.errors->guard([&] {
      pointwise_run(*r.io, r.npanels * cp / r.cparts, r.npanels * (cp + 1) / r.cparts,
                    u0 * r.mr, std::min(r.o, u1 * r.mr));
    });
  }, &task);
  errors.rethrow();
  return true;
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
  const T* lw = live_weights(w, g, taps);
  const int64_t og = g.o / g.group, k = g.c / g.group * static_cast<int64_t>(taps.size());
  for (int64_t gi = 0; gi < g.group; ++gi) {
    pack_a_rows(lw + gi * og * k, k, og, k, packed + gi * packed_a_size<T>(og, k));
  }
}

template <class T>
void conv_forward_taps(const T* x, const T* a, bool packed, T* out, const ConvGeom& g,
                       const std::vector<Tap>& taps, const ConvEpilogue<T>& ep, int threads,
                       bool stable_weights) {
  const int64_t plane = g.oh * g.ow, og = g.o / g.group, cg = g.c / g.group;
  if (g.n * g.o * plane == 0) return;
  if (!packed) {                                      // every tap live: a is w itself
    const int m = winograd_tile(g, taps);
    if (m && conv_winograd_forward(x, a, out, g, ep, threads, m, stable_weights)) return;
  }
  if (!packed && pointwise_direct(x, a, out, g, ep, threads)) return;
  const int64_t nt = static_cast<int64_t>(taps.size()), k = cg * nt;
  const int64_t asize = packed ? packed_a_size<T>(og, k) : og * k;
  const bool pointwise = is_pointwise(g);
  for (int64_t gi = 0; gi < g.group; ++gi) {
    ConvFwdIo<T> c{x + gi * cg * g.h * g.w, g.c * g.h * g.w, g.h, g.w, g.ow, plane, g.sh, g.sw,
                   taps.data(), nt, pointwise, gemm_tile<T>().nr,
                   out + gi * og * plane, g.o * plane, ep.bias ? ep.bias + gi * og : nullptr,
                   ep.residual ? ep.residual + gi * og * plane : nullptr, ep.act};
    GemmJob<T> job{og, g.n * plane, k, a + gi * asize, conv_pack<T>().im2col,
                   conv_pack<T>().store_out, &c, packed ? 0 : k};
    gemm_parallel(job, threads);
  }
}

template <class T>
void conv_gemm_forward(const T* x, const T* w, const T* packed, T* out, const ConvGeom& g,
                       const ConvEpilogue<T>& ep, int threads) {
  // tiny output planes (<= 4 positions, 64+ channels): GEMMs per pair of positions (conv_pairs.h)
  if (!packed && conv_forward_pairs(x, w, out, g, ep, threads)) return;
  const std::vector<Tap> taps = live_taps(g);
  // without prepacked weights A is read in place: w, or its live-tap columns
  const T* a = packed ? packed : live_weights(w, g, taps);
  conv_forward_taps(x, a, packed != nullptr, out, g, taps, ep, threads);
}

template int64_t conv_packed_size<float>(const ConvGeom&);
template int64_t conv_packed_size<double>(const ConvGeom&);
template void conv_pack_weights<float>(const float*, const ConvGeom&, float*);
template void conv_pack_weights<double>(const double*, const ConvGeom&, double*);
template void conv_forward_taps<float>(const float*, const float*, bool, float*,
                                       const ConvGeom&, const std::vector<Tap>&,
                                       const ConvEpilogue<float>&, int, bool);
template void conv_forward_taps<double>(const double*, const double*, bool, double*,
                                        const ConvGeom&, const std::vector<Tap>&,
                                        const ConvEpilogue<double>&, int, bool);
template void conv_gemm_forward<float>(const float*, const float*, const float*, float*,
                                       const ConvGeom&, const ConvEpilogue<float>&, int);
template void conv_gemm_forward<double>(const double*, const double*, const double*, double*,
                                        const ConvGeom&, const ConvEpilogue<double>&, int);

}  // namespace mindlite
