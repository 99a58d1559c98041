"""C++-loop kernels for pool_ops (float32, float64): MaxPool and MaxPoolGrad, and
MaxPoolWithArgmaxV2 with its gradients MaxPoolGradWithArgmaxV2 / MaxPoolGradGradWithArgmax. The
loops are mindlite._C's max_pool* (csrc/kernels/pool_loops.cc, pool_argmax.cc; entry points in
csrc/bind/pool_bind.cc, pool_argmax_bind.cc).
No numba: the first call with a new dtype used to spend ~5 ms loading the numba loops' cached
overloads. Same results as pool_numpy.py (the oracle): NaN propagates, padding never wins, the
gradient goes to each window's first maximum (row-major) equal to the given output.

One pass over the windows instead of pool_numpy's kh * kw strided numpy operations (and, for
the gradient, a padded buffer, hit masks and a masked copy per kernel offset). 2 x 2 windows
that stay inside x (the LeNet pooling) have unrolled, branch-free loops; when they tile x
exactly (stride 2, even sides) the gradient writes every element once (no zeroing pass).
Measured, thread CPU time per launch, float32, ReLU outputs of the digits CNN (batch 64),
numba loops -> these, medians of 5 batches, 3 runs each on the loaded 2-core machine:
  64 x 16 x 8 x 8, 2 x 2 / 2: MaxPool 30-46 -> 33-38 us, MaxPoolGrad 83-122 -> 80-115 us;
  64 x 32 x 4 x 4, 2 x 2 / 2: MaxPool 24-38 -> 24-40 us, MaxPoolGrad 50-78 -> 43-66 us;
  3 x 3 / 2, pad 1 (generic loops): MaxPool about 2x faster (250 -> 120 us on 8 x 8),
  MaxPoolGrad the same within noise (283-460 -> 349-464 us on 8 x 8, 142-230 -> 150-211 on
  4 x 4). The first float64 call of benchmarks/first_call.py: 4.89 -> 0.04 ms.
"""
import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C

FLOATS = (mstype.float32, mstype.float64)


def _c(a):
    """`a` as an aligned C-contiguous array (what the _C.max_pool* loops require of inputs)."""
    return a if a.flags.c_contiguous and a.flags.aligned else np.array(a, order="C")


def _inside_2x2(x, out, kernel, stride, dilation):
    """2 x 2 windows, dilation 1, all inside x (pads, if any, never reached)."""
    return (kernel == (2, 2) and dilation == (1, 1)
            and (out.shape[2] - 1) * stride[0] + 2 <= x.shape[2]
            and (out.shape[3] - 1) * stride[1] + 2 <= x.shape[3])


def _run(fn, out):
    """fn(dst): into `out` itself when the loops can write it, else a C-contiguous copy back."""
    if out.flags.c_contiguous and out.flags.aligned and out.flags.writeable:
        fn(out)
    else:
        dst = np.empty(out.shape, dtype=out.dtype)
        fn(dst)
        np.copyto(out, dst)


@register_kernel("MaxPool", provider="cpp", dtypes=FLOATS)
def max_pool_cpp(x, out, kernel, stride, pads, dilation):
    if not out.size:
        return
    x = _c(x)
    if _inside_2x2(x, out, kernel, stride, dilation) and not (pads[0] or pads[2]):
        _run(lambda o: _C.max_pool_2x2(x, o, stride[0], stride[1]), out)
    else:
        _run(lambda o: _C.max_pool(x, o, kernel[0], kernel[1], stride[0], stride[1],
                                   dilation[0], dilation[1], pads[0], pads[2]), out)


@register_kernel("MaxPoolGrad", provider="cpp", dtypes=FLOATS)
def max_pool_grad_cpp(x, out, grad, dx, kernel, stride, pads, dilation):
    if not dx.size:
        return
    x, out, grad = _c(x), _c(out), _c(grad)
    if _inside_2x2(x, out, kernel, stride, dilation) and not (pads[0] or pads[2]):
        _run(lambda d: _C.max_pool_grad_2x2(x, out, grad, d, stride[0], stride[1]), dx)
    else:
        _run(lambda d: _C.max_pool_grad(x, out, grad, d, kernel[0], kernel[1], stride[0],
                                        stride[1], dilation[0], dilation[1], pads[0], pads[2]),
             dx)


# ---- MaxPoolWithArgmaxV2 (nn.MaxPool2d with pad_mode="pad", ops.max_pool2d) -----------------
# The argmax loops split the N C planes over the thread pool; bit for bit pool_numpy.py's
# results (the gradient sums each dx element in float64, as np.bincount, and rounds once).
# An argmax index outside its input plane raises ValueError (pool_numpy.py raises the same).
# Measured on ResNet18's stem pooling (16 x 64 x 16 x 16 -> 8 x 8, 3 x 3 / 2, pad 1, float32,
# int64 argmax; one thread, min of 200 calls, loaded 2-core VM): forward 2823 -> 290 us,
# gradient 198 -> 88 us; two threads 151 / 47 us.
@register_kernel("MaxPoolWithArgmaxV2", provider="cpp", dtypes=FLOATS)
def max_pool_with_argmax_v2_cpp(x, out, argmax, kernel, stride, pads, dilation):
    if not out.size:
        return
    x = _c(x)
    ok = [a.flags.c_contiguous and a.flags.aligned and a.flags.writeable for a in (out, argmax)]
    o = out if ok[0] else np.empty(out.shape, dtype=out.dtype)
    a = argmax if ok[1] else np.empty(argmax.shape, dtype=argmax.dtype)
    _C.max_pool_argmax(x, o, a, kernel[0], kernel[1], stride[0], stride[1], dilation[0],
                       dilation[1], pads[0], pads[2])
    if o is not out:
        np.copyto(out, o)
    if a is not argmax:
        np.copyto(argmax, a)


@register_kernel("MaxPoolGradWithArgmaxV2", provider="cpp", dtypes=FLOATS)
def max_pool_grad_with_argmax_v2_cpp(x, grad, argmax, dx, kernel, stride, pads, dilation):
    if dx.size:
        _run(lambda d: _C.max_pool_grad_argmax(_c(grad), _c(argmax), d), dx)


@register_kernel("MaxPoolGradGradWithArgmax", provider="cpp", dtypes=FLOATS)
def max_pool_grad_grad_with_argmax_cpp(x, grad, argmax, y, kernel, stride, pads, dilation):
    if y.size:
        _run(lambda d: _C.max_pool_grad_grad_argmax(_c(grad), _c(argmax), d), y)
