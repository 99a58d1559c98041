// The pointwise convolution's columns on the direct tile, for kernels that run it on parts of
// a plane (conv_inverted_residual.cc: bands of rows, runs of channels): the rules of
// conv_forward.cc's pointwise kernel per column, so the same bits wherever a column falls.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/conv_gemm.h"
#include "kernels/conv_pack.h"

namespace mindlite {

// The columns of a p-column plane with K = k that conv_forward.cc's pointwise kernel sums as
// lane-partial dot products (pointwise_tail_dot: the last 1-8 columns of a partial last
// panel, K a whole number of vectors); 0 when it uses the tile for all of them.
template <class T>
int64_t dot_columns(int64_t p, int64_t k) {
  const GemmTile<T>& t = gemm_tile<T>();
  const int64_t nr = t.nr, lanes = nr / 2;
  if (p <= 0 || k == 0 || k % gemm_dot<T>().lanes != 0) return 0;
  const int64_t cols = p - (p - 1) / nr * nr;
  const int64_t r = cols % lanes;
  return cols < nr && r >= 1 && r <= 8 ? r : 0;
}

// c (m x ncols, rows ldc apart) = act(w (m x k, row-major) @ b (k rows ldb apart) + bias
// (+ res, rows ldc apart)), columns from `dot_from` on as lane-partial dot products
// (pointwise_tail_dot's), the others on the direct tile with pointwise_run's rules (a last
// partial group of columns on one vector of the tile when it fits, a window read in place
// ending at the last column, or a zero-padded copy when there are fewer columns than the
// window): per column the same operations as conv_forward.cc's pointwise kernel, so the same
// bits, wherever the column falls in the panels.
template <class T>
void pointwise_cols(const T* w, int64_t m, int64_t k, const T* b, int64_t ldb, int64_t ncols,
                    T* c, int64_t ldc, const T* bias, const T* res, int act, int64_t dot_from) {
  const GemmTile<T>& t = gemm_tile<T>();
  const ConvPack<T>& pk = conv_pack<T>();
  const int64_t nr = t.nr, mr = t.mr, half = nr / 2;
  const int64_t nt = std::max<int64_t>(0, std::min(ncols, dot_from));
  auto ep_at = [&](int64_t i, int64_t j) {
    return GemmEpilogue<T>{bias ? bias + i : nullptr, res ? res + i * ldc + j : nullptr, act};
  };
  int64_t j = 0;
  for (; j + nr <= nt; j += nr) {
    for (int64_t i = 0; i < m; i += mr) {
      const int rows = static_cast<int>(std::min(mr, m - i));
      const GemmEpilogue<T> ep = ep_at(i, j);
      t.direct(k, w + i * k, k, rows, b + j, ldb, c + i * ldc + j, ldc, false, &ep);
    }
  }
  const int64_t rem = nt - j;
  if (rem > 0) {
    const int64_t width = rem <= half ? half : nr;
    const GemmDirectFn<T> tile = width == nr ? t.direct : t.direct1;
    const T* bb = b + j;
    int64_t lb = ldb, shift;
    partial_panel(&bb, &lb, &shift, b, nt, rem, width, k);
    for (int64_t i = 0; i < m; i += mr) {
      const int rows = static_cast<int>(std::min(mr, m - i));
      T* o = c + i * ldc + j;
      const GemmEpilogue<T> ep = ep_at(i, j);
      if (rem == width) {
        tile(k, w + i * k, k, rows, bb, lb, o, ldc, false, &ep);
        continue;
      }
      T* ct = conv_buffer<T>(kBufPanelC, mr * width);
      tile(k, w + i * k, k, rows, bb, lb, ct, width, false, nullptr);
      for (int r = 0; r < rows; ++r) {
        std::copy(ct + r * width + shift, ct + r * width + shift + rem, o + r * ldc);
      }
      pk.epilogue(o, ldc, ep.res, rows, rem, ep.bias, act);
    }
  }
  const int64_t nd = ncols - nt;             // the dot-product columns (at most 8)
  if (nd <= 0) return;
  const GemmDot<T>& d = gemm_dot<T>();
  T* bt = conv_buffer<T>(kBufPanelB, nd * k);
  for (int64_t kk = 0; kk < k; ++kk) {
    for (int64_t s = 0; s < nd; ++s) bt[s * k + kk] = b[kk * ldb + nt + s];
  }
  for (int64_t i = 0; i < m; i += mr) {
    const int rows = static_cast<int>(std::min(mr, m - i));
    T* o = c + i * ldc + nt;
    for (int rr = 0; rr < rows; rr += 4) {
      const int ra = std::min(4, rows - rr);
      for (int64_t s = 0; s < nd; s += 6) {
        d.dot(k, w + (i + rr) * k, k, ra, bt + s * k, k,
              static_cast<int>(std::min<int64_t>(6, nd - s)), o + rr * ldc + s, ldc);
      }
    }
    pk.epilogue(o, ldc, res ? res + i * ldc + nt : nullptr, rows, nd, bias ? bias + i : nullptr,
                act);
  }
}

}  // namespace mindlite
