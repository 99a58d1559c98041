// The fused inverted-residual block (conv_inverted_residual.h): bands of output rows, each
// expanded, filtered and projected on the calling thread, the intermediates in per-thread
// buffers; threads take runs of consecutive bands.
#include "kernels/conv_inverted_residual.h"

#include <algorithm>

#include "kernels/conv_depthwise.h"
#include "kernels/conv_engine.h"
#include "kernels/conv_gemm.h"
#include "kernels/conv_pack.h"
#include "kernels/conv_pointwise_cols.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

// The whole call's constants.
template <class T>
struct Block {
  const T *x, *residual;
  IrStage<T> ex, dw, pj;
  T* out;
  ConvGeom g;
  int64_t cin, cout, e;        // channels: input, output, expanded
  int64_t rows, nbands;        // output rows per band, bands per sample
  int64_t cap, base;           // the ring: image row iy in slot (iy - base) mod cap
  DwPlane plane;               // the depthwise plane of one band of `rows` rows
  int64_t dot_ex, dot_pj;      // dot-product columns of the expansion / projection planes
  const DwSmallPlan* small;    // planes up to kDwSmallWidth wide: the channels-first plan
};

// The depthwise output of expanded channel ch's whole plane e (h x w, contiguous) by the
// small-plane plan (the unfused kernel's path for such planes, so its bits).
template <class T>
void small_channel(const Block<T>& bk, int64_t ch, const T* e, T* out) {
  const ConvGeom& g = bk.g;
  T* scratch = bk.small->split ? conv_buffer<T>(kBufDwAcc, g.sh * g.sw * bk.small->pp)
                               : nullptr;
  dw_small_channel(*bk.small, g, e, bk.dw.w + ch * g.kh * g.kw,
                   bk.dw.bias ? bk.dw.bias[ch] : T(0), bk.dw.act, out, scratch);
}

// Runs bands [u0, u1) (sample u / nbands, band u % nbands) on the calling thread. The
// expanded rows live in a ring of `cap` rows per channel, so the rows of a band that the next
// one reads again stay where they are: only a thread's first band expands its halo rows.
// NOTE: moving those rows to the front of the buffer instead (a memmove per channel and band)
// cost 3.3% of the whole MobileNetV2 predict.
template <class T>
void run_bands(const Block<T>& bk, int64_t u0, int64_t u1) {
  const ConvGeom& g = bk.g;
  const DwLoops<T>& f = dw_loops<T>();
  const int64_t hw = g.h * g.w, ohw = g.oh * g.ow, kt = g.kh * g.kw;
  const int64_t es = bk.cap * g.w, ds = bk.rows * g.ow;     // channel strides of E and D
  // no expansion (block 0): the depthwise layer reads x's rows in place, no ring
  T* ebuf = bk.ex.w ? conv_buffer<T>(kBufDwSmallA, std::max<int64_t>(1, bk.e * es)) : nullptr;
  T* dbuf = conv_buffer<T>(kBufDwSmallB, std::max<int64_t>(1, bk.e * ds));
  const DwPlane& p0 = bk.plane;
  const int64_t phs = p0.sw * p0.hp * p0.wq + 2 * f.lanes;
  T* ph = conv_buffer<T>(kBufDwPhases, phs);
  std::fill(ph, ph + phs, T(0));
  int64_t e_n = -1, e_lo = 0, e_hi = 0;      // the sample and image rows E holds
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t n = u / bk.nbands, oy0 = (u % bk.nbands) * bk.rows;
    const int64_t oy1 = std::min(g.oh, oy0 + bk.rows);
    const int64_t iy_lo = oy0 * g.sh - g.pt;
    const int64_t hp = (oy1 - oy0 - 1) * g.sh + (g.kh - 1) * g.dh + 1;
    const int64_t ys = std::min(g.h, std::max<int64_t>(0, iy_lo));
    const int64_t ye = std::max(ys, std::min(g.h, iy_lo + hp));
    // 1. the expansion of image rows [ys, ye) into the ring; the rows the previous band
    //    expanded are still there
    auto slot_of = [&](int64_t iy) { return ((iy - bk.base) % bk.cap + bk.cap) % bk.cap; };
    int64_t from = e_n == n && ys >= e_lo && ys < e_hi ? e_hi : ys;
    while (from < ye && bk.ex.w) {
      const int64_t slot = slot_of(from), seg = std::min(ye - from, bk.cap - slot);
      pointwise_cols(bk.ex.w, bk.e, bk.cin, bk.x + n * bk.cin * hw + from * g.w, hw, seg * g.w,
                     ebuf + slot * g.w, es, bk.ex.bias, static_cast<const T*>(nullptr),
                     bk.ex.act, hw - bk.dot_ex - from * g.w);
      from += seg;
    }
    e_n = n;
    e_lo = ys;
    e_hi = ye;
    // 2. the depthwise rows [oy0, oy1) from them
    DwPlane p = p0;
    p.oh = oy1 - oy0;
    p.h = ye - ys;
    p.pt = ys - iy_lo;
    const int64_t top = std::min(hp, p.pt), bottom = std::min(hp, p.pt + p.h);
    const T* xn = bk.x + n * bk.cin * hw;
    for (int64_t ch = 0; ch < bk.e && bk.small; ++ch) {   // one band: the plane from slot 0
      small_channel(bk, ch, ebuf ? ebuf + ch * es : xn + ch * hw, dbuf + ch * ds);
    }
    for (int64_t ch = 0; ch < bk.e && !bk.small; ++ch) {
      for (int64_t q = 0; q < p.sw; ++q) {   // padding rows: zero (another band wrote them)
        T* phq = ph + q * p.hp * p.wq;
        std::fill(phq, phq + top * p.wq, T(0));
        std::fill(phq + bottom * p.wq, phq + hp * p.wq, T(0));
      }
      if (!ebuf) {
        f.phases(xn + ch * hw + ys * g.w, p.h, g.w, p, ph);
        f.forward(ph, bk.dw.w + ch * kt, dbuf + ch * ds, p, bk.dw.bias ? bk.dw.bias[ch] : T(0),
                  bk.dw.act, false);
        continue;
      }
      const int64_t slot = slot_of(ys), first = std::min(p.h, bk.cap - slot);
      f.phases(ebuf + ch * es + slot * g.w, first, g.w, p, ph);
      if (first < p.h) {                     // the ring wrapped: its first rows come next
        DwPlane pw = p;
        pw.pt += first;
        f.phases(ebuf + ch * es, p.h - first, g.w, pw, ph);
      }
      f.forward(ph, bk.dw.w + ch * kt, dbuf + ch * ds, p, bk.dw.bias ? bk.dw.bias[ch] : T(0),
                bk.dw.act, false);
    }
    // 3. the projection of those rows, written to out once
    const int64_t at = n * bk.cout * ohw + oy0 * g.ow;
    pointwise_cols(bk.pj.w, bk.cout, bk.e, dbuf, ds, (oy1 - oy0) * g.ow, bk.out + at, ohw,
                   bk.pj.bias, bk.residual ? bk.residual + at : nullptr, bk.pj.act,
                   ohw - bk.dot_pj - oy0 * g.ow);
  }
}

// A plane that fits one band, on several threads: two launches instead of bands. First the
// expansion and the depthwise layer of the whole plane by runs of expanded channels (each
// thread its channels' expanded rows in its own buffer, the depthwise output into `dbuf`, the
// caller's), then the projection by runs of output rows, as the unfused pointwise kernel
// splits them. Two bands of 7 rows instead (a 14 x 14 plane on two threads) recomputed 2 of
// 16 expanded rows and left a 2-column partial tile per band: 64 -> 384 -> 64, two threads,
// wall, min of 300: 275-276 us when the second core was busy (one thread 237) and 150 when it
// was free; 236 and 140 this way.
template <class T>
void run_by_channels(const Block<T>& bk, int threads) {
  const ConvGeom& g = bk.g;
  const int64_t ohw = g.oh * g.ow, mr = gemm_tile<T>().mr;
  T* dbuf = conv_buffer<T>(kBufDwSmallB, std::max<int64_t>(1, g.n * bk.e * ohw));
  DwPlane p = bk.plane;
  p.oh = g.oh;
  p.hp = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  struct Ctx {
    const Block<T>* bk;
    const DwPlane* p;
    T* dbuf;
    int64_t units;
    PoolErrors errors;
  } ctx{&bk, &p, dbuf, (bk.e + mr - 1) / mr, {}};
  int nth = static_cast<int>(std::min<int64_t>(threads, ctx.units));
  pool_run(nth, nth, [](void* q, int c, int nc) {
    Ctx& cx = *static_cast<Ctx*>(q);
    cx.errors.guard([&] {
      const Block<T>& b = *cx.bk;
      const ConvGeom& gg = b.g;
      const DwLoops<T>& f = dw_loops<T>();
      const int64_t m = gemm_tile<T>().mr, hw2 = gg.h * gg.w, ohw2 = gg.oh * gg.ow;
      const int64_t c0 = std::min(b.e, cx.units * c / nc * m);
      const int64_t c1 = std::min(b.e, cx.units * (c + 1) / nc * m), kt = gg.kh * gg.kw;
      if (c1 <= c0) return;
      T* ebuf = b.ex.w ? conv_buffer<T>(kBufDwSmallA, (c1 - c0) * hw2) : nullptr;
      const DwPlane& pp = *cx.p;
      const int64_t phs = pp.sw * pp.hp * pp.wq + 2 * f.lanes;
      T* ph = conv_buffer<T>(kBufDwPhases, phs);
      std::fill(ph, ph + phs, T(0));
      for (int64_t n = 0; n < gg.n; ++n) {
        const T* src = b.x + (n * b.cin + c0) * hw2;     // no expansion: x's planes
        if (ebuf) {
          pointwise_cols(b.ex.w + c0 * b.cin, c1 - c0, b.cin, b.x + n * b.cin * hw2, hw2, hw2,
                         ebuf, hw2, b.ex.bias ? b.ex.bias + c0 : nullptr,
                         static_cast<const T*>(nullptr), b.ex.act, hw2 - b.dot_ex);
          src = ebuf;
        }
        for (int64_t ch = c0; ch < c1; ++ch) {
          if (b.small) {
            small_channel(b, ch, src + (ch - c0) * hw2, cx.dbuf + (n * b.e + ch) * ohw2);
            continue;
          }
          f.phases(src + (ch - c0) * hw2, gg.h, gg.w, pp, ph);
          f.forward(ph, b.dw.w + ch * kt, cx.dbuf + (n * b.e + ch) * ohw2, pp,
                    b.dw.bias ? b.dw.bias[ch] : T(0), b.dw.act, false);
        }
      }
    });
  }, &ctx);
  ctx.errors.rethrow();
  ctx.units = (bk.cout + mr - 1) / mr;
  nth = static_cast<int>(std::min<int64_t>(threads, ctx.units));
  pool_run(nth, nth, [](void* q, int c, int nc) {
    Ctx& cx = *static_cast<Ctx*>(q);
    cx.errors.guard([&] {
      const Block<T>& b = *cx.bk;
      const int64_t m = gemm_tile<T>().mr, ohw2 = b.g.oh * b.g.ow;
      const int64_t r0 = std::min(b.cout, cx.units * c / nc * m);
      const int64_t r1 = std::min(b.cout, cx.units * (c + 1) / nc * m);
      for (int64_t n = 0; n < b.g.n && r1 > r0; ++n) {
        const int64_t at = (n * b.cout + r0) * ohw2;
        pointwise_cols(b.pj.w + r0 * b.e, r1 - r0, b.e, cx.dbuf + n * b.e * ohw2, ohw2, ohw2,
                       b.out + at, ohw2, b.pj.bias ? b.pj.bias + r0 : nullptr,
                       b.residual ? b.residual + at : nullptr, b.pj.act, ohw2 - b.dot_pj);
      }
    });
  }, &ctx);
  ctx.errors.rethrow();
}

// Output rows per band: the whole plane when its live expanded rows and depthwise output of
// all channels fit a 1 MB L2 (Zen 4; no band ends, so no partial tiles: MobileNetV2's 14 x 14
// blocks), else bands within ~half of it, preferring bands whose positions are whole vectors
// (no partial tile at each band's end: 56 wide, an even number of rows); on several threads
// (batch 1) a whole number of bands per thread instead.
// NOTE: at 56 x 56 x 144 channels, 6 rows of a stride-1 band (8 expanded rows, 6 filtered):
// 451 KB; 14 x 14 x 384 channels whole: 602 KB, one thread, warm: 248 us against 273 us in
// two bands of 7 rows (unfused 250 us).
template <class T>
int64_t band_rows(const ConvGeom& g, int threads) {
  constexpr int64_t kBudget = 512 * 1024, kWhole = 1024 * 1024;
  const int64_t lanes = gemm_tile<T>().nr / 2;
  auto bytes = [&](int64_t rows) {
    const int64_t live = std::min(g.h, (rows - 1) * g.sh + (g.kh - 1) * g.dh + 1);
    return (live * g.w + rows * g.ow) * g.c * static_cast<int64_t>(sizeof(T));
  };
  int64_t r = g.oh;
  if (g.ow <= kDwSmallWidth) return r;      // the small-plane path: whole planes only
  if (bytes(r) > kWhole) {
    while (r > 1 && bytes(r) > kBudget) --r;
  }
  if (threads > 1 && g.n < threads) {      // the threads' runs of bands even
    const int64_t nb = std::min(g.oh, round_up((g.oh + r - 1) / r, threads));
    return (g.oh + nb - 1) / nb;
  }
  if (r == g.oh) return r;                  // the whole plane: no band ends at all
  for (int64_t a = r; a * 2 > r; --a) {     // whole vectors, within half of the rows
    if (a * g.ow % lanes == 0 && a * g.sh * g.w % lanes == 0) return a;
  }
  const int64_t nb = (g.oh + r - 1) / r;
  return (g.oh + nb - 1) / nb;
}

// Ring rows: a whole number of bands' new rows (rows x stride), at least the rows a band
// reads, so that a band's new rows never wrap (only the first band's may).
inline int64_t ring_rows(const ConvGeom& g, int64_t rows) {
  const int64_t live = std::min(g.h, (rows - 1) * g.sh + (g.kh - 1) * g.dh + 1);
  const int64_t step = rows * g.sh;
  return std::min(round_up(live, step), round_up(g.h, step));
}

// The ring's origin: the bands after the first start their new rows at image rows congruent
// to (kh - 1) dh + 1 - s - pt modulo rows x s, which the origin puts at whole steps of the
// ring (no wrap); of those origins, one where the first band's rows do not wrap either. One
// band per sample: 0.
inline int64_t ring_base(const ConvGeom& g, int64_t rows, int64_t nbands, int64_t cap) {
  if (nbands == 1) return 0;
  const int64_t step = rows * g.sh, base0 = (g.kh - 1) * g.dh + 1 - g.sh - g.pt;
  const int64_t first = std::min(g.h, (rows - 1) * g.sh + (g.kh - 1) * g.dh + 1 - g.pt);
  for (int64_t j = 0; j * step < cap; ++j) {
    const int64_t slot0 = ((j * step - base0) % cap + cap) % cap;    // where row 0 goes
    if (slot0 + first <= cap) return base0 - j * step;
  }
  return base0;
}

}  // namespace

template <class T>
bool inverted_residual_supported(const ConvGeom& g) {
  const int64_t half = gemm_tile<T>().nr / 2;
  return g.group == g.c && g.o == g.c &&
         (g.ow > kDwSmallWidth || dw_small_plan<T>(g, nullptr)) &&
         (g.n == 1 || (g.h * g.w >= half && g.oh * g.ow >= half));
}

template <class T>
void inverted_residual_forward(const T* x, const IrStage<T>& expand, const IrStage<T>& dw,
                               const IrStage<T>& project, const T* residual, T* out,
                               const ConvGeom& g, int64_t cin, int64_t cout, int threads) {
  if (g.n * cout * g.oh * g.ow == 0) return;
  const DwLoops<T>& f = dw_loops<T>();
  DwSmallPlan plan;
  const bool small = g.ow <= kDwSmallWidth && dw_small_plan<T>(g, &plan);
  Block<T> bk{x, residual, expand, dw, project, out, g, cin, cout, g.c, 0, 0, 0, 0, {}, 0,
              0, small ? &plan : nullptr};
  bk.rows = band_rows<T>(g, threads);
  bk.nbands = (g.oh + bk.rows - 1) / bk.rows;
  bk.cap = ring_rows(g, bk.rows);
  bk.base = ring_base(g, bk.rows, bk.nbands, bk.cap);
  DwPlane& p = bk.plane;
  p = DwPlane{g.h, g.w, bk.rows, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl, 0, 0};
  p.hp = (bk.rows - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  const int64_t wp = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  p.wq = (wp + g.sw - 1) / g.sw + f.lanes;
  bk.dot_ex = dot_columns<T>(g.h * g.w, cin);
  bk.dot_pj = dot_columns<T>(g.oh * g.ow, g.c);
  if (threads > 1 && g.n < threads && band_rows<T>(g, 1) == g.oh) {
    return run_by_channels(bk, threads);
  }
  const int64_t units = g.n * bk.nbands;
  const int nth = static_cast<int>(std::min<int64_t>(threads, units));
  if (nth <= 1) {
    run_bands(bk, 0, units);
    return;
  }
  struct Ctx {
    const Block<T>* bk;
    int64_t units;
    PoolErrors errors;
  } ctx{&bk, units, {}};
  pool_run(nth, nth, [](void* q, int c, int nc) {
    Ctx& cx = *static_cast<Ctx*>(q);
    cx.errors.guard([&] {
      run_bands(*cx.bk, cx.units * c / nc, cx.units * (c + 1) / nc);
    });
  }, &ctx);
  ctx.errors.rethrow();
}

#define ML_IR_INSTANTIATE(T)                                                                   \
  template bool inverted_residual_supported<T>(const ConvGeom&);                              \
  template void inverted_residual_forward<T>(const T*, const IrStage<T>&, const IrStage<T>&,  \
                                             const IrStage<T>&, const T*, T*, const ConvGeom&, \
                                             int64_t, int64_t, int);
ML_IR_INSTANTIATE(float)
ML_IR_INSTANTIATE(double)
#undef ML_IR_INSTANTIATE

}  // namespace mindlite
