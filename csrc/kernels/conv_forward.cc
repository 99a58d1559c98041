// The engine's forward convolution (conv_engine.h): per group one GEMM
//   out_g (Og x N P) = W_g (Og x Cg T) @ im2col(x_g) (Cg T x N P),  T = live taps,
// B panels packed straight from x, the epilogue (bias, residual, activation) applied as the
// C buffer is written to NCHW out.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/blas_gemm.h"
#include "kernels/conv_engine.h"
#include "kernels/conv_gemm.h"
#include "kernels/conv_geom.h"
#include "kernels/conv_pack.h"
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

// NOTE: a pointwise (1 x 1, stride 1, unpadded) convolution of a large plane is per sample
// the plain GEMM out[n] (O x P) = W (O x C) @ x[n] (C x P) in NCHW, with no im2col at all:
// there OpenBLAS's sgemm (attached for the recurrent layers, kernels/blas_gemm.h) beats the
// engine, whose per-tile C buffer round trip weighs on the small K of MobileNet's expansions
// (one Zen 4 thread: 16 -> 96 channels at 112 x 112 484 vs 802 us, 32 -> 16 191 vs 381 us,
// 144 -> 24 at 56 x 56 259 vs 296 us; 320 -> 1280 at 7 x 7 507 vs 490). It runs in blocks of
// columns, one BLAS thread each, the epilogue applied to each block while it is
// hot. A block's values are the same dot products over K whatever the split.
constexpr int64_t kBlasMinPlane = 196;   // 14 x 14
constexpr int64_t kBlasBlock = 128 * 1024;   // elements of a block of C (O x columns: in L2)

template <class T>
bool pointwise_blas(const T* x, const T* w, T* out, const ConvGeom& g,
                    const ConvEpilogue<T>& ep, int threads) {
  const int64_t plane = g.oh * g.ow;
  if (g.kh != 1 || g.kw != 1 || g.sh != 1 || g.sw != 1 || g.pt != 0 || g.pl != 0 ||
      g.oh != g.h || g.ow != g.w || g.group != 1 || plane < kBlasMinPlane || g.c == 0 ||
      !blas_gemm_attached()) {
    return false;
  }
  // columns per block: C's block near L2-sized, at least 512 (the GEMM's call cost)
  const int64_t width = std::min(plane, std::max<int64_t>(512, kBlasBlock / g.o / 64 * 64));
  struct Ctx {
    const T *x, *w;
    T* out;
    const ConvGeom* g;
    const ConvEpilogue<T>* ep;
    int64_t blocks, plane, width;
  } ctx{x, w, out, &g, &ep, (plane + width - 1) / width, plane, width};
  auto task = [](const Ctx& c, int64_t t) {
    const ConvGeom& g = *c.g;
    const int64_t n = t / c.blocks, j0 = (t - n * c.blocks) * c.width;
    const int64_t cols = std::min(c.width, c.plane - j0);
    T* o = c.out + n * g.o * c.plane + j0;
    blas_gemm<T>(false, false, g.o, cols, g.c, c.w, g.c, c.x + n * g.c * c.plane + j0, c.plane,
                 T(0), o, c.plane, true);
    if (c.ep->bias || c.ep->residual || c.ep->act) {
      const T* res = c.ep->residual ? c.ep->residual + (o - c.out) : nullptr;
      conv_pack<T>().epilogue(o, c.plane, res, g.o, cols, c.ep->bias, c.ep->act);
    }
  };
  const int64_t tasks = g.n * ctx.blocks;
  const int nth = static_cast<int>(std::min<int64_t>(threads, tasks));
  if (nth <= 1) {
    for (int64_t t = 0; t < tasks; ++t) task(ctx, t);
    return true;
  }
  struct Run {
    const Ctx* ctx;
    void (*task)(const Ctx&, int64_t);
    int64_t tasks;
  } run{&ctx, +task, tasks};
  pool_run(nth, static_cast<int>(std::min<int64_t>(tasks, 4 * nth)), [](void* p, int i, int n) {
    const Run& r = *static_cast<const Run*>(p);
    for (int64_t t = r.tasks * i / n; t < r.tasks * (i + 1) / n; ++t) r.task(*r.ctx, t);
  }, &run);
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
                       const std::vector<Tap>& taps, const ConvEpilogue<T>& ep, int threads) {
  const int64_t plane = g.oh * g.ow, og = g.o / g.group, cg = g.c / g.group;
  if (g.n * g.o * plane == 0) return;
  if (!packed && winograd_applicable(g, taps)) {     // every tap live: a is w itself
    conv_winograd_forward(x, a, out, g, ep, threads);
    return;
  }
  if (!packed && pointwise_blas(x, a, out, g, ep, threads)) return;
  const int64_t nt = static_cast<int64_t>(taps.size()), k = cg * nt;
  const int64_t asize = packed ? packed_a_size<T>(og, k) : og * k;
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 &&
                         g.pl == 0 && g.oh == g.h && g.ow == g.w;
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
                                       const ConvEpilogue<float>&, int);
template void conv_forward_taps<double>(const double*, const double*, bool, double*,
                                        const ConvGeom&, const std::vector<Tap>&,
                                        const ConvEpilogue<double>&, int);
template void conv_gemm_forward<float>(const float*, const float*, const float*, float*,
                                       const ConvGeom&, const ConvEpilogue<float>&, int);
template void conv_gemm_forward<double>(const double*, const double*, const double*, double*,
                                        const ConvGeom&, const ConvEpilogue<double>&, int);

}  // namespace mindlite
