// The input gradient of tiny planes (up to 4 positions: ResNet18's layer3 and layer4 at a
// 32 x 32 training step, any stride) as GEMMs per pair of positions (conv_backward_small.cc),
// called first by conv_gemm_backprop_input (conv_backward.cc).
//
// dx[., ., p] = sum over the dout positions q of W_t^T dout[., ., q], t the tap joining q to p:
// on a 2 x 2 'same' plane 16 pairs, each an (N x O) @ (O x C) product, against the engine's
// 4 positions x 9 taps (5 of 9 (tap, position) terms read padding there).
#pragma once

#include "kernels/conv_small.h"

namespace mindlite {

// dx = Conv2DBackpropInput(dout, w) for g when g is one group, its input plane at
// most 4 positions, 64+ input and output channels, finite weights and BLAS attached; false,
// writing nothing, otherwise. Results do not depend on `threads`.
template <class T>
bool conv_backprop_input_pairs(const T* dout, const T* w, T* dx, const ConvGeom& g,
                               int threads);

}  // namespace mindlite
