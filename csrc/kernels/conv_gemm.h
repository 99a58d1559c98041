// The packed-panel matrix engine of the convolution kernels (conv_forward.cc, conv_backward.cc,
// conv_winograd.cc): C (M x N) = A (M x K) @ B (K x N), blocked as BLIS / oneDNN / MLAS do.
//
//   A: packed once per call (or once per weight version: conv_pack_cache.h) by pack_a_rows /
//      pack_a_cols into K blocks of kGemmKc, each a run of row panels of MR rows stored k-major
//      (panel[k][r]); rows past M are zero.
//   B: packed per column panel of NR columns and K block by the caller's packer (an im2col of
//      the input, a copy of dout rows, ...), k-major (panel[k][j]); columns past N are zero.
//   C: the micro-kernel (the ISA's register tile, conv_gemm_tile.inc) accumulates MR x NR
//      tiles into a per-thread buffer holding every row of a block of column panels; when the
//      last K block is done the caller's store writes them out (the epilogue: bias,
//      activation, residual add, a scatter to NCHW or a col2im).
//
// Every C element sums its K terms in K order, blocks of kGemmKc in order, whatever the thread
// split, so results do not depend on the number of threads. float32 and float64; the tile is
// MR x NR = 12 x 2 vectors on AVX-512, 6 x 2 on AVX2 + FMA, 4 x 2 on the baseline.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <new>

namespace mindlite {

// A failed allocation inside a pool task cannot unwind into the pool: guard() catches it,
// and rethrow() (on the launching thread, after the launch) raises std::bad_alloc.
class PoolErrors {
 public:
  template <class F>
  void guard(F&& f) {
    try {
      f();
    } catch (...) {
      failed_.store(true);
    }
  }
  void rethrow() const {
    if (failed_.load()) throw std::bad_alloc();
  }

 private:
  std::atomic<bool> failed_{false};
};

constexpr int64_t kGemmKc = 256;        // K block (a 12 x 256 float A panel: 12 KiB)
constexpr int kGemmMaxMr = 12;
constexpr int kGemmMaxNr = 32;          // float lanes of two AVX-512 vectors
constexpr int kGemmMaxPanels = 16;      // column panels stored at once (a block)
constexpr int kGemmMaxStoreCols = kGemmMaxPanels * kGemmMaxNr;

// c (MR x NR, rows ldc apart) = (accumulate ? c : 0) + a (kc x MR) @ b (kc x NR).
template <class T>
using GemmTileFn = void (*)(int64_t kc, const T* a, const T* b, T* c, int64_t ldc,
                            bool accumulate);

// The same with tile row r read at a + r lda (A row-major, not packed).
template <class T>
using GemmTileRowsFn = void (*)(int64_t kc, const T* a, int64_t lda, const T* b, T* c,
                                int64_t ldc, bool accumulate);

// The direct tile's optional epilogue: c = act(sum + bias[r] (+ res[r][q])), act a ConvAct
// (conv_engine.h); bias null adds 0; res rows ldc apart as c's.
template <class T>
struct GemmEpilogue {
  const T* bias;
  const T* res;
  int act;
};

// c (rows x NR, rows ldc apart) = (accumulate ? c : 0) + a (rows x kc, rows lda apart) @
// b (kc x NR, rows ldb apart), rows <= MR: both operands read in place, the whole kc summed
// in registers; then the epilogue ep (null: none) in registers.
template <class T>
using GemmDirectFn = void (*)(int64_t kc, const T* a, int64_t lda, int rows, const T* b,
                              int64_t ldb, T* c, int64_t ldc, bool accumulate,
                              const GemmEpilogue<T>* ep);

template <class T>
struct GemmTile {
  int mr, nr;
  GemmTileFn<T> tile;
  GemmTileRowsFn<T> tile_rows;
  GemmDirectFn<T> direct;
  GemmDirectFn<T> direct1;      // `direct` on NR / 2 columns (one vector)
};

// The register tile of the instruction set kernel_isa() names (conv_gemm_isa.cc).
template <class T>
const GemmTile<T>& gemm_tile();

// The engine's per-thread work buffers, by use (two uses never share one buffer).
enum ConvBuf : int { kBufPanelB = 0, kBufPanelC, kBufPanelA, kBufPackedW, kBufFlippedW, kBufLiveW,
                     kBufPackedWt, kBufDoutRows, kBufColRows, kBufDwPhases, kBufDwAcc,
                     kBufWinoU, kBufWinoV, kBufWinoM, kBufWinoW, kBufDwSmallA, kBufDwSmallB,
                     kBufDwSmallC, kNumConvBufs };

// A per-thread buffer of at least `count` T, 64-byte aligned; grown, never shrunk, kept until
// the thread exits. NOTE: one thread_local pointer for all of them: _C's TLS sits in glibc's
// static TLS surplus (fast_path.h uses initial-exec TLS), which libgomp (torch) also takes
// from, so thread_local vectors here made `import torch; import mindlite` fail.
template <class T>
T* conv_buffer(ConvBuf which, int64_t count);

inline int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

// The B operand of a partial column panel: `cols` (< width) columns starting at *b of rows
// `k` x `ld`, `total` columns in a row. A tile of `width` columns reads a window ending at the
// row's last column in place (*shift = width - cols: our columns start there), or, when the
// rows are narrower than the window, a zero-padded copy in kBufPanelB (*ld = width).
template <class T>
void partial_panel(const T** b, int64_t* ld, int64_t* shift, const T* row0, int64_t total,
                   int64_t cols, int64_t width, int64_t k) {
  *shift = 0;
  if (cols >= width) return;
  if (total >= width) {
    *shift = width - cols;
    *b = row0 + total - width;
    return;
  }
  T* bt = conv_buffer<T>(kBufPanelB, k * width);
  for (int64_t kk = 0; kk < k; ++kk) {
    std::copy(*b + kk * *ld, *b + kk * *ld + cols, bt + kk * width);
    std::fill(bt + kk * width + cols, bt + (kk + 1) * width, T(0));
  }
  *b = bt;
  *ld = width;
}

// Elements of a packed A of m x k for the current tile.
template <class T>
int64_t packed_a_size(int64_t m, int64_t k) {
  return round_up(m, gemm_tile<T>().mr) * k;
}

// Packs A[i][kk] = src[i * ld + kk] (rows contiguous along K: a weight (O, K) as Conv2D's).
template <class T>
void pack_a_rows(const T* src, int64_t ld, int64_t m, int64_t k, T* dst);

// Packs A[i][kk] = src[kk * ld + i] (columns contiguous along M: a transposed weight).
template <class T>
void pack_a_cols(const T* src, int64_t ld, int64_t m, int64_t k, T* dst);

// Fills dst (kc x NR, k-major) with B[k0 .. k0 + kc) x [j0 .. j0 + cols), zero past cols.
template <class T>
using PackB = void (*)(const void* ctx, int64_t k0, int64_t kc, int64_t j0, int64_t cols,
                       T* dst);

// Writes C rows [i0, i1) x columns [j0, j0 + cols) (cols <= kGemmMaxStoreCols): c points at
// row i0 of a row-major buffer with rows ldc apart (column j0 first).
template <class T>
using StoreC = void (*)(const void* ctx, int64_t i0, int64_t i1, int64_t j0, int64_t cols,
                        const T* c, int64_t ldc);

template <class T>
struct GemmJob {
  int64_t m, n, k;
  const T* a;         // packed by pack_a_rows / pack_a_cols, or row-major when lda > 0
  PackB<T> pack_b;
  StoreC<T> store;
  const void* ctx;
  int64_t lda = 0;    // > 0: A read in place, rows lda apart (a partial last panel is packed)
};

// Runs the rows [i0, i1) (i0 a multiple of MR) and column panels [p0, p1) of `job` on the
// calling thread. `i1` may end inside a panel: the panel is computed whole, stored in part.
template <class T>
void gemm_run(const GemmJob<T>& job, int64_t i0, int64_t i1, int64_t p0, int64_t p1);

// Runs the whole job on up to `threads` threads of the pool, cut by gemm_grid (a chunk with
// part of the rows packs its B panels itself).
// `row_align` > 0: rows only, split on multiples of it (a col2im store, whose columns overlap
// in the output, needs each thread on whole channels).
template <class T>
void gemm_parallel(const GemmJob<T>& job, int threads, int64_t row_align = 0);

// How the pointwise kernel (conv_forward.cc) cuts npanels column panels x nunits row units
// (MR rows) into chunks for `threads` threads: chunk c of cparts x rparts covers column part
// c % cparts and row part c / cparts. Planes of fewer than 16 panels per thread (28 x 28 and
// smaller) are cut in rows, one run per thread, when there are two row units per thread or
// more: each thread then reads only its rows of the weights and writes whole channel planes.
// Otherwise columns, 4 chunks per thread, claimed as threads free up.
// NOTE: measured on MobileNetV2's 1 x 1 layers, 2 threads, each layer alone (min wall time,
// high-priority runs): the previous rule cut a 14 x 14 plane's 7 panels in columns (4 : 3
// between the threads, both writing every channel's rows, sharing the cache lines at the panel
// edges): 64 -> 384 72 -> 57 us, 96 -> 576 150 -> 119 us, 384 -> 96 78 -> 72 us; 4 row runs
// per thread instead of one: 960 -> 320 at 7 x 7 183-184 -> 196-198 us, the rest level.
struct GemmGrid {
  int64_t cparts, rparts;
  int64_t chunks() const { return cparts * rparts; }
};

inline GemmGrid gemm_grid(int64_t npanels, int64_t nunits, int threads) {
  const int64_t t = threads, per = 4 * t;
  if (nunits >= 2 * t && npanels < 4 * per) return GemmGrid{1, t};
  return GemmGrid{std::min(npanels, per), 1};
}

// c (ra x rb, rows ldc apart) = a (ra rows, lda apart) . b (rb rows, ldb apart) over `len`
// elements, len a multiple of the ISA's vector lanes (dot_lanes); ra <= 4, rb <= 6.
template <class T>
using GemmDotFn = void (*)(int64_t len, const T* a, int64_t lda, int ra, const T* b,
                           int64_t ldb, int rb, T* c, int64_t ldc);

template <class T>
struct GemmDot {
  int lanes;
  GemmDotFn<T> dot;
};

template <class T>
const GemmDot<T>& gemm_dot();

// Threads for `macs` multiply-adds: the forced count (set_num_threads) if any, else every
// usable core once the work is worth a launch (2**17 multiply-adds, ~20 us on one core).
int conv_threads(double macs);

}  // namespace mindlite
