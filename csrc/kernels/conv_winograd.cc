// Winograd F(2x2, 3x3) / F(4x4, 3x3) driver (conv_winograd.h): the selection rule, and per
// block of tiles (a band of tile rows of one sample) the channels-last gather, the input
// transform, the A^2 GEMMs on the engine's direct register tile and the output transform with
// the epilogue, on per-thread buffers sized to stay in L2; threads take blocks.
#include "kernels/conv_winograd.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "kernels/conv_gemm.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

// V and M of one block: a band of tile rows holding about this many bytes (Zen 4: 1 MiB of
// L2 per core, which also holds the block's channels-last input and a panel of U).
constexpr int64_t kBlockBytes = int64_t(512) << 10;

std::atomic<int> g_mode{[] {
  const char* v = std::getenv("MINDLITE_WINOGRAD");
  if (v == nullptr || v[0] == '\0') return static_cast<int>(kWinogradAuto);
  const int m = std::atoi(v);
  return m == kWinogradOff || m == kWinogradF2 || m == kWinogradF4 ? m
                                                                   : static_cast<int>(kWinogradAuto);
}()};

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

int winograd_mode() { return g_mode.load(std::memory_order_relaxed); }

int set_winograd_mode(int mode) { return g_mode.exchange(mode); }

int winograd_tile(const ConvGeom& g, const std::vector<Tap>& taps) {
  const int mode = winograd_mode();
  if (mode == kWinogradOff || g.kh != 3 || g.kw != 3 || g.sh != 1 || g.sw != 1 || g.dh != 1 ||
      g.dw != 1 || g.group != 1 || taps.size() != 9 || g.c < 8 || g.o < 8) {
    return 0;
  }
  if (mode != kWinogradAuto) return mode;
  // NOTE: the measured rule (docs/conv_engine.md, one Zen 4 thread against the direct
  // engine): F(4x4) from 16 input and output channels on planes of at least 12 x 12.
  if (g.c >= 16 && g.o >= 16 && g.oh >= 12 && g.ow >= 12) return 4;
  return 0;
}

template <class T>
void conv_winograd_forward(const T* x, const T* w, T* out, const ConvGeom& g,
                           const ConvEpilogue<T>& ep, int threads, int m, bool stable_weights) {
  const WinogradLoops<T>& f = winograd_loops<T>();
  const GemmTile<T>& tile = gemm_tile<T>();
  const std::shared_ptr<const WinogradWeights<T>> wu =
      winograd_weights(w, g.o, g.c, m, stable_weights);
  const int a2 = (m + 2) * (m + 2), which = m == 4 ? 1 : 0;
  const int64_t cp = wu->cp, op = wu->op, nr = wu->nr, panels = op / nr;
  const int64_t th = (g.oh + m - 1) / m, tw = (g.ow + m - 1) / m;
  const int64_t per_row = tw * a2 * (cp + op) * static_cast<int64_t>(sizeof(T));
  const int64_t band = std::max<int64_t>(1, std::min(th, kBlockBytes / per_row));
  const int64_t bands = (th + band - 1) / band, cols = m * tw + 2;
  const int64_t hw = g.h * g.w, ohw = g.oh * g.ow;
  const T* u = wu->u.data();
  auto body = [&](int64_t b0, int64_t b1) {
    T* X = conv_buffer<T>(kBufWinoU, (m * band + 2) * cols * cp);
    T* V = conv_buffer<T>(kBufWinoV, a2 * band * tw * cp);
    T* M = conv_buffer<T>(kBufWinoM, a2 * band * tw * op);
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t s = b / bands, ty0 = b % bands * band;
      const int64_t trows = std::min(band, th - ty0), tiles = trows * tw;
      f.gather(x + s * g.c * hw, g.c, g.h, g.w, m * ty0 - g.pt, -g.pl, m * trows + 2, cols,
               cp, X);
      f.input[which](X, cols * cp, cp, trows, tw, V, tiles * cp);
      for (int k = 0; k < a2; ++k) {
        for (int64_t t0 = 0; t0 < tiles; t0 += tile.mr) {
          const int rows = static_cast<int>(std::min<int64_t>(tile.mr, tiles - t0));
          for (int64_t p = 0; p < panels; ++p) {
            tile.direct(cp, V + (k * tiles + t0) * cp, cp, rows, u + (k * panels + p) * cp * nr,
                        nr, M + (k * tiles + t0) * op + p * nr, op, false, nullptr);
          }
        }
      }
      const int64_t at = s * g.o * ohw;
      f.output[which](M, tiles * op, op, g.o, trows, tw, m * ty0, out + at, g.oh, g.ow,
                      ep.bias, ep.residual ? ep.residual + at : nullptr, ep.act);
    }
  };
  split(g.n * bands, threads, body);
}

template void conv_winograd_forward<float>(const float*, const float*, float*, const ConvGeom&,
                                           const ConvEpilogue<float>&, int, int, bool);
template void conv_winograd_forward<double>(const double*, const double*, double*,
                                            const ConvGeom&, const ConvEpilogue<double>&, int,
                                            int, bool);

}  // namespace mindlite
