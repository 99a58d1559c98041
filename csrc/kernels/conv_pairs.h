// Convolutions of tiny planes (up to 4 positions: ResNet18's layer3 and layer4 at a 32 x 32
// training step, any stride) as GEMMs per pair of positions (conv_pairs.cc): the input
// gradient, called first by conv_gemm_backprop_input (conv_backward.cc), and the forward with
// its epilogue, called first by conv_gemm_forward (conv_forward.cc).
//
// dx[., ., p] = sum over the dout positions q of W_t^T dout[., ., q] and out[., ., p] = sum
// over the input positions q of W_t x[., ., q], t the tap joining q to p: on a 2 x 2 'same'
// plane 16 pairs, each an (N x O) x (O x C) product, against the engine's 4 positions x 9 taps
// (5 of 9 (tap, position) terms read padding there).
#pragma once

#include "kernels/conv_engine.h"

namespace mindlite {

// dx = Conv2DBackpropInput(dout, w) for g when g is one group, its input plane at most 4
// positions (16 for strided kernels wider than 1 x 1), 64+ input and output channels, finite
// weights and BLAS attached; false, writing nothing, otherwise. Results do not depend on
// `threads`.
template <class T>
bool conv_backprop_input_pairs(const T* dout, const T* w, T* dx, const ConvGeom& g,
                               int threads);

// out = act(Conv2D(x, w) + bias + residual) under the same conditions, its input and output
// planes at most 4 positions (1 x 1 stride-1 kernels: 1 position), its batch at least 4; the
// epilogue as the engine's (conv_act).
template <class T>
bool conv_forward_pairs(const T* x, const T* w, T* out, const ConvGeom& g,
                        const ConvEpilogue<T>& ep, int threads);

}  // namespace mindlite
