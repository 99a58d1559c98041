"""The convolution engine's kernels (csrc/kernels/conv_engine.h, entry points
csrc/bind/conv_engine_bind.cc), registered as C builtins: Conv2D and the input gradient
(Conv2DBackpropInput, Conv2DTranspose) of float32 / float64, any stride, dilation, padding and
group, for convolutions of at least MIN_MACS multiply-adds with enough GEMM rows (below that,
LeNet-size ones, the small-convolution kernels of conv_small_cpp.py stay: they need no thread
launch).

Forward: per group one GEMM out (O x N P) = W (O x C T) @ im2col(x) with the packed-panel
engine (AVX-512: 12 x 32 register tiles), B panels packed straight from x 32 output positions
at a time (padding read as zeros, no padded copy, no im2col buffer), taps that read only
padding skipped (a 3 x 3 'same' convolution of a 1 x 1 plane costs one tap), threads over
column panels (or rows when the batch x plane is narrow). Input gradient: stride 1 as the
forward convolution of dout with the flipped, transposed weights; other strides W^T dout
scattered into dx, threads on whole input channels. Results do not depend on the thread count.
3 x 3 stride-1 convolutions of 16+ channels on planes of 7 x 7 and more (and such input
gradients) run as Winograd F(4x4, 3x3) inside _C (csrc/kernels/conv_winograd.h: the rule, the
weight cache), for eager, @jit and the Lite runtime alike.

Depthwise convolutions (one input channel per group) go to conv_depthwise_cpp.py; the filter
gradient keeps conv_cpp.py's im2col + BLAS kernels (the engine's dot-product filter gradient
was measured slower on planes below ~1000 positions).
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C
from . import conv_small_cpp
from .conv_small_cpp import _shape

FLOATS = (mstype.float32, mstype.float64)
PRIORITY = 22            # above conv_small_cpp.py's 21 and conv_cpp.py's 20
MIN_MACS = 1 << 21
# NOTE: the engine's GEMM has the output channels (the input gradient: the input channels) as
# its rows, in register tiles of 12: where the small-convolution kernels also apply (up to
# their 2**24 multiply-adds) it takes only at least MIN_ROWS rows. Measured on one thread, the
# digits CNN's second layer (batch 64, 16 -> 32 channels, 4 x 4): forward 209 -> 170 us
# (32 rows), input gradient 188 -> 269 us (16 rows: left to conv_small).
MIN_ROWS = 32
# On planes of a few positions with many channels (the 1 x 1 to 2 x 2 planes of a 32 x 32
# training step) the small kernels' per-sample products are short: there the engine (batch
# folded into its columns) takes from TINY_MACS. One thread: MobileNetV2's 576 -> 160 channel
# 1 x 1 at 1 x 1, batch 16 (1.5 M multiply-adds): forward 427 -> 78 us, input gradient
# 555 -> 138 us; 64 -> 384 at 2 x 2: 123 -> 47 / 166 -> 66 us.
TINY_PLANE = 4
TINY_MACS = 1 << 16
# NOTE: 1 x 1 convolutions of one group from MIN_MACS take the engine whatever their rows: at
# stride 1 unpadded it runs them on the direct pointwise tile (conv_forward.cc), which beat
# the small kernels' implicit GEMM on MobileNetV2's projections at 224 (one thread: 32 -> 16
# at 112 x 112 174 vs 241 us, 144 -> 24 at 56 x 56 208 vs 418, 96 -> 24 148 vs 246).


def _dense(groups, cg):
    """Not depthwise: the engine's GEMM wants several input channels per group."""
    return groups == 1 or cg > 1


def _takes(macs, rows, plane):
    if plane <= TINY_PLANE and rows >= MIN_ROWS:
        return macs >= TINY_MACS
    return macs >= MIN_MACS and (rows >= MIN_ROWS or macs > conv_small_cpp.MAX_MACS)


def _forward(x, w, *_):
    xs, ws = _shape(x), _shape(w)
    if xs is None or ws is None or not ws[1]:
        return False
    groups = xs[1] // ws[1]
    macs = xs[0] * ws[0] * xs[2] * xs[3] * ws[1] * ws[2] * ws[3]
    if groups == 1 and ws[2] == ws[3] == 1 and macs >= MIN_MACS:
        return True                 # 1 x 1: the direct pointwise tile, whatever the rows
    return _takes(macs, ws[0] // max(groups, 1), xs[2] * xs[3]) and _dense(groups, ws[1])


def _input(dout, w, *_):
    ds, ws = _shape(dout), _shape(w)
    if ds is None or ws is None or not ws[1]:
        return False
    macs = ds[0] * ds[1] * ds[2] * ds[3] * ws[1] * ws[2] * ws[3]
    return _takes(macs, ws[1], ds[2] * ds[3]) and ws[1] > 1     # (the group is unknown here)


register_kernel("Conv2D", provider="cpp", dtypes=FLOATS, priority=PRIORITY,
                when=_forward)(_C.conv_forward)
register_kernel("Conv2DBackpropInput", provider="cpp", dtypes=FLOATS, priority=PRIORITY,
                when=_input)(_C.conv_backprop_input)
register_kernel("Conv2DTranspose", provider="cpp", dtypes=FLOATS, priority=PRIORITY,
                when=_input)(_C.conv_backprop_input)
