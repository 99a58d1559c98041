// Winograd F(2x2, 3x3) and F(4x4, 3x3) for 3 x 3, stride-1, undilated, ungrouped convolutions
// (conv_winograd.cc): per m x m block of outputs (m = 2 or 4, A = m + 2), A^2 products per
// (input, output) channel pair instead of 9 m^2, as A^2 GEMMs M[k] (tiles x O) =
// V[k] (tiles x C) @ U[k] (C x O) on the engine's register tile, with U = G g G^T (the
// weights, transformed once per weight version: conv_winograd_weights.cc), V = B^T d B (the
// inputs' A x A tiles, overlapping by 2) and out = A^T M A (+ bias, residual, activation).
// The tiles run in blocks (bands of tile rows of one sample) small enough that a block's
// channels-last input, V and M stay in L2: gather -> input transform -> A^2 GEMMs -> output
// transform, block after block. The transforms are vector loops across channels
// (conv_winograd.inc, per instruction set).
//
// NOTE: accuracy. The transforms are not exact in floating point: against the float64
// reference the float32 results differ by up to ~22 (F(2x2)) / ~35 (F(4x4)) eps times the sum
// of the terms' magnitudes (the direct engine: ~6), F(4x4) by ~1.5e-5 of a layer's largest
// output on normal data (docs/conv_engine.md; tests/test_conv_winograd.py bounds each output
// by 32 / 64 eps times the largest such sum in its tile).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <memory>
#include <vector>

#include "kernels/conv_engine.h"
#include "kernels/conv_gemm.h"
#include "runtime/thread_pool.h"

namespace mindlite {

// The per-instruction-set loops (conv_winograd.inc), indexed by winograd_index: [0] F(2x2),
// [1] F(4x4), [2] F(2x4) (tiles of 2 output rows x 4 columns).
template <class T>
struct WinogradLoops {
  // V[k] (vs apart), tile t at t cp = B^T d B of the trows x tw tiles of X (channels-last
  // rows ldr apart, columns cp apart), channels [0, cn) (X, V offset to a run of channels)
  void (*input[3])(const T* X, int64_t ldr, int64_t cp, int64_t cn, int64_t trows, int64_t tw,
                   T* V, int64_t vs);
  // out (one sample, NCHW) = act(A^T M A + bias (+ res)) for those tiles, output rows from row0
  void (*output[3])(const T* M, int64_t ms, int64_t op, int64_t o, int64_t trows, int64_t tw,
                    int64_t row0, T* out, int64_t oh, int64_t ow, const T* bias,
                    const T* res, int act);
  // X[r][col][c] = x[c][y0 + r][x0 + col] for c < cn (zero outside the plane and for
  // c >= channels; x, X offset to a run of channels)
  void (*gather)(const T* x, int64_t channels, int64_t h, int64_t w, int64_t y0, int64_t x0,
                 int64_t rows, int64_t cols, int64_t cp, int64_t cn, T* X);
  // U (see WinogradWeights) of the output-channel panels [p0, p1) of w (o x c x 3 x 3),
  // computed in float64 and rounded once; whether every value is finite in T
  bool (*weights[3])(const T* w, int64_t o, int64_t c, int64_t cp, int64_t nr, int64_t panels,
                     int64_t p0, int64_t p1, T* u);
  int lanes;
};

template <class T>
const WinogradLoops<T>& winograd_loops();

// Frees a block of winograd_block (conv_winograd_weights.cc).
struct WinogradBlockFree {
  void operator()(void* p) const { std::free(p); }
};
template <class T>
using WinogradBlock = std::unique_ptr<T[], WinogradBlockFree>;

// The transformed weights of one weight version: U[k][o panel][c][nr] (k < A^2, c < cp, the
// engine tile's nr columns of output channels per panel), zero past c and o.
template <class T>
struct WinogradWeights {
  int m;
  int64_t o, c, cp, op, nr, size;
  bool finite;        // every U finite (else the direct engine runs: see conv_winograd_forward)
  const T* u;         // own's, or a per-thread buffer's (uncached: valid during the call)
  WinogradBlock<T> own;
};

// U of w (O x C x 3 x 3) for F(m x m, 3x3); cache: look it up in (and add it to) the bounded
// weight cache, keyed by the weight buffer and checked against a copy of its contents, so a
// weight changed in place (an optimizer step, Parameter.set_data) is transformed again.
template <class T>
std::shared_ptr<const WinogradWeights<T>> winograd_weights(const T* w, int64_t o, int64_t c,
                                                           int m, bool cache, int threads);

// Whether x[0 .. count) holds no NaN and no infinity (exponent bits not all ones, tested on
// integer lanes, so the loop vectorises).
template <class T>
bool winograd_all_finite(const T* x, int64_t count) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr U kExp = sizeof(T) == 4 ? U(0x7f800000u) : U(0x7ff0000000000000ull);
  constexpr int64_t kChunk = 4096;
  for (int64_t i0 = 0; i0 < count; i0 += kChunk) {
    const int64_t i1 = std::min(count, i0 + kChunk);
    U bad = 0;
    for (int64_t i = i0; i < i1; ++i) {
      U b;
      std::memcpy(&b, x + i, sizeof(T));
      bad |= static_cast<U>((b & kExp) == kExp);
    }
    if (bad) return false;
  }
  return true;
}

// Runs body(i0, i1) over [0, count) on up to `threads` pool threads (allocation failures
// surface on the calling thread as std::bad_alloc).
template <class F>
void winograd_split(int64_t count, int threads, F& body) {
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

struct WinogradCacheStats {
  int64_t entries, bytes, limit, hits, misses;
};
WinogradCacheStats winograd_cache_stats();
// Sets the cache's byte bound (evicting down to it; 0 disables the cache); returns the old one.
int64_t set_winograd_cache_limit(int64_t bytes);
void winograd_cache_clear();

// The mode: kWinogradOff (the direct engine everywhere), kWinogradAuto (the measured rule of
// winograd_tile, the default), or F(2x2) / F(4x4) wherever the geometry allows (tests,
// benchmarks). MINDLITE_WINOGRAD=0 / 2 / 4 sets it at import.
enum WinogradMode : int {
  kWinogradOff = 0, kWinogradAuto = 1, kWinogradF2 = 2, kWinogradF4 = 4,
  kWinogradF2x4 = 24,                // F(2x4, 3x3): tiles of 2 output rows x 4 columns
};
int winograd_mode();
int set_winograd_mode(int mode);     // returns the previous mode

// A tile code (2, 4, 24) -> its output rows (my) and columns (mx) per tile and its index in
// WinogradLoops.
struct WinogradTile {
  int my, mx, index;
};
inline WinogradTile winograd_dims(int m) {
  return m == kWinogradF2 ? WinogradTile{2, 2, 0}
         : m == kWinogradF4 ? WinogradTile{4, 4, 1} : WinogradTile{2, 4, 2};
}

// The output tile m (2, 4 or 24) conv_winograd_forward uses for g (with `taps` its live taps), or
// 0 where the direct engine runs it: 3 x 3, stride 1, dilation 1, one group, every tap live.
int winograd_tile(const ConvGeom& g, const std::vector<Tap>& taps);

// out = act(conv(x, w) + bias + residual) for w in OIHW with tile m (winograd_dims);
// stable_weights: w is a caller's weight buffer (cache its transform), not a per-call temporary. Returns false,
// computing nothing, when x or the transformed weights hold a NaN or an infinity: the
// transforms mix a tile's inputs with opposite signs (inf - inf = NaN), so such values would
// reach outputs whose own terms are finite; the direct engine then runs it, with its rules.
template <class T>
bool conv_winograd_forward(const T* x, const T* w, T* out, const ConvGeom& g,
                           const ConvEpilogue<T>& ep, int threads, int m, bool stable_weights);

}  // namespace mindlite
