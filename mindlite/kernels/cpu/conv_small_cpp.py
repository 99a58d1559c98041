"""Small-convolution C++ kernels (float32, float64): Conv2D, Conv2DBackpropInput /
Conv2DTranspose and Conv2DBackpropFilter for LeNet-size shapes, any stride, dilation,
padding and group.

The kernels are mindlite._C builtins (csrc/kernels/conv_small.cc, entry points in
csrc/bind/conv_small_bind.cc) registered directly, so the eager fast path, the @jit graph
runner and the Lite runtime launch them without a Python frame: per sample and group, an
im2col of that sample (bounds-checked, no padded copy of the input) into a per-thread buffer
and the packed ISA matrix loop small MatMuls run, writing straight into the output. One
thread, so results do not depend on any thread split. They sit one priority above the
im2col + BLAS kernels of conv_cpp.py and are chosen only where measured faster (the `when`
predicates below); everything else keeps conv_cpp.py's kernels.

Stride-1 convolutions skip the im2col: the input is copied once into a zero-bordered plane
and the GEMM reads each tap's row of the column matrix straight from it (an implicit GEMM);
the input gradient of a stride-1 convolution whose pads do not exceed the dilated kernel is
the same loop run on dout with the flipped, transposed weights.

Measured on the loaded 2-core machine (float32, the fastest of 5 batches of 300 calls, us
per launch, conv_cpp -> these; the machine's load swings timings by 2x between runs):
  LeNet 1 -> 6 channels, 5 x 5 on 32 x 32 (batch 1): forward 49 -> 3.7, input gradient
  47 -> 7.3, filter gradient 62 -> 17;
  LeNet 6 -> 16 channels, 5 x 5 on 14 x 14 (batch 1): forward 34 -> 6.9, input gradient
  34 -> 17, filter gradient 56 -> 24;
  digits CNN layer 1 (batch 64, 1 -> 16, 3 x 3 'same' on 8 x 8): forward 85 -> 72, input
  gradient 82 -> 120 and filter gradient 100 -> 145 (neither chosen);
  digits CNN layer 2 (batch 64, 16 -> 32 on 4 x 4): forward 442 -> 393, input gradient
  453 -> 481 in one run, 357 -> 337 (medians 450 -> 376) over 15 alternating rounds after
  the per-call plane set-up (chosen: 16 input channels); filter gradient 616 -> 916 with
  sample-major columns, 235 -> 208 (min of 15 alternating rounds) with the batch-innermost
  columns it now uses when a plane has fewer positions than the batch (chosen).
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C

FLOATS = (mstype.float32, mstype.float64)
PRIORITY = 21            # above conv_cpp.py's kernels (the cpp provider's 20)
MAX_MACS = 1 << 24       # multiply-adds per launch up to which the per-sample loops are used
INPUT_BATCH = 8          # the input gradient: batches up to this, planes of at least
MIN_INPUT_PLANE = 100    # this many output positions, or at least MIN_INPUT_CHANNELS input
MIN_INPUT_CHANNELS = 4   # channels per group (the rows of its GEMMs)
MIN_FILTER_PLANE = 64    # the filter gradient: planes of at least this many output positions
MIN_FILTER_TAPS = 16     # (or 2+ positions but fewer than samples), and weights per output channel
# NOTE: not 1 x 1 output planes: there the im2col GEMM (conv_cpp.py, K = the batch) was 2-4x
# faster on every measured shape, one thread, batch 16: MobileNetV2's 320 -> 1280 484 -> 190
# us, 960 -> 320 338 -> 157, 160 -> 960 156 -> 84, 576 -> 160 110 -> 61; ResNet18's
# 256 -> 512 1 x 1 stride-2 shortcut 326 -> 79 us.


def _shape(a):
    """`a`'s static shape as a tuple of 4 ints, or None (unknown / dynamic / not 4-D)."""
    s = getattr(a, "shape", None)
    if s is None or len(s) != 4 or any(not isinstance(d, int) or d < 0 for d in s):
        return None
    return tuple(s)


def _fits(n, o, p, kg):
    macs = n * o * p * kg
    return 0 < macs <= MAX_MACS


def _forward_small(x, w, *_):
    """Conv2D: x (N, C, H, W), w (O, C / group, kh, kw); the plane is at most about H W."""
    xs, ws = _shape(x), _shape(w)
    if xs is None or ws is None:
        return False
    return _fits(xs[0], ws[0], xs[2] * xs[3], ws[1] * ws[2] * ws[3])


def _input_small(dout, w, *_):
    """Conv2DBackpropInput: dout (N, O, OH, OW), w (O, C / group, kh, kw)."""
    ds, ws = _shape(dout), _shape(w)
    if ds is None or ws is None:
        return False
    p = ds[2] * ds[3]
    return (_fits(ds[0], ds[1], p, ws[1] * ws[2] * ws[3])
            and (ds[0] <= INPUT_BATCH or p >= MIN_INPUT_PLANE or ws[1] >= MIN_INPUT_CHANNELS))


def _filter_small(dout, x, filter_size=None, *_):
    """Conv2DBackpropFilter: dout (N, O, OH, OW), x (N, C, H, W), filter_size the weight's."""
    ds, xs = _shape(dout), _shape(x)
    fs = tuple(filter_size) if isinstance(filter_size, (tuple, list)) else _shape(filter_size)
    if ds is None or xs is None or fs is None or len(fs) != 4:
        return False
    kg, p = fs[1] * fs[2] * fs[3], ds[2] * ds[3]
    return (_fits(ds[0], ds[1], p, kg) and kg >= MIN_FILTER_TAPS
            and (p >= MIN_FILTER_PLANE or 1 < p < ds[0]))


register_kernel("Conv2D", provider="cpp", dtypes=FLOATS, priority=PRIORITY,
                when=_forward_small)(_C.conv_small_forward)
register_kernel("Conv2DBackpropInput", provider="cpp", dtypes=FLOATS, priority=PRIORITY,
                when=_input_small)(_C.conv_small_backprop_input)
register_kernel("Conv2DTranspose", provider="cpp", dtypes=FLOATS, priority=PRIORITY,
                when=_input_small)(_C.conv_small_backprop_input)
register_kernel("Conv2DBackpropFilter", provider="cpp", dtypes=FLOATS, priority=PRIORITY,
                when=_filter_small)(_C.conv_small_backprop_filter)
