// The data-movement loops of the convolution kernels (mindlite/kernels/cpu/conv_cpp.py): zero
// padding, im2col / col2im through a per-geometry offset table, and the batch-innermost
// transposes, for float and double. Layouts (all C-contiguous, shapes validated by the caller,
// csrc/bind/conv_bind.cc, every table entry already checked to lie in [0, plane)):
//   the column matrix cols (C K, N P), K = kh kw kernel offsets, P = OH OW output positions;
//   tab (K, P): per kernel offset, the flat index into an (Hp, Wp) plane each position reads.
//   Sample-major columns are n P + p, batch-innermost columns p N + n.
// col2im / col2im_t sum each element's terms in kernel-offset order (then position order),
// the order of the numba loops they replaced, so results are bit-identical to them.
#pragma once

#include <cstdint>

#include "runtime/thread_pool.h"

namespace mindlite {

// xp (N, C, Hp, Wp) = 0, then xp[:, :, top:top + H, left:left + W] = x (N, C, H, W).
template <typename T>
void conv_pad(const T* x, T* xp, int64_t n, int64_t c, int64_t h, int64_t w, int64_t hp,
              int64_t wp, int64_t top, int64_t left);

// cols[c K + k, n P + p] = xp[n, c, tab[k, p]], xp (N, C, HW).
template <typename T>
void conv_im2col(const T* xp, T* cols, const int64_t* tab, int64_t n, int64_t c, int64_t hw,
                 int64_t k, int64_t p);

// dxp (N, C, HW) = 0, then dxp[n, c, tab[k, p]] += cols[c K + k, n P + p].
template <typename T>
void conv_col2im(const T* cols, T* dxp, const int64_t* tab, int64_t n, int64_t c, int64_t hw,
                 int64_t k, int64_t p);

// xt (C, S, N) = 0, then xt[c, (r + top) Wp + left + s, n] = x[n, c, r, s].
template <typename T>
void conv_pad_t(const T* x, T* xt, int64_t n, int64_t c, int64_t h, int64_t w, int64_t s,
                int64_t top, int64_t left, int64_t wp);

// cols[c K + k, p N + n] = xt[c, tab[k, p], n], xt (C, S, N).
template <typename T>
void conv_im2col_t(const T* xt, T* cols, const int64_t* tab, int64_t c, int64_t s, int64_t n,
                   int64_t k, int64_t p);

// dxt (C, S, N) = 0, then dxt[c, tab[k, p], n] += cols[c K + k, p N + n].
template <typename T>
void conv_col2im_t(const T* cols, T* dxt, const int64_t* tab, int64_t c, int64_t s, int64_t n,
                   int64_t k, int64_t p);

// dx[n, c, r, s] = dxt[c, (r + top) Wp + left + s, n], dx (N, C, H, W), dxt (C, S, N).
template <typename T>
void conv_crop_t(const T* dxt, T* dx, int64_t n, int64_t c, int64_t h, int64_t w, int64_t s,
                 int64_t top, int64_t left, int64_t wp);

// dt[o, p N + n] = d[n, o, p], d (N, O, P), dt (O, P N).
template <typename T>
void conv_to_batch_inner(const T* d, T* dt, int64_t n, int64_t o, int64_t p);

// d[n, o, p] = dt[o, p N + n] (the inverse of conv_to_batch_inner).
template <typename T>
void conv_from_batch_inner(const T* dt, T* d, int64_t n, int64_t o, int64_t p);

// dst[n, p, o] = src[n, o, p] for the samples [n0, n1): src (N, O, P), dst (N, P, O), each
// sample's (O, P) matrix transposed in 16 x 16 blocks.
template <typename T>
void conv_to_channels_last(const T* src, T* dst, int64_t n0, int64_t n1, int64_t o, int64_t p);

// Runs body(r0, r1) over [0, rows) in `threads` even chunks on the pool (parallel_for's chunks
// start on multiples of 64, meant for elements, not rows).
template <class F>
void conv_split_rows(int64_t rows, int threads, F& body) {
  struct Ctx {
    F* body;
    int64_t rows;
  } ctx{&body, rows};
  pool_run(threads, threads, [](void* q, int t, int nt) {
    const Ctx& x = *static_cast<const Ctx*>(q);
    const int64_t r0 = x.rows * t / nt, r1 = x.rows * (t + 1) / nt;
    if (r0 < r1) (*x.body)(r0, r1);
  }, &ctx);
}

// dw[o, c, t] = src[o, c L + l] where t == live[l], else 0, for o in [o0, o1): the filter
// gradient of the live taps (src (O, C L)) written out with zeros at the dead ones, dw
// (O, C, T).
template <typename T>
void conv_expand_taps(const T* src, T* dw, const int64_t* live, int64_t o0, int64_t o1,
                      int64_t c, int64_t l, int64_t t);

}  // namespace mindlite
