// Winograd F(2x2, 3x3) driver (conv_winograd.h): per chunk of samples, the input transform
// (threads on channels), 16 GEMMs on the engine (threads on the 16 transform positions) and
// the output transform with the epilogue (threads on output channels).
#include "kernels/conv_winograd.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "kernels/conv_gemm.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

constexpr int64_t kMinChannels = 16;
// tiles (batch x 2 x 2 output blocks) per weight: below this the per-call weight transform
// (~50 operations per input / output channel pair) costs more than the GEMMs save
constexpr int64_t kMinTiles = 64;
constexpr int64_t kChunkBytes = int64_t(24) << 20;   // V and M of one chunk of samples

// U[k][o][c] = (G g G^T)[k] for g = w[o][c] (3 x 3), G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1].
template <class T>
void transform_weights(const T* w, int64_t o0, int64_t o1, int64_t o, int64_t c, T* u) {
  for (int64_t oi = o0; oi < o1; ++oi) {
    for (int64_t ci = 0; ci < c; ++ci) {
      const T* g = w + (oi * c + ci) * 9;
      T t[4][3];
      for (int j = 0; j < 3; ++j) {
        t[0][j] = g[j];
        t[1][j] = (g[j] + g[3 + j] + g[6 + j]) * T(0.5);
        t[2][j] = (g[j] - g[3 + j] + g[6 + j]) * T(0.5);
        t[3][j] = g[6 + j];
      }
      for (int i = 0; i < 4; ++i) {
        const T r[4] = {t[i][0], (t[i][0] + t[i][1] + t[i][2]) * T(0.5),
                        (t[i][0] - t[i][1] + t[i][2]) * T(0.5), t[i][2]};
        for (int j = 0; j < 4; ++j) u[((i * 4 + j) * o + oi) * c + ci] = r[j];
      }
    }
  }
}

template <class T>
struct GemmIo {
  const T* v;        // V[k]: (C, tiles)
  T* m;              // M[k]: (O, tiles)
  int64_t tiles;
  int nr;
};

template <class T>
void pack_v(const void* p, int64_t k0, int64_t kc, int64_t j0, int64_t cols, T* dst) {
  const GemmIo<T>& c = *static_cast<const GemmIo<T>*>(p);
  for (int64_t kk = 0; kk < kc; ++kk) {
    T* d = dst + kk * c.nr;
    std::memcpy(d, c.v + (k0 + kk) * c.tiles + j0, cols * sizeof(T));
    std::fill(d + cols, d + c.nr, T(0));
  }
}

template <class T>
void store_m(const void* p, int64_t i0, int64_t i1, int64_t j0, int64_t cols, const T* cb,
             int64_t ldc) {
  const GemmIo<T>& c = *static_cast<const GemmIo<T>*>(p);
  for (int64_t i = i0; i < i1; ++i) {
    std::memcpy(c.m + i * c.tiles + j0, cb + (i - i0) * ldc, cols * sizeof(T));
  }
}

// Runs body(i0, i1) over [0, count) on up to `threads` pool threads (allocation failures
// surface on the calling thread).
template <class F>
void split(int64_t count, int threads, F& body) {
  const int nth = static_cast<int>(std::min<int64_t>(threads, count));
  if (nth <= 1) {
    body(0, count);
    return;
  }
  struct Ctx {
    F* body;
    int64_t count;
    PoolErrors errors;
  } ctx{&body, count, {}};
  pool_run(nth, static_cast<int>(std::min<int64_t>(count, 4 * nth)), [](void* p, int i, int n) {
    Ctx& x = *static_cast<Ctx*>(p);
    x.errors.guard([&] { (*x.body)(x.count * i / n, x.count * (i + 1) / n); });
  }, &ctx);
  ctx.errors.rethrow();
}

}  // namespace

namespace {

// NOTE: off by default: measured on one Zen 4 thread, the transforms (vectors along rows of
// tiles, mostly empty on the 2 x 2 to 8 x 8 planes of a 32 x 32 training step) and the V / M
// round trips through L3 on 56 x 56 planes cost what the 16-instead-of-36 products save
// (ResNet18 layers 0.95-2x the direct engine's time). MINDLITE_WINOGRAD=1 or
// _C.conv_winograd(True) turns it on.
std::atomic<bool> g_winograd{[] {
  const char* v = std::getenv("MINDLITE_WINOGRAD");
  return v != nullptr && v[0] == '1';
}()};

}  // namespace

bool winograd_enabled() { return g_winograd.load(std::memory_order_relaxed); }

bool set_winograd(bool on) { return g_winograd.exchange(on); }

bool winograd_applicable(const ConvGeom& g, const std::vector<Tap>& taps) {
  return winograd_enabled() && g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
         g.group == 1 && taps.size() == 9 && g.c >= kMinChannels && g.o >= kMinChannels &&
         g.n * ((g.oh + 1) / 2) * ((g.ow + 1) / 2) >= kMinTiles;
}

template <class T>
void conv_winograd_forward(const T* x, const T* w, T* out, const ConvGeom& g,
                           const ConvEpilogue<T>& ep, int threads) {
  const WinogradLoops<T>& f = winograd_loops<T>();
  const int64_t th = (g.oh + 1) / 2, tw = (g.ow + 1) / 2, per = th * tw;
  const int64_t hw = g.h * g.w, ohw = g.oh * g.ow;
  T* u = conv_buffer<T>(kBufWinoU, 16 * g.o * g.c);
  auto weights = [&](int64_t o0, int64_t o1) { transform_weights(w, o0, o1, g.o, g.c, u); };
  split(g.o, threads, weights);
  const int64_t per_sample = 16 * (g.c + g.o) * per * static_cast<int64_t>(sizeof(T));
  const int64_t chunk = std::max<int64_t>(1, std::min(g.n, kChunkBytes / per_sample));
  T* v = conv_buffer<T>(kBufWinoV, 16 * g.c * chunk * per);
  T* m = conv_buffer<T>(kBufWinoM, 16 * g.o * chunk * per);
  const GemmTile<T>& tile = gemm_tile<T>();
  for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
    const int64_t nb = std::min(chunk, g.n - n0), tiles = nb * per;
    auto inputs = [&](int64_t c0, int64_t c1) {
      const int64_t size = 2 * (2 * th + 2) * (tw + 1 + f.lanes) + f.lanes;
      T* ph = conv_buffer<T>(kBufDwPhases, size);
      std::fill(ph, ph + size, T(0));
      for (int64_t c = c0; c < c1; ++c) {
        for (int64_t s = 0; s < nb; ++s) {
          f.input(x + ((n0 + s) * g.c + c) * hw, g.h, g.w, g.pt, g.pl, th, tw,
                  v + c * tiles + s * per, g.c * tiles, ph);
        }
      }
    };
    split(g.c, threads, inputs);
    auto gemms = [&](int64_t k0, int64_t k1) {
      for (int64_t k = k0; k < k1; ++k) {
        GemmIo<T> io{v + k * g.c * tiles, m + k * g.o * tiles, tiles, tile.nr};
        GemmJob<T> job{g.o, tiles, g.c, u + k * g.o * g.c, &pack_v<T>, &store_m<T>, &io, g.c};
        gemm_run(job, 0, g.o, 0, (tiles + tile.nr - 1) / tile.nr);
      }
    };
    split(16, threads, gemms);
    auto outputs = [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        for (int64_t s = 0; s < nb; ++s) {
          const int64_t at = ((n0 + s) * g.o + o) * ohw;
          f.output(m + o * tiles + s * per, g.o * tiles, th, tw, out + at, g.oh, g.ow,
                   ep.bias ? ep.bias[o] : T(0), ep.residual ? ep.residual + at : nullptr,
                   ep.act);
        }
      }
    };
    split(g.o, threads, outputs);
  }
}

template void conv_winograd_forward<float>(const float*, const float*, float*, const ConvGeom&,
                                           const ConvEpilogue<float>&, int);
template void conv_winograd_forward<double>(const double*, const double*, double*,
                                            const ConvGeom&, const ConvEpilogue<double>&, int);

}  // namespace mindlite
