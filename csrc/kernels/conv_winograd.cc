// Winograd F(2x2, 3x3) / F(4x4, 3x3) driver (conv_winograd.h): the selection rule, and per
// block of tiles (a band of tile rows of one sample) the channels-last gather, the input
// transform, the A^2 GEMMs on the engine's direct register tile and the output transform with
// the epilogue, on per-thread buffers sized to stay in L2; threads take blocks.
#include "kernels/conv_winograd.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "kernels/elementwise.h"


namespace mindlite {
namespace {

// V and M of one block: a band of tile rows holding about this many bytes (Zen 4: 1 MiB of
// L2 per core, which also holds the block's channels-last input and a panel of U).
// (256 KiB to 1 MiB measured alike on ResNet18's layers at 224.)
constexpr int64_t kBlockBytes = int64_t(512) << 10;
// At least this many tiles per block (when the batch has them): the GEMMs' rows, one
// AVX-512 register tile; each block streams the whole of U once.
constexpr int64_t kMinTiles = 12;
constexpr int64_t kMaxChannelPairs = int64_t(1) << 20;

std::atomic<int> g_mode{[] {
  const char* v = std::getenv("MINDLITE_WINOGRAD");
  if (v == nullptr || v[0] == '\0') return static_cast<int>(kWinogradAuto);
  const int m = std::atoi(v);
  return m == kWinogradOff || m == kWinogradF2 || m == kWinogradF4 || m == kWinogradF2x4
             ? m
             : static_cast<int>(kWinogradAuto);
}()};

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
  // engine): F(4x4) from 16 input and output channels on planes of at least 7 x 7 (ResNet18's
  // 3 x 3 layers at 224 1.3-2.8x, at a 32 x 32 training step's 32 x 32 to 8 x 8 planes
  // 2.0-3.0x); F(2x2) measured below F(4x4) on every such layer. Smaller planes (a 4 x 4
  // training plane: 0.34x when the weights change every call) and 8 channels (0.55x) stay
  // direct. The rule reads the geometry only (the same bits on every call and path), so a
  // 512-channel 7 x 7 layer whose weights change every call (training at 224, batch 1) pays
  // its ~8 ms transform each time (0.3x).
  // Without AVX-512 (the AVX2 tile: 6 x 16) the GEMMs of a few tiles do not repay streaming U
  // (4x the weights) from memory: measured on Zen 4 with MINDLITE_ISA=avx2, 4 tiles (a 7 x 7 or
  // 8 x 8 plane of one sample) of 256 / 512 channels 0.74-0.90x, 16 tiles and more 1.2-2.4x.
  static const bool wide = std::strcmp(kernel_isa(), "avx512") == 0;
  if (!wide && g.n * ((g.oh + 3) / 4) * ((g.ow + 3) / 4) < 16) return 0;
  // Up to 1024 x 1024 channels: U is 4x the weights (151 MiB at 1024 x 1024), memory the
  // direct engine does not need.
  if (g.c * g.o > kMaxChannelPairs) return 0;
  if (g.c < 16 || g.o < 16 || g.oh < 7 || g.ow < 7) return 0;
  // NOTE: F(2x4) where F(4x4) would have at most 4 tiles of wide channels (ResNet18's
  // 512-channel 7 x 7 layers at batch 1): such layers stream U from memory once per call for
  // only 4 tiles per value, and F(2x4)'s U is 24 / 36 of F(4x4)'s (25 MB against 37.7 MB at
  // 512 x 512) for 8 tiles of 24 products (192 per channel pair against 144). Measured on one
  // Zen 4 thread, 3 layers' weights taking turns (docs/conv_engine.md): 512 @ 7 x 7 1.11-1.17
  // against 1.24-1.45 ms, 384 @ 7 x 7 0.70-0.74 against 0.89-1.01, 256 @ 7 x 7 0.27 against
  // 0.28-0.30; 128 @ 7 x 7 (its U stays in cache) 0.072 against 0.056, and more tiles (a batch
  // of 2, 14 x 14 planes) favour F(4x4).
  if (wide && g.n * ((g.oh + 3) / 4) * ((g.ow + 3) / 4) <= 4 && g.c * g.o >= 256 * 256) {
    return kWinogradF2x4;
  }
  return kWinogradF4;
}


template <class T>
bool conv_winograd_forward(const T* x, const T* w, T* out, const ConvGeom& g,
                           const ConvEpilogue<T>& ep, int threads, int m, bool stable_weights) {
  const WinogradLoops<T>& f = winograd_loops<T>();
  const GemmTile<T>& tile = gemm_tile<T>();
  const std::shared_ptr<const WinogradWeights<T>> wu =
      winograd_weights(w, g.o, g.c, m, stable_weights, threads);
  if (!wu->finite || !winograd_all_finite(x, g.n * g.c * g.h * g.w)) return false;
  const WinogradTile dims = winograd_dims(m);
  const int my = dims.my, mx = dims.mx, which = dims.index, a2 = (my + 2) * (mx + 2);
  const int64_t cp = wu->cp, op = wu->op, nr = wu->nr, panels = op / nr;
  const int64_t th = (g.oh + my - 1) / my, tw = (g.ow + mx - 1) / mx;
  const int64_t per_row = tw * a2 * (cp + op) * static_cast<int64_t>(sizeof(T));
  // a block: `band` tile rows (of one or several samples), at least min_tiles tiles (the GEMMs'
  // rows: each block streams the whole of U once)
  const int64_t min_rows = (kMinTiles + tw - 1) / tw;
  const int64_t nrows = g.n * th;
  int64_t band = std::max<int64_t>(1, std::min(nrows, std::max(min_rows, kBlockBytes / per_row)));
  // fewer than two blocks per thread would leave a thread idle for most of a block (ResNet18's
  // 14 x 14 plane: 3 + 1 tile rows): then one block, its GEMMs split over the threads
  if (threads > 1 && (nrows + band - 1) / band < 2 * threads) {
    band = nrows;
  } else if (threads > 1) {       // the band (>= min_rows) whose busiest thread has least to do
    int64_t best = band, cost = (((nrows + band - 1) / band + threads - 1) / threads) * band;
    for (int64_t b = band - 1; b >= std::max<int64_t>(1, min_rows); --b) {
      const int64_t c = (((nrows + b - 1) / b + threads - 1) / threads) * b;
      if (c < cost) best = b, cost = c;
    }
    band = best;                  // (56 x 56, 2 threads: 14 blocks of 1 row, not 7 of 2)
  }
  const int64_t blocks = (nrows + band - 1) / band, cols = mx * tw + 2;
  const int64_t hw = g.h * g.w, ohw = g.oh * g.ow, xseg = (my + 2) * cols * cp;
  const T* u = wu->u;
  // the stages of block b: gather + input transform, the GEMMs of units [u0, u1) (a unit: one
  // k and one panel of output channels), output transform
  // (input channels [c0, c1), c0 a multiple of the vector lanes)
  auto inputs = [&](int64_t b, T* X, T* V, int64_t c0, int64_t c1) {
    const int64_t r0 = b * band, r1 = std::min(nrows, r0 + band), tiles = (r1 - r0) * tw;
    const int64_t real = std::max<int64_t>(0, std::min(g.c, c1) - c0);
    for (int64_t r = r0; r < r1;) {                    // the block's samples, one by one
      const int64_t s = r / th, ty0 = r % th, rows = std::min(th - ty0, r1 - r);
      T* xs = X + (r - r0) * xseg + c0;
      f.gather(x + (s * g.c + std::min(c0, g.c)) * hw, real, g.h, g.w, my * ty0 - g.pt, -g.pl,
               my * rows + 2, cols, cp, c1 - c0, xs);
      f.input[which](xs, cols * cp, cp, c1 - c0, rows, tw, V + (r - r0) * tw * cp + c0,
                     tiles * cp);
      r += rows;
    }
  };
  auto gemms = [&](int64_t b, const T* V, T* M, int64_t u0, int64_t u1) {
    const int64_t r0 = b * band, tiles = (std::min(nrows, r0 + band) - r0) * tw;
    // runs of mr tiles (the GEMMs' rows); when the last run would have 1-3 rows, equal runs
    // instead (14 tiles: 7 + 7, not 12 + 2: a 2-row run does 4 multiply-adds per 2 loads of
    // U; 128 @ 28 x 28 -5%, 64 @ 56 x 56 -1.4%; 16 tiles as 8 + 8 measured no better than
    // 12 + 4). Each row's sums are the same operations in any run, so the same bits.
    const int64_t left = tiles % tile.mr, runs = (tiles + tile.mr - 1) / tile.mr;
    const bool even = left != 0 && left < 4;
    for (int64_t unit = u0; unit < u1; ++unit) {       // a panel of U[k] stays in L1
      const int64_t k = unit / panels, p = unit % panels;
      for (int64_t run = 0; run < runs; ++run) {
        const int64_t t0 = even ? tiles * run / runs : run * tile.mr;
        const int rows = static_cast<int>(
            (even ? tiles * (run + 1) / runs : std::min(tiles, t0 + tile.mr)) - t0);
        tile.direct(cp, V + (k * tiles + t0) * cp, cp, rows, u + unit * cp * nr, nr,
                    M + (k * tiles + t0) * op + p * nr, op, false, nullptr);
      }
    }
  };
  // (output channels [o0, o1), o0 a multiple of the vector lanes)
  auto outputs = [&](int64_t b, const T* M, int64_t o0, int64_t o1) {
    const int64_t r0 = b * band, r1 = std::min(nrows, r0 + band), tiles = (r1 - r0) * tw;
    for (int64_t r = r0; r < r1;) {
      const int64_t s = r / th, ty0 = r % th, rows = std::min(th - ty0, r1 - r);
      const int64_t at = s * g.o * ohw + o0 * ohw;
      f.output[which](M + (r - r0) * tw * op + o0, tiles * op, op, o1 - o0, rows, tw, my * ty0,
                      out + at, g.oh, g.ow, ep.bias ? ep.bias + o0 : nullptr,
                      ep.residual ? ep.residual + at : nullptr, ep.act);
      r += rows;
    }
  };
  const int64_t units = a2 * panels;
  if (blocks >= threads || threads <= 1) {             // threads on blocks
    auto body = [&](int64_t b0, int64_t b1) {
      T* X = conv_buffer<T>(kBufWinoU, band * xseg);
      T* V = conv_buffer<T>(kBufWinoV, a2 * band * tw * cp);
      T* M = conv_buffer<T>(kBufWinoM, a2 * band * tw * op);
      for (int64_t b = b0; b < b1; ++b) {
        inputs(b, X, V, 0, cp);
        gemms(b, V, M, 0, units);
        outputs(b, M, 0, g.o);
      }
    };
    winograd_split(blocks, threads, body);
    return true;
  }
  // fewer blocks than threads (a 7 x 7 or 14 x 14 plane of one sample): the gather and input
  // transform split over the threads by runs of input channels, the GEMMs (nearly all the
  // work) by units, then the output transform by runs of output channels (each value is
  // computed as on one thread)
  T* X = conv_buffer<T>(kBufWinoU, band * xseg);
  T* V = conv_buffer<T>(kBufWinoV, a2 * band * tw * cp);
  T* M = conv_buffer<T>(kBufWinoM, a2 * band * tw * op);
  const int64_t lanes = f.lanes, oblocks = (g.o + lanes - 1) / lanes, cblocks = cp / lanes;
  for (int64_t b = 0; b < blocks; ++b) {
    auto ins = [&](int64_t q0, int64_t q1) { inputs(b, X, V, q0 * lanes, q1 * lanes); };
    winograd_split(cblocks, threads, ins);
    auto part = [&](int64_t u0, int64_t u1) { gemms(b, V, M, u0, u1); };
    winograd_split(units, threads, part);
    auto outs = [&](int64_t q0, int64_t q1) {
      outputs(b, M, q0 * lanes, std::min(g.o, q1 * lanes));
    };
    winograd_split(oblocks, threads, outs);
  }
  return true;
}

template bool conv_winograd_forward<float>(const float*, const float*, float*, const ConvGeom&,
                                           const ConvEpilogue<float>&, int, int, bool);
template bool conv_winograd_forward<double>(const double*, const double*, double*,
                                            const ConvGeom&, const ConvEpilogue<double>&, int,
                                            int, bool);

}  // namespace mindlite
