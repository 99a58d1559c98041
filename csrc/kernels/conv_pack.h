// The convolution engine's operand packers and output stores (conv_pack.inc, compiled per
// instruction set in conv_gemm_isa.cc so that their short copies are vector code):
//
//   im2col     B panel of the forward GEMM from x (ConvFwdIo): runs of positions copied
//              straight from x's rows, or (rows narrower than kRunMin) through a per-panel
//              table of each tap's offsets; padding reads as zeros
//   store_out  the forward's epilogue: C rows + bias (+ residual), activation, into NCHW out
//   rows       B panel of dout rows (ConvColIo): columns (sample, position) of O rows
//   col2im     the stride > 1 input gradient's store: each C row (input channel, tap) added
//              into dx at the positions its tap reads
#pragma once

#include <cstdint>

#include "kernels/conv_gemm.h"
#include "kernels/conv_geom.h"

namespace mindlite {

constexpr int64_t kRunMin = 4;    // output rows at least this wide are packed run by run

template <class T>
struct ConvFwdIo {
  const T* x;             // the group's first input channel of sample 0
  int64_t xs_n;           // sample stride of x (C H W)
  int64_t h, w, ow, plane, sh, sw;
  const Tap* taps;
  int64_t nt;
  bool pointwise;         // input position = output position (1 x 1, stride 1, no padding)
  int nr;
  T* out;                 // the group's first output channel of sample 0
  int64_t os_n;           // sample stride of out (O P)
  const T* bias;          // the group's bias, or null
  const T* residual;      // laid out as out (group offset applied), or null
  int act;
};

template <class T>
struct ConvColIo {
  const T* dout;        // the group's first dout channel of sample 0
  int64_t ds_n, plane;  // dout's sample stride (O P), P
  int nr;
  T* dx;                // the group's first dx channel of sample 0
  int64_t xs_n, h, w, ow, sh, sw;
  const Tap* taps;
  int64_t nt;
};

template <class T>
struct ConvPack {
  PackB<T> im2col;       // ctx: ConvFwdIo<T>
  StoreC<T> store_out;   // ctx: ConvFwdIo<T>
  PackB<T> rows;         // ctx: ConvColIo<T>
  StoreC<T> col2im;      // ctx: ConvColIo<T>
  // in place: d[i][q] = act(d[i][q] + bias[i] (+ res[i][q])), rows x cols, rows ld apart
  void (*epilogue)(T* d, int64_t ld, const T* res, int64_t rows, int64_t cols, const T* bias,
                   int act);
};

// The packers of the instruction set kernel_isa() names.
template <class T>
const ConvPack<T>& conv_pack();

}  // namespace mindlite
