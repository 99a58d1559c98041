// Small 2-D convolutions (LeNet-size: a few channels, planes up to a few thousand positions)
// entirely in C++: per sample and group, an im2col of that sample into a per-thread buffer and
// the packed ISA matrix loop (kernel_tables().matmul, the loop small MatMuls run) straight into
// the output; no padded copy of the input (out-of-range taps read zero through the im2col's
// bounds) and no Python frame between the gather and the GEMM. Used by
// mindlite/kernels/cpu/conv_small_cpp.py through csrc/bind/conv_small_bind.cc, which checks
// every shape before these run. Single-threaded: results do not depend on any thread split.
// Layouts: every array C-contiguous NCHW / OIHW; Cg = C / group input channels and Og = O /
// group output channels per group; Kg = Cg kh kw; P = OH OW.
#pragma once

#include <cstdint>

#include "kernels/elementwise.h"

namespace mindlite {

// The row padding, in bytes, that conv_small_gemm_table()'s loops read B's rows up to.
constexpr int64_t kConvSmallPadBytes = 64;

// C (m x n, row-major) = A (m x k, row-major) @ B (k x n), B's row p starting at b + off[p]
// (elements) and readable up to a multiple of kConvSmallPadBytes past column n.
using ConvSmallGemm = void (*)(const void* a, const void* b, const int64_t* off, void* c,
                               int64_t m, int64_t n, int64_t k);

// The matrix loop of these kernels by dtype (kF32, kF64), for the instruction set
// kernel_isa() names (conv_small_isa.cc).
const ConvSmallGemm* conv_small_gemm_table();

struct ConvGeom {
  int64_t n, c, h, w;       // input (or dx) shape
  int64_t o, kh, kw;        // weight (O, C / group, kh, kw)
  int64_t oh, ow;           // output plane
  int64_t sh, sw, dh, dw;   // stride, dilation
  int64_t pt, pl;           // top and left padding (bottom / right: taps past H / W read 0)
  int64_t group;
};

// out (N, O, OH, OW) = Conv2D(x (N, C, H, W), w (O, Cg, kh, kw)).
template <typename T>
void conv_small_forward(const T* x, const T* w, T* out, const ConvGeom& g);

// dx (N, C, H, W) = Conv2DBackpropInput(dout (N, O, OH, OW), w); dx is overwritten.
template <typename T>
void conv_small_backprop_input(const T* dout, const T* w, T* dx, const ConvGeom& g);

// dw (O, Cg, kh, kw) = Conv2DBackpropFilter(dout (N, O, OH, OW), x); each element sums its
// terms in (sample, output position) order.
template <typename T>
void conv_small_backprop_filter(const T* dout, const T* x, T* dw, const ConvGeom& g);

}  // namespace mindlite
