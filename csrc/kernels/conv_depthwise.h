// Depthwise convolutions (one input channel per group, `m` output channels per input
// channel: O = m C) on NCHW planes, any kernel, stride, dilation and padding, float32 /
// float64, every array C-contiguous:
//
//   depthwise_forward   out[n][o] = act(conv(x[n][o / m], w[o]) + bias[o])
//   depthwise_input     dx[n][c] = sum over o of c's m outputs of the transposed convolution
//   depthwise_filter    dw[o] = sum over n of the correlation of dout[n][o] with x[n][o / m]
//
// Each plane is first copied into `sw` zero-padded phase planes (phase p holds the padded
// columns p, p + sw, ...), so every tap of every output row reads a contiguous run: padding
// lives in those per-thread buffers, not in a padded copy of the tensor, and stride 2 needs no
// strided loads. The loops (conv_depthwise_loops.inc, per instruction set) run 16 float
// outputs per vector with the taps' products accumulated in registers. The input gradient of
// stride 1 is the forward loop with the flipped kernel; of other strides a scatter into dx's
// phase planes. Planes up to kDwSmallWidth wide (the 1 x 1 to 8 x 8 planes of a 32 x 32
// training step, the 7 x 7 ones at 224, where a vector of one row is mostly empty and each
// plane costs a call) run channels-last instead: per block of channels and sample, the plane
// is transposed to (positions, channels) and every tap is one multiply-add over a run of
// channels, at the taps that fall inside the plane only (the forward sums a position's taps in
// registers, a vector of channels at a time). Channels split across the thread pool (the
// channels-last forward on whole vectors of channels); results do not depend on the split.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/conv_small.h"

namespace mindlite {

// g: the convolution's ConvGeom with group == c (and o a multiple of c).
constexpr int64_t kDwSmallWidth = 8;     // planes at most this wide: channels last
// ... or channels first (dw_small_plan) from this many output positions.
// NOTE: one thread, batch 16: 144 ch 8 x 8 182 -> 92 us channels first, but 576 ch 2 x 2
// 42 -> 157, 960 ch 1 x 1 28 -> 259, 144 ch 8 x 8 stride 2 80 -> 98 (a call per plane of one
// vector against vectors of channels).
constexpr int64_t kDwPlaneMin = 32;

template <class T>
void depthwise_forward(const T* x, const T* w, const T* bias, T* out, const ConvGeom& g,
                       int act, int threads);

template <class T>
void depthwise_input(const T* dout, const T* w, T* dx, const ConvGeom& g, int threads);

template <class T>
void depthwise_filter(const T* dout, const T* x, T* dw, const ConvGeom& g, int threads);

// One plane's geometry, as the per-ISA loops see it.
struct DwPlane {
  int64_t h, w, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl;
  int64_t hp, wq;       // phase planes: hp rows of wq columns (+ a vector of slack)
};

// The per-ISA plane loops (conv_depthwise_isa.cc). `ph`: sw phase planes of hp x wq (+ slack).
template <class T>
struct DwLoops {
  // ph <- the phases of src (rows r - pt, columns c - pl of src at padded (r, c); zero outside)
  void (*phases)(const T* src, int64_t sh_rows, int64_t sw_cols, const DwPlane& p, T* ph);
  // out (oh x ow) = act(sum of taps + bias) (accumulate: out += instead, no bias / act)
  void (*forward)(const T* ph, const T* w, T* out, const DwPlane& p, T bias, int act,
                  bool accumulate);
  // ph += taps of dout scattered (the stride > 1 input gradient, before extraction)
  void (*scatter)(const T* dout, const T* w, T* ph, const DwPlane& p);
  // acc[t] += sum over the plane of dout * tap t's view of ph (lane partial sums: kh kw
  // vectors of `lanes` values)
  void (*filter)(const T* dout, const T* ph, T* acc, const DwPlane& p);
  // channels-last rows (the small-plane path's gradients): o[c] += a[c] b[c]
  void (*mac)(T* o, const T* a, const T* b, int64_t n);
  // the channels-last forward at one position: o[c] = act(sum of the live taps (q[t] >= 0) of
  // w[t n + c] x[q[t] n + c], + b[c]), c < n
  void (*taps)(T* o, const T* w, const T* x, const int64_t* q, int64_t kt, int64_t n,
               const T* b, int act);
  // the same sums channels first, for a small plane whose tap t reads position p + off[t] of
  // the flattened plane (stride 1, output as wide as the input): o (np positions) = act(sum
  // over taps of w[t] xb[p + off[t]] where bit p % lanes of masks[t nv + p / lanes] is set
  // (the tap is live at p), + b); xb: the plane, read only where a tap is live. Null where
  // the instruction set has no masked loads and multiply-adds (AVX-512 only).
  void (*plane)(T* o, const T* xb, const T* w, const int64_t* off, const uint32_t* masks,
                int64_t kt, int64_t np, T b, int act);
  int lanes;
};

template <class T>
const DwLoops<T>& dw_loops();

// The channels-first plan of a small plane (DwLoops::plane): per tap its offset in one stride
// phase plane of the input (pp positions each, rows pw apart; the plane itself unless `split`)
// and the lanes where it is live. depthwise_forward runs planes up to kDwSmallWidth wide with
// it where dw_small_plan gives one (one output channel per input channel, the output as wide
// as a phase plane and kDwPlaneMin positions or more, AVX-512), channels last otherwise; the
// same sums either way.
struct DwSmallPlan {
  std::vector<int64_t> off;
  std::vector<uint32_t> masks;
  int64_t pp, pw;
  bool split;
};

// plan null: only whether there is one.
template <class T>
bool dw_small_plan(const ConvGeom& g, DwSmallPlan* plan);

// out (oh x ow) = act(depthwise of one channel plane x (h x w) by the channel's taps w + bias)
// by the plan; scratch: sh sw pp values when the plan is split.
template <class T>
void dw_small_channel(const DwSmallPlan& plan, const ConvGeom& g, const T* x, const T* w,
                      T bias, int act, T* out, T* scratch);

}  // namespace mindlite
