// Winograd F(2x2, 3x3) for 3 x 3, stride-1, undilated, ungrouped convolutions (conv_winograd.cc):
// per 2 x 2 block of outputs, 16 products per (input, output) channel pair instead of 36, as
// 16 GEMMs M[k] (O x tiles) = U[k] (O x C) @ V[k] (C x tiles) on the engine's register tile,
// with U = G g G^T (the weights, transformed per call), V = B^T d B (the inputs, 4 x 4 tiles
// overlapping by 2) and out = A^T M A (+ bias, residual, activation). The transforms are
// vector loops along rows of tiles (conv_winograd.inc, per instruction set).
//
// NOTE: accuracy. G has entries 1/2, so U and the sums are not exact: measured against the
// direct convolution in float64, the float32 results differ by up to ~2x the direct kernel's
// rounding (tests/test_conv_winograd.py bounds it by 4 eps times the sum of |terms|).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/conv_engine.h"

namespace mindlite {

template <class T>
struct WinogradLoops {
  void (*input)(const T* x, int64_t h, int64_t w, int64_t pt, int64_t pl, int64_t th,
                int64_t tw, T* V, int64_t vs, T* ph);
  void (*output)(const T* M, int64_t ms, int64_t th, int64_t tw, T* out, int64_t oh,
                 int64_t ow, T bias, const T* res, int act);
  int lanes;
};

template <class T>
const WinogradLoops<T>& winograd_loops();

// Whether the engine uses Winograd at all (off by default: see conv_winograd.cc), and the
// switch (returns the previous setting).
bool winograd_enabled();
bool set_winograd(bool on);

// Whether conv_winograd_forward takes g (with `taps` its live taps): 3 x 3, stride 1,
// dilation 1, one group, every tap live, and enough channels and tiles to repay the
// transforms.
bool winograd_applicable(const ConvGeom& g, const std::vector<Tap>& taps);

// out = act(conv(x, w) + bias + residual) for w in OIHW.
template <class T>
void conv_winograd_forward(const T* x, const T* w, T* out, const ConvGeom& g,
                           const ConvEpilogue<T>& ep, int threads);

}  // namespace mindlite
