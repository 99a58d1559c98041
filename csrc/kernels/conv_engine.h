// The convolution engine's kernels (float32, float64; NCHW activations, OIHW weights, every
// array C-contiguous), built on the packed-panel matrix engine of conv_gemm.h:
//
//   conv_gemm_forward          out = act(Conv2D(x, w) + bias + residual): one GEMM per group,
//                              M = output channels, N = batch x output positions, K = input
//                              channels x live taps; B panels packed straight from x (an
//                              im2col of 32 columns at a time, padding read as zeros, no
//                              padded copy), the epilogue applied as C is written
//   conv_gemm_backprop_input   dx: stride 1 as the forward kernel on dout with the flipped,
//                              transposed weights; other strides W^T dout, scattered into dx
//                              (a col2im in the store, threads on disjoint channels)
//   conv_gemm_backprop_filter  dw = dout x im2col(x)^T as dot products along the batch x
//                              positions axis (both operands contiguous along it), in chunks
//                              of kDotChunk positions
//
// Live taps only (conv_geom.h): a tap that reads nothing but padding contributes exact zeros
// and is skipped (NOTE: a NaN or inf weight on such a tap therefore does not reach the output,
// as in oneDNN's direct kernels; the im2col + BLAS kernels multiply it by 0).
// `threads`: how many pool threads to use (conv_threads(macs) picks the usual count); results
// do not depend on it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <vector>

#include "kernels/conv_geom.h"
#include "kernels/conv_small.h"

namespace mindlite {

// kConvActClip06: Maximum(v, 0) then Minimum(., 6) with the Maximum / Minimum kernels' rules
// (NaN kept, -0 kept): ONNX's Clip(0, 6), the ReLU6 of an exported MobileNet.
enum ConvAct : int { kConvActNone = 0, kConvActRelu, kConvActRelu6, kConvActHSwish,
                     kConvActSiLU, kConvActClip06, kConvNumActs };

template <class T>
struct ConvEpilogue {
  const T* bias = nullptr;       // (O,) or null
  const T* residual = nullptr;   // out's shape, or null; added after the bias
  int act = kConvActNone;        // applied last
};

// The activation `act` of v, with the NaN and signed-zero rules of the ReLU / ReLU6 / HSwish
// kernels (unary_impl.inc): ReLU(-0) = +0, NaN kept; HSwish is 0 at and below -3.
template <class T>
inline T conv_act(T v, int act) {
  switch (act) {
    case kConvActRelu:
      return !(v <= T(0)) ? v : T(0);
    case kConvActRelu6: {
      const T r = !(v <= T(0)) ? v : T(0);
      return !(r >= T(6)) ? r : T(6);
    }
    case kConvActHSwish: {
      if (v != v) return v;
      if (v <= T(-3)) return T(0);
      T t = v + T(3);
      t = t < T(6) ? t : T(6);
      return v * (t / T(6));
    }
    case kConvActSiLU:
      return v * (T(1) / (T(1) + std::exp(-v)));
    case kConvActClip06: {
      const T m = (v > T(0) || v != v) ? v : T(0);
      return (m < T(6) || m != m) ? m : T(6);
    }
    default:
      return v;
  }
}

// Packed weights of one forward convolution: every group's A (conv_gemm.h layout) for the
// live taps of g, back to back. Elements needed / the packing itself:
template <class T>
int64_t conv_packed_size(const ConvGeom& g);
template <class T>
void conv_pack_weights(const T* w, const ConvGeom& g, T* packed);

// out = act(conv(x, w) + bias + residual). `packed`: conv_pack_weights of w for g, or null
// (then w is packed here, into a per-thread buffer).
template <class T>
void conv_gemm_forward(const T* x, const T* w, const T* packed, T* out, const ConvGeom& g,
                       const ConvEpilogue<T>& ep, int threads);

// conv_gemm_forward's core for the live taps `taps` of g: a the weights restricted to them,
// row-major (O, C / group * taps), or packed for g when `packed`. stable_weights: a is the
// caller's weight buffer (Winograd may cache its transform), not a per-call temporary.
template <class T>
void conv_forward_taps(const T* x, const T* a, bool packed, T* out, const ConvGeom& g,
                       const std::vector<Tap>& taps, const ConvEpilogue<T>& ep, int threads,
                       bool stable_weights = true);

// dx (N, C, H, W) = Conv2DBackpropInput(dout (N, O, OH, OW), w); dx is overwritten.
template <class T>
void conv_gemm_backprop_input(const T* dout, const T* w, T* dx, const ConvGeom& g,
                              int threads);

// dw (O, C / group, kh, kw) = Conv2DBackpropFilter(dout, x); dw is overwritten.
template <class T>
void conv_gemm_backprop_filter(const T* dout, const T* x, T* dw, const ConvGeom& g,
                               int threads);

// Multiply-adds of the convolution g (for conv_threads).
inline double conv_macs(const ConvGeom& g) {
  return double(g.n) * g.o * g.oh * g.ow * (g.c / (g.group ? g.group : 1)) * g.kh * g.kw;
}

}  // namespace mindlite
