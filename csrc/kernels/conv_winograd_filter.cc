// Winograd F(2x2, 3x3) filter gradient (conv_winograd_filter.h: the algebra).
//
// Tiles: the output plane in 2 x 2 tiles, th = ceil(OH / 2) by tw = ceil(OW / 2) per sample,
// nt = N th tw in all, tile t = (n th + ty) tw + tx reading the input rows 2 ty - pt ..
// 2 ty - pt + 3 and columns 2 tx - pl .. + 3; input outside the plane is 0, and so is the
// output gradient of a tile's positions past OH / OW (an odd plane), so every term is exact.
// Buffers (per call): V (16, C, nt), M (16, O, nt), U (16, O, C). The input transform runs
// per (input channel, sample), the output gradient's per (output channel, sample): each
// computes a tile row's 4 row combinations as vectors along the row, then the 4 column
// combinations per tile, writing 16 streams contiguous in t. The GEMMs are
// _C.batch_gemm's (kernels/blas_gemm.h: the 16 products split over the pool, each on one
// BLAS thread, K never split), so the bits do not depend on the thread count.
#include "kernels/conv_winograd_filter.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "kernels/blas_gemm.h"
#include "kernels/blas_threads.h"
#include "kernels/conv_loops.h"
#include "kernels/conv_winograd.h"

namespace mindlite {
namespace {

// The 16 matrices of V and M start kStreamSkew elements past a multiple of their size: a tile
// writes one run to each of the 16, and with sizes a multiple of 4 KiB (64 x 256 floats) the
// 16 store streams fell in one L1 set (the tile transforms cost as much as the GEMMs).
constexpr int64_t kStreamSkew = 16;

template <class T>
struct WfJob {
  const T* dout;
  const T* x;
  const ConvGeom* g;
  int64_t th, tw, nt;
  int64_t vs, ms;   // the k strides of V and M (see kStreamSkew)
  T* xt;          // x channels last (N, H W, C)
  T* dt;          // dout channels last (N, OH OW, O)
  T* v;           // (16, nt, C)
  T* m;           // (16, nt, O)
  const T* zero;  // max(C, O) zeros: a position outside the plane
};

// V[k][t][.] = (B^T d B)[k] of tile t over the input channels (d its 4 x 4 input patch).
template <class T>
void input_tile(const WfJob<T>& j, int64_t t) {
  const ConvGeom& g = *j.g;
  const int64_t n = t / (j.th * j.tw), r = t - n * j.th * j.tw, ty = r / j.tw, tx = r - ty * j.tw;
  const int64_t c = g.c, ks = j.vs;
  const T* p[4][4];
  for (int a = 0; a < 4; ++a) {
    const int64_t iy = 2 * ty - g.pt + a;
    for (int b = 0; b < 4; ++b) {
      const int64_t ix = 2 * tx - g.pl + b;
      p[a][b] = iy >= 0 && iy < g.h && ix >= 0 && ix < g.w ?
                j.xt + ((n * g.h + iy) * g.w + ix) * c : j.zero;
    }
  }
  T* out = j.v + t * c;
#pragma GCC ivdep
  for (int64_t i = 0; i < c; ++i) {
    T e[4][4];
    for (int b = 0; b < 4; ++b) {   // B^T d: d0 - d2, d1 + d2, d2 - d1, d1 - d3
      const T d0 = p[0][b][i], d1 = p[1][b][i], d2 = p[2][b][i], d3 = p[3][b][i];
      e[0][b] = d0 - d2;
      e[1][b] = d1 + d2;
      e[2][b] = d2 - d1;
      e[3][b] = d1 - d3;
    }
    for (int a = 0; a < 4; ++a) {   // (B^T d) B
      out[(4 * a) * ks + i] = e[a][0] - e[a][2];
      out[(4 * a + 1) * ks + i] = e[a][1] + e[a][2];
      out[(4 * a + 2) * ks + i] = e[a][2] - e[a][1];
      out[(4 * a + 3) * ks + i] = e[a][1] - e[a][3];
    }
  }
}

// M[k][t][.] = (A dY A^T)[k] of tile t over the output channels (dY its 2 x 2 output
// gradient, 0 past the plane).
template <class T>
void grad_tile(const WfJob<T>& j, int64_t t) {
  const ConvGeom& g = *j.g;
  const int64_t n = t / (j.th * j.tw), r = t - n * j.th * j.tw, ty = r / j.tw, tx = r - ty * j.tw;
  const int64_t o = g.o, ks = j.ms;
  const T* q[2][2];
  for (int a = 0; a < 2; ++a) {
    const int64_t y = 2 * ty + a;
    for (int b = 0; b < 2; ++b) {
      const int64_t xx = 2 * tx + b;
      q[a][b] = y < g.oh && xx < g.ow ? j.dt + ((n * g.oh + y) * g.ow + xx) * o : j.zero;
    }
  }
  T* out = j.m + t * o;
#pragma GCC ivdep
  for (int64_t i = 0; i < o; ++i) {
    T e[4][2];
    for (int b = 0; b < 2; ++b) {   // A dY: y0, y0 + y1, y0 - y1, -y1
      const T y0 = q[0][b][i], y1 = q[1][b][i];
      e[0][b] = y0;
      e[1][b] = y0 + y1;
      e[2][b] = y0 - y1;
      e[3][b] = -y1;
    }
    for (int a = 0; a < 4; ++a) {   // (A dY) A^T
      out[(4 * a) * ks + i] = e[a][0];
      out[(4 * a + 1) * ks + i] = e[a][0] + e[a][1];
      out[(4 * a + 2) * ks + i] = e[a][0] - e[a][1];
      out[(4 * a + 3) * ks + i] = -e[a][1];
    }
  }
}

// dw[o][c] = G^T U[.][o][c] G for the output channels [o0, o0 + rows): U (16, rows, C) holds
// their products, one matrix every us elements. Vectors along c, then 9 strided stores.
template <class T>
void filter_out(const ConvGeom& g, const T* u, int64_t us, T* dw, int64_t o0, int64_t rows) {
  constexpr int64_t kC = 16;
  const T h = T(0.5);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c0 = 0; c0 < g.c; c0 += kC) {
      const int64_t nc = std::min(kC, g.c - c0);
      const T* ur = u + r * g.c + c0;
      T t[3][4][kC], d[9][kC];
      for (int b = 0; b < 4; ++b) {        // G^T U: u0 + (u1 + u2) / 2, (u1 - u2) / 2, ...
        const T* u0 = ur + b * us;
        const T* u1 = u0 + 4 * us;
        const T* u2 = u1 + 4 * us;
        const T* u3 = u2 + 4 * us;
        for (int64_t i = 0; i < nc; ++i) {
          const T p = (u1[i] + u2[i]) * h;
          t[0][b][i] = u0[i] + p;
          t[1][b][i] = (u1[i] - u2[i]) * h;
          t[2][b][i] = p + u3[i];
        }
      }
      for (int a = 0; a < 3; ++a) {        // (G^T U) G
        for (int64_t i = 0; i < nc; ++i) {
          const T p = (t[a][1][i] + t[a][2][i]) * h;
          d[3 * a][i] = t[a][0][i] + p;
          d[3 * a + 1][i] = (t[a][1][i] - t[a][2][i]) * h;
          d[3 * a + 2][i] = p + t[a][3][i];
        }
      }
      T* out = dw + ((o0 + r) * g.c + c0) * 9;
      for (int64_t i = 0; i < nc; ++i) {
        for (int k = 0; k < 9; ++k) out[i * 9 + k] = d[k][i];
      }
    }
  }
}

// Output channels per block of the GEMMs and the output transform: a block's U (16 x rows x C)
// about kUBlockBytes (it stays in L2 between its GEMMs and its transform), at least two blocks
// when there are 32+ output channels (a function of the shape alone: the same blocks, so the
// same bits, on any thread count).
constexpr int64_t kUBlockBytes = int64_t(512) << 10;

int64_t block_rows(const ConvGeom& g, int64_t elem) {
  int64_t rows = std::max<int64_t>(1, kUBlockBytes / (16 * g.c * elem));
  if (g.o >= 32) rows = std::min(rows, (g.o + 1) / 2);
  return std::min(rows, g.o);
}

}  // namespace

bool winograd_filter_applies(const ConvGeom& g) {
  return g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
         g.group == 1 && g.n > 0 && g.c > 0 && g.o > 0 && g.h > 0 && g.w > 0 && g.oh >= 2 &&
         g.ow >= 2 && winograd_mode() != kWinogradOff && blas_gemm_attached();
}

template <class T>
bool conv_winograd_filter(const T* dout, const T* x, T* dw, const ConvGeom& g, int threads) {
  if (!winograd_filter_applies(g) || !winograd_all_finite(x, g.n * g.c * g.h * g.w) ||
      !winograd_all_finite(dout, g.n * g.o * g.oh * g.ow)) {
    return false;
  }
  const int64_t plane = g.h * g.w, oplane = g.oh * g.ow;
  WfJob<T> j{dout, x, &g, (g.oh + 1) / 2, (g.ow + 1) / 2, 0, 0, 0,
             nullptr, nullptr, nullptr, nullptr, nullptr};
  j.nt = g.n * j.th * j.tw;
  j.vs = j.nt * g.c + kStreamSkew;
  j.ms = j.nt * g.o + kStreamSkew;
  std::unique_ptr<T[]> xt(new T[g.n * plane * g.c]), dt(new T[g.n * oplane * g.o]),
      v(new T[16 * j.vs]), m(new T[16 * j.ms]);
  std::vector<T> zero(std::max(g.c, g.o), T(0));
  j.xt = xt.get();
  j.dt = dt.get();
  j.v = v.get();
  j.m = m.get();
  j.zero = zero.data();
  auto to_last = [&](int64_t i0, int64_t i1) {     // per sample: x, then dout, channels last
    for (int64_t i = i0; i < i1; ++i) {
      if (i < g.n) {
        conv_to_channels_last(x, j.xt, i, i + 1, g.c, plane);
      } else {
        const int64_t n = i - g.n;
        conv_to_channels_last(dout, j.dt, n, n + 1, g.o, oplane);
      }
    }
  };
  winograd_split(2 * g.n, threads, to_last);
  auto tiles = [&](int64_t i0, int64_t i1) {        // the input tiles, then the gradient's
    for (int64_t i = i0; i < i1; ++i) {
      if (i < j.nt) {
        input_tile(j, i);
      } else {
        grad_tile(j, i - j.nt);
      }
    }
  };
  winograd_split(2 * j.nt, threads, tiles);
  // per block of output channels: U[k] (rows x C) = M[k]^T (rows x nt) V[k] (nt x C) on one
  // BLAS thread each, then its output transform
  const int64_t rows = block_rows(g, sizeof(T)), nblocks = (g.o + rows - 1) / rows;
  const int64_t us = rows * g.c + kStreamSkew;
  auto blocks = [&](int64_t b0, int64_t b1) {
    std::unique_ptr<T[]> u(new T[16 * us]);
    for (int64_t bi = b0; bi < b1; ++bi) {
      const int64_t o0 = bi * rows, nr = std::min(rows, g.o - o0);
      for (int k = 0; k < 16; ++k) {
        blas_gemm<T>(true, false, nr, g.c, j.nt, j.m + k * j.ms + o0, g.o, j.v + k * j.vs, g.c,
                     T(0), u.get() + k * us, g.c, true);
      }
      filter_out(g, u.get(), us, dw, o0, nr);
    }
  };
  blas_single_enter();
  struct Exit {
    ~Exit() { blas_single_exit(); }
  } exit_single;
  winograd_split(nblocks, threads, blocks);
  return true;
}

template bool conv_winograd_filter<float>(const float*, const float*, float*, const ConvGeom&,
                                          int);
template bool conv_winograd_filter<double>(const double*, const double*, double*,
                                           const ConvGeom&, int);

}  // namespace mindlite
