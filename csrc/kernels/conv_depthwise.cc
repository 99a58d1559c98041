// The depthwise convolutions' drivers (conv_depthwise.h): per output (or input) channel and
// sample, the phase planes of one plane in a per-thread buffer, then the ISA's plane loop;
// channels split across the thread pool.
#include "kernels/conv_depthwise.h"

#include <algorithm>
#include <vector>

#include "kernels/conv_gemm.h"
#include "kernels/conv_geom.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

// The phase planes of a convolution producing an oh x ow plane (stride sh / sw, dilation
// dh / dw, kernel kh x kw) from a plane padded by (pt, pl).
DwPlane plane_of(int64_t h, int64_t w, int64_t oh, int64_t ow, const ConvGeom& g, int64_t sh,
                 int64_t sw, int64_t pt, int64_t pl, int lanes) {
  DwPlane p{h, w, oh, ow, g.kh, g.kw, sh, sw, g.dh, g.dw, pt, pl, 0, 0};
  p.hp = (oh - 1) * sh + (g.kh - 1) * g.dh + 1;
  const int64_t wp = (ow - 1) * sw + (g.kw - 1) * g.dw + 1;
  p.wq = (wp + sw - 1) / sw + lanes;
  return p;
}

// The per-thread phase buffer of p, zeroed: the loops only ever write the positions a plane
// covers, so its padding and slack stay zero for every plane of this geometry.
template <class T>
T* phase_buffer(const DwPlane& p, int lanes) {
  const int64_t size = p.sw * p.hp * p.wq + 2 * lanes;
  T* ph = conv_buffer<T>(kBufDwPhases, size);
  std::fill(ph, ph + size, T(0));
  return ph;
}

// Runs body(c0, c1) over [0, count) channels on `threads` threads; chunk edges fall on
// multiples of `align` channels (the channels-last path's vectors: a chunk of 40 channels ran
// 8 of them a lane at a time).
template <class F>
void over_channels(int64_t count, int threads, F& body, int64_t align = 1) {
  const int64_t units = (count + align - 1) / align;
  const int nth = static_cast<int>(std::min<int64_t>(threads, units));
  if (nth <= 1) {
    body(0, count);
    return;
  }
  struct Ctx {
    F* body;
    int64_t count, units, align;
    PoolErrors errors;
  } ctx{&body, count, units, align, {}};
  pool_run(nth, 4 * nth > units ? nth : 4 * nth, [](void* p, int c, int nc) {
    Ctx& x = *static_cast<Ctx*>(p);
    const int64_t c0 = std::min(x.count, x.units * c / nc * x.align);
    const int64_t c1 = std::min(x.count, x.units * (c + 1) / nc * x.align);
    x.errors.guard([&] { (*x.body)(c0, c1); });
  }, &ctx);
  ctx.errors.rethrow();
}

// ---- the small-plane path (channels last; one output channel per input channel) ------------
bool small_plane(const ConvGeom& g) { return g.o == g.c && g.ow <= kDwSmallWidth; }

// tab[p kt + t]: the input position output p reads at tap t, or -1 (padding).
std::vector<int64_t> tap_table(const ConvGeom& g) {
  const int64_t kt = g.kh * g.kw;
  std::vector<int64_t> tab(static_cast<size_t>(g.oh * g.ow * kt));
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      for (int64_t t = 0; t < kt; ++t) {
        const int64_t iy = oy * g.sh + (t / g.kw) * g.dh - g.pt;
        const int64_t ix = ox * g.sw + (t % g.kw) * g.dw - g.pl;
        tab[(oy * g.ow + ox) * kt + t] = iy >= 0 && iy < g.h && ix >= 0 && ix < g.w
                                             ? iy * g.w + ix : -1;
      }
    }
  }
  return tab;
}

// dst (positions x cb) <- src (cb planes of `positions`, planes `plane` apart), and back.
template <class T>
void to_last(const T* src, int64_t cb, int64_t positions, T* dst) {
  for (int64_t c = 0; c < cb; ++c) {
    for (int64_t q = 0; q < positions; ++q) dst[q * cb + c] = src[c * positions + q];
  }
}

template <class T>
void to_first(const T* src, int64_t cb, int64_t positions, T* dst) {
  for (int64_t c = 0; c < cb; ++c) {
    for (int64_t q = 0; q < positions; ++q) dst[c * positions + q] = src[q * cb + c];
  }
}

// wt (kt x C): the kernel taps by channel (of a block of C channels: built by each thread for
// its channels; built once per call before the split, it was a serial 8640-element transpose
// that kept MobileNetV2's 960-channel 7 x 7 depthwise layer from gaining on two threads).
template <class T>
std::vector<T> taps_by_channel(const T* w, int64_t c, int64_t kt) {
  std::vector<T> wt(static_cast<size_t>(kt * c));
  for (int64_t ci = 0; ci < c; ++ci) {
    for (int64_t t = 0; t < kt; ++t) wt[t * c + ci] = w[ci * kt + t];
  }
  return wt;
}

// The sh x sw phase planes of one h x w plane (phase (ry, rx) at (ry sw + rx) pp, rows pw
// apart), row by row, without divisions (a division per element cost 2.5x the taps).
template <class T>
void split_phases(const T* __restrict x, const ConvGeom& g, int64_t pp, int64_t pw,
                  T* __restrict buf) {
  for (int64_t ry = 0; ry < g.sh; ++ry) {
    int64_t r = 0;
    for (int64_t iy = ry; iy < g.h; iy += g.sh, ++r) {
      const T* __restrict sr = x + iy * g.w;
      for (int64_t rx = 0; rx < g.sw; ++rx) {
        T* __restrict d = buf + (ry * g.sw + rx) * pp + r * pw;
        int64_t k = 0;
        for (int64_t ix = rx; ix < g.w; ix += g.sw) d[k++] = sr[ix];
      }
    }
  }
}

// small_forward channels first where dw_small_plan gives a plan (the 7 x 7 'same' layers at
// 224, stride 1: each plane read in place; the 14 x 14 -> 7 x 7 stride-2 layer: four phase
// planes, split per channel into a per-thread buffer); no transposes.
// NOTE: one thread, thread CPU: 960 channels at 7 x 7 72-75 -> 36.7 us; 576 channels 14 x 14
// stride 2 -> 7 x 7 99-100 -> 66 us against the channels-last loop.
template <class T>
bool plane_forward(const T* x, const T* w, const T* bias, T* out, const ConvGeom& g, int act,
                   int threads) {
  DwSmallPlan plan;
  if (!dw_small_plan<T>(g, &plan)) return false;
  const int64_t kt = g.kh * g.kw, hw = g.h * g.w, np = g.oh * g.ow;
  auto body = [&](int64_t c0, int64_t c1) {
    T* buf = plan.split ? conv_buffer<T>(kBufDwSmallA, g.sh * g.sw * plan.pp) : nullptr;
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t c = c0; c < c1; ++c) {
        dw_small_channel(plan, g, x + (n * g.c + c) * hw, w + c * kt, bias ? bias[c] : T(0),
                         act, out + (n * g.o + c) * np, buf);
      }
    }
  };
  over_channels(g.c, threads, body);
  return true;
}

template <class T>
void small_forward(const T* x, const T* w, const T* bias, T* out, const ConvGeom& g, int act,
                   int threads) {
  if (plane_forward(x, w, bias, out, g, act, threads)) return;
  const DwLoops<T>& f = dw_loops<T>();
  const int64_t kt = g.kh * g.kw, hw = g.h * g.w, ohw = g.oh * g.ow;
  const std::vector<int64_t> tab = tap_table(g);
  auto body = [&](int64_t c0, int64_t c1) {
    const int64_t cb = c1 - c0;
    const std::vector<T> wt = taps_by_channel(w + c0 * kt, cb, kt);
    std::vector<T> bt(static_cast<size_t>(cb), T(0));
    if (bias) std::copy(bias + c0, bias + c1, bt.begin());
    T* xt = conv_buffer<T>(kBufDwSmallA, hw * cb);
    T* ot = conv_buffer<T>(kBufDwSmallB, ohw * cb);
    for (int64_t n = 0; n < g.n; ++n) {
      to_last(x + (n * g.c + c0) * hw, cb, hw, xt);
      for (int64_t p = 0; p < ohw; ++p) {
        f.taps(ot + p * cb, wt.data(), xt, tab.data() + p * kt, kt, cb, bt.data(), act);
      }
      to_first(ot, cb, ohw, out + (n * g.o + c0) * ohw);
    }
  };
  over_channels(g.c, threads, body, f.lanes);
}

template <class T>
void small_input(const T* dout, const T* w, T* dx, const ConvGeom& g, int threads) {
  const DwLoops<T>& f = dw_loops<T>();
  const int64_t kt = g.kh * g.kw, hw = g.h * g.w, ohw = g.oh * g.ow;
  const std::vector<int64_t> tab = tap_table(g);
  auto body = [&](int64_t c0, int64_t c1) {
    const int64_t cb = c1 - c0;
    const std::vector<T> wt = taps_by_channel(w + c0 * kt, cb, kt);
    T* dt = conv_buffer<T>(kBufDwSmallA, ohw * cb);
    T* xt = conv_buffer<T>(kBufDwSmallB, hw * cb);
    for (int64_t n = 0; n < g.n; ++n) {
      to_last(dout + (n * g.o + c0) * ohw, cb, ohw, dt);
      std::fill(xt, xt + hw * cb, T(0));
      for (int64_t p = 0; p < ohw; ++p) {
        for (int64_t t = 0; t < kt; ++t) {
          const int64_t q = tab[p * kt + t];
          if (q >= 0) f.mac(xt + q * cb, wt.data() + t * cb, dt + p * cb, cb);
        }
      }
      to_first(xt, cb, hw, dx + (n * g.c + c0) * hw);
    }
  };
  over_channels(g.c, threads, body);
}

template <class T>
void small_filter(const T* dout, const T* x, T* dw, const ConvGeom& g, int threads) {
  const DwLoops<T>& f = dw_loops<T>();
  const int64_t kt = g.kh * g.kw, hw = g.h * g.w, ohw = g.oh * g.ow;
  const std::vector<int64_t> tab = tap_table(g);
  auto body = [&](int64_t c0, int64_t c1) {
    const int64_t cb = c1 - c0;
    T* xt = conv_buffer<T>(kBufDwSmallA, hw * cb);
    T* dt = conv_buffer<T>(kBufDwSmallB, ohw * cb);
    T* acc = conv_buffer<T>(kBufDwSmallC, kt * cb);
    std::fill(acc, acc + kt * cb, T(0));
    for (int64_t n = 0; n < g.n; ++n) {
      to_last(x + (n * g.c + c0) * hw, cb, hw, xt);
      to_last(dout + (n * g.o + c0) * ohw, cb, ohw, dt);
      for (int64_t p = 0; p < ohw; ++p) {
        for (int64_t t = 0; t < kt; ++t) {
          const int64_t q = tab[p * kt + t];
          if (q >= 0) f.mac(acc + t * cb, dt + p * cb, xt + q * cb, cb);
        }
      }
    }
    for (int64_t c = 0; c < cb; ++c) {
      for (int64_t t = 0; t < kt; ++t) dw[(c0 + c) * kt + t] = acc[t * cb + c];
    }
  };
  over_channels(g.c, threads, body);
}

}  // namespace

template <class T>
bool dw_small_plan(const ConvGeom& g, DwSmallPlan* plan) {
  const DwLoops<T>& f = dw_loops<T>();
  const int64_t ph = (g.h + g.sh - 1) / g.sh, pw = (g.w + g.sw - 1) / g.sw;  // a phase plane
  if (!f.plane || g.ow != pw || g.o != g.c || g.oh * g.ow < kDwPlaneMin) return false;
  if (!plan) return true;
  const int64_t kt = g.kh * g.kw, np = g.oh * g.ow, lanes = f.lanes;
  const int64_t nv = (np + lanes - 1) / lanes, pp = ph * pw;
  plan->pp = pp;
  plan->pw = pw;
  plan->split = g.sh * g.sw > 1;
  plan->off.assign(static_cast<size_t>(kt), 0);
  plan->masks.assign(static_cast<size_t>(kt * nv), 0u);
  auto floor_div = [](int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  for (int64_t t = 0; t < kt; ++t) {
    // input (oy sh + dy, ox sw + dx) is position (oy + qy, ox + qx) of phase (dy - qy sh,
    // dx - qx sw): p + qy pw + qx there, p = oy pw + ox (the output is a phase plane wide)
    const int64_t dy = (t / g.kw) * g.dh - g.pt, dx = (t % g.kw) * g.dw - g.pl;
    const int64_t qy = floor_div(dy, g.sh), qx = floor_div(dx, g.sw);
    plan->off[t] = ((dy - qy * g.sh) * g.sw + (dx - qx * g.sw)) * pp + qy * pw + qx;
    int64_t ylo, yhi, xlo, xhi;                 // the outputs where the tap is live
    tap_range(dy, g.sh, g.h, g.oh, &ylo, &yhi);
    tap_range(dx, g.sw, g.w, g.ow, &xlo, &xhi);
    uint32_t* m = plan->masks.data() + t * nv;
    for (int64_t oy = ylo; oy < yhi; ++oy) {
      for (int64_t p = oy * g.ow + xlo; p < oy * g.ow + xhi; ++p) {
        m[p / lanes] |= 1u << (p % lanes);
      }
    }
  }
  return true;
}

template <class T>
void dw_small_channel(const DwSmallPlan& plan, const ConvGeom& g, const T* x, const T* w,
                      T bias, int act, T* out, T* scratch) {
  if (plan.split) {
    split_phases(x, g, plan.pp, plan.pw, scratch);
    x = scratch;
  }
  dw_loops<T>().plane(out, x, w, plan.off.data(), plan.masks.data(), g.kh * g.kw,
                      g.oh * g.ow, bias, act);
}

template <class T>
void depthwise_forward(const T* x, const T* w, const T* bias, T* out, const ConvGeom& g,
                       int act, int threads) {
  const DwLoops<T>& f = dw_loops<T>();
  const int64_t m = g.o / g.c, kt = g.kh * g.kw, hw = g.h * g.w, ohw = g.oh * g.ow;
  if (g.n * g.o * ohw == 0) return;
  if (small_plane(g)) return small_forward(x, w, bias, out, g, act, threads);
  const DwPlane p = plane_of(g.h, g.w, g.oh, g.ow, g, g.sh, g.sw, g.pt, g.pl, f.lanes);
  auto body = [&](int64_t o0, int64_t o1) {
    T* ph = phase_buffer<T>(p, f.lanes);
    for (int64_t o = o0; o < o1; ++o) {
      const T b = bias ? bias[o] : T(0);
      for (int64_t n = 0; n < g.n; ++n) {
        f.phases(x + (n * g.c + o / m) * hw, g.h, g.w, p, ph);
        f.forward(ph, w + o * kt, out + (n * g.o + o) * ohw, p, b, act, false);
      }
    }
  };
  over_channels(g.o, threads, body);
}

template <class T>
void depthwise_input(const T* dout, const T* w, T* dx, const ConvGeom& g, int threads) {
  const DwLoops<T>& f = dw_loops<T>();
  const int64_t m = g.o / g.c, kt = g.kh * g.kw, hw = g.h * g.w, ohw = g.oh * g.ow;
  if (g.n * g.c * hw == 0) return;
  if (ohw == 0) {
    std::fill(dx, dx + g.n * g.c * hw, T(0));
    return;
  }
  if (small_plane(g)) return small_input(dout, w, dx, g, threads);
  if (g.sh == 1 && g.sw == 1) {
    // the forward loop over dout with the flipped kernel, padded by the dilated extent - pad
    const DwPlane p = plane_of(g.oh, g.ow, g.h, g.w, g, 1, 1, g.dh * (g.kh - 1) - g.pt,
                               g.dw * (g.kw - 1) - g.pl, f.lanes);
    auto body = [&](int64_t c0, int64_t c1) {
      T* ph = phase_buffer<T>(p, f.lanes);
      std::vector<T> flipped(static_cast<size_t>(kt));
      for (int64_t c = c0; c < c1; ++c) {
        for (int64_t j = 0; j < m; ++j) {
          const T* wo = w + (c * m + j) * kt;
          for (int64_t t = 0; t < kt; ++t) flipped[t] = wo[kt - 1 - t];
          for (int64_t n = 0; n < g.n; ++n) {
            f.phases(dout + (n * g.o + c * m + j) * ohw, g.oh, g.ow, p, ph);
            f.forward(ph, flipped.data(), dx + (n * g.c + c) * hw, p, T(0), 0, j > 0);
          }
        }
      }
    };
    over_channels(g.c, threads, body);
    return;
  }
  // other strides: every tap scattered into dx's phase planes, then read back out
  const DwPlane p = plane_of(g.h, g.w, g.oh, g.ow, g, g.sh, g.sw, g.pt, g.pl, f.lanes);
  const int64_t wp = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  auto body = [&](int64_t c0, int64_t c1) {
    T* ph = phase_buffer<T>(p, f.lanes);
    const int64_t total = p.sw * p.hp * p.wq;
    for (int64_t c = c0; c < c1; ++c) {
      for (int64_t n = 0; n < g.n; ++n) {
        std::fill(ph, ph + total, T(0));
        for (int64_t j = 0; j < m; ++j) {
          f.scatter(dout + (n * g.o + c * m + j) * ohw, w + (c * m + j) * kt, ph, p);
        }
        T* d = dx + (n * g.c + c) * hw;
        for (int64_t iy = 0; iy < g.h; ++iy) {
          const int64_t r = iy + g.pt;
          for (int64_t ix = 0; ix < g.w; ++ix) {
            const int64_t col = ix + g.pl;
            d[iy * g.w + ix] = r < p.hp && col < wp
                                   ? ph[(col % p.sw) * p.hp * p.wq + r * p.wq + col / p.sw]
                                   : T(0);
          }
        }
      }
    }
  };
  over_channels(g.c, threads, body);
}

template <class T>
void depthwise_filter(const T* dout, const T* x, T* dw, const ConvGeom& g, int threads) {
  const DwLoops<T>& f = dw_loops<T>();
  const int64_t m = g.o / g.c, kt = g.kh * g.kw, hw = g.h * g.w, ohw = g.oh * g.ow;
  if (g.n * ohw == 0) {
    std::fill(dw, dw + g.o * kt, T(0));
    return;
  }
  if (small_plane(g)) return small_filter(dout, x, dw, g, threads);
  const DwPlane p = plane_of(g.h, g.w, g.oh, g.ow, g, g.sh, g.sw, g.pt, g.pl, f.lanes);
  auto body = [&](int64_t o0, int64_t o1) {
    T* ph = phase_buffer<T>(p, f.lanes);
    T* acc = conv_buffer<T>(kBufDwAcc, kt * f.lanes);
    for (int64_t o = o0; o < o1; ++o) {
      std::fill(acc, acc + kt * f.lanes, T(0));
      for (int64_t n = 0; n < g.n; ++n) {
        f.phases(x + (n * g.c + o / m) * hw, g.h, g.w, p, ph);
        f.filter(dout + (n * g.o + o) * ohw, ph, acc, p);
      }
      for (int64_t t = 0; t < kt; ++t) {
        T s = T(0);
        for (int l = 0; l < f.lanes; ++l) s += acc[t * f.lanes + l];
        dw[o * kt + t] = s;
      }
    }
  };
  over_channels(g.o, threads, body);
}

#define ML_DW_INSTANTIATE(T)                                                                   \
  template void depthwise_forward<T>(const T*, const T*, const T*, T*, const ConvGeom&, int,  \
                                     int);                                                     \
  template void depthwise_input<T>(const T*, const T*, T*, const ConvGeom&, int);              \
  template void depthwise_filter<T>(const T*, const T*, T*, const ConvGeom&, int);            \
  template bool dw_small_plan<T>(const ConvGeom&, DwSmallPlan*);                               \
  template void dw_small_channel<T>(const DwSmallPlan&, const ConvGeom&, const T*, const T*,  \
                                    T, int, T*, T*);
ML_DW_INSTANTIATE(float)
ML_DW_INSTANTIATE(double)
#undef ML_DW_INSTANTIATE

}  // namespace mindlite
