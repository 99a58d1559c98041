// MobileNetV2's inverted-residual block as one kernel (Lite runtime / graph mode's
// FusedInvertedResidual node, made by jit/passes/fuse_inverted_residual.py):
//
//   out = act3(project(act2(depthwise(act1(expand(x) + b1)) + b2)) + b3 (+ residual))
//
// expand and project 1 x 1 (stride 1, unpadded, one group), depthwise one channel per group
// (any kernel, stride, dilation, padding), each with its optional bias and activation, as
// FusedConvAct computes them one by one. The block runs over bands of output rows: per band
// the expansion of the input rows the band reads (the rows the previous band of the same
// thread already expanded are kept, not recomputed), the depthwise rows from them, and the
// projection of those rows, written once; the expanded and depthwise bands live in per-thread
// buffers sized for L2, so the 6C-channel intermediates never reach memory. Each step is the
// unfused kernels' loop on a sub-plane (the pointwise direct tile and its tail rules of
// conv_forward.cc, the depthwise phase planes and row loops of conv_depthwise.h), so every
// output has the unfused kernels' bits, whatever the bands and the thread count.
#pragma once

#include <cstdint>

#include "kernels/conv_small.h"

namespace mindlite {

// One convolution of the block: its weights, its bias (or null) and its activation (ConvAct).
template <class T>
struct IrStage {
  const T* w;
  const T* bias;
  int act;
};

// g: the depthwise convolution's geometry (c == o == the expanded channels, group == c; h, w
// the input plane, oh, ow the output plane). x (n, cin, h, w); out and residual (null: none)
// (n, cout, oh, ow). expand.w null: no expansion (MobileNetV2's block 0: depthwise ->
// project), cin == g.c, the depthwise layer reading x's rows in place.
template <class T>
void inverted_residual_forward(const T* x, const IrStage<T>& expand, const IrStage<T>& dw,
                               const IrStage<T>& project, const T* residual, T* out,
                               const ConvGeom& g, int64_t cin, int64_t cout, int threads);

// Whether the unfused program runs these three convolutions on the paths this kernel mirrors
// (the pointwise direct tile for both 1 x 1 convolutions: planes of at least a vector, or
// batch 1; the depthwise phase planes: one output channel per input channel and outputs wider
// than kDwSmallWidth), so that the fused kernel gives its bits.
template <class T>
bool inverted_residual_supported(const ConvGeom& g);

}  // namespace mindlite
