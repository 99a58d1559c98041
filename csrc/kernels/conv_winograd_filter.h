// The filter gradient of 3 x 3 stride-1 convolutions as Winograd F(2x2, 3x3)
// (conv_winograd_filter.cc), for the im2col + BLAS filter gradient of
// mindlite/kernels/cpu/conv_cpp.py (through _C.conv_winograd_filter, bind/conv_bind.cc).
//
// The forward convolution of one 2 x 2 output tile is Y = A^T [(G g G^T) . (B^T d B)] A, so
// the gradient of the 3 x 3 filter g is dg = G^T [sum over tiles (A dY A^T) . (B^T d B)] G:
// per tile the 4 x 4 input patch d and the 2 x 2 output gradient dY are transformed
// (V = B^T d B, M = A dY A^T, with 0 / +-1 entries only: additions, exact up to their own
// rounding), the sum over tiles is 16 GEMMs U[k] (O x C) = M[k] (O x tiles) V[k]^T
// (tiles x C) on BLAS, and dg = G^T U G (entries 1 and 1/2). 16 products per tile and
// (input, output) channel pair instead of 36 for the im2col GEMM (9 taps x 4 positions).
#pragma once

#include <cstdint>

#include "kernels/conv_small.h"

namespace mindlite {

// Whether g is a geometry conv_winograd_filter computes: a 3 x 3 kernel, stride 1, dilation 1,
// one group, an output plane of at least 2 x 2 (on 1 x 1 planes 16 products per tile against
// the live taps' one), BLAS attached, Winograd not turned off (MINDLITE_WINOGRAD=0,
// _C.conv_winograd(0): conv_winograd.h).
bool winograd_filter_applies(const ConvGeom& g);

// dw (O, C, 3, 3) = Conv2DBackpropFilter(dout (N, O, OH, OW), x (N, C, H, W)) for g as
// winograd_filter_applies accepts; false, writing nothing, when dout or x holds a NaN or an
// infinity (the transforms subtract inputs: inf - inf = NaN would reach taps whose own terms
// are finite) or the geometry does not apply. Results do not depend on `threads`.
template <class T>
bool conv_winograd_filter(const T* dout, const T* x, T* dw, const ConvGeom& g, int threads);

}  // namespace mindlite
