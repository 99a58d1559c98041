// Geometry helpers shared by the convolution engine's kernels (conv_forward.cc,
// conv_backward.cc, conv_depthwise.cc): which kernel taps ever read the input, the output
// columns a tap keeps inside the plane, and the runs of consecutive output positions a block
// of GEMM columns covers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/conv_small.h"

namespace mindlite {

// The positions q in [0, count) whose tap q * stride + off lies in [0, size): [*lo, *hi).
inline void tap_range(int64_t off, int64_t stride, int64_t size, int64_t count, int64_t* lo,
                      int64_t* hi) {
  const int64_t a = off >= 0 ? 0 : (-off + stride - 1) / stride;
  const int64_t b = size - off <= 0 ? 0 : (size - off - 1) / stride + 1;
  *lo = std::min(a, count);
  *hi = std::max(*lo, std::min(b, count));
}

// A kernel tap (i, j) that reads the input for at least one output position, with its input
// offsets dy = i dh - pt, dx = j dw - pl and its index i kw + j in the weight.
struct Tap {
  int64_t dy, dx, index;
};

// The live taps of g (all of them unless the padding leaves some reading only zeros: a 3 x 3
// 'same' convolution of a 1 x 1 plane reads its input through the centre tap alone).
inline std::vector<Tap> live_taps(const ConvGeom& g) {
  std::vector<Tap> taps;
  for (int64_t i = 0; i < g.kh; ++i) {
    int64_t ylo, yhi;
    tap_range(i * g.dh - g.pt, g.sh, g.h, g.oh, &ylo, &yhi);
    if (ylo == yhi) continue;
    for (int64_t j = 0; j < g.kw; ++j) {
      int64_t xlo, xhi;
      tap_range(j * g.dw - g.pl, g.sw, g.w, g.ow, &xlo, &xhi);
      if (xlo < xhi) taps.push_back(Tap{i * g.dh - g.pt, j * g.dw - g.pl, i * g.kw + j});
    }
  }
  return taps;
}

// A run of GEMM columns [q0, q0 + len) of one sample n: output positions p0 .. p0 + len
// (on one output row oy from column ox0 when `rows` was asked for).
struct ColRun {
  int64_t q0, len, n, p0, oy, ox0;
};

// Splits the columns [j0, j0 + cols) of a (batch x plane) column space into runs inside one
// sample (rows = false) or inside one output row of width ow (rows = true). At most
// cols runs; `runs` is overwritten.
inline int split_runs(int64_t j0, int64_t cols, int64_t plane, int64_t ow, bool rows,
                      ColRun* runs) {
  int nr = 0;
  int64_t q = 0;
  while (q < cols) {
    const int64_t j = j0 + q;
    const int64_t n = j / plane, p = j - n * plane;
    int64_t len = plane - p;
    int64_t oy = 0, ox = 0;
    if (rows) {
      oy = p / ow;
      ox = p - oy * ow;
      len = ow - ox;
    }
    len = std::min(len, cols - q);
    runs[nr++] = ColRun{q, len, n, p, oy, ox};
    q += len;
  }
  return nr;
}

}  // namespace mindlite
