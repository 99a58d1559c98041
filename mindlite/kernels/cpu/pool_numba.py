"""numba kernels for pool_ops (float32, float64): MaxPool and MaxPoolGrad (loops in
_pool_jit.py, loaded and compiled with cache=True on the first launch: this module does not
import numba). Same results as pool_numpy.py (the oracle): NaN propagates, padding never
wins, the gradient goes to each window's first maximum equal to the given output.

One pass over the windows instead of pool_numpy's kh * kw strided numpy operations (and, for
the gradient, a padded buffer, hit masks and a masked copy per kernel offset). 2 x 2 windows
that stay inside x (the LeNet pooling) have unrolled, branch-free loops; when they tile x
exactly (stride 2, even sides) the gradient writes every element once (no zeroing pass).
Measured, thread CPU time per launch, float32, ReLU outputs of the digits CNN (batch 64),
numpy -> numba, medians of 3 alternating runs on the loaded 2-core machine:
  64 x 16 x 8 x 8: MaxPool 120 -> 48 us, MaxPoolGrad 628 -> 118 us;
  64 x 32 x 4 x 4: MaxPool 107 -> 40 us, MaxPoolGrad 419 -> 78 us.
"""
import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel

FLOATS = (mstype.float32, mstype.float64)

_J = None                 # the module _pool_jit, once loaded


def _load():
    global _J
    from . import _pool_jit
    _J = _pool_jit
    return _J


def _inside_2x2(x, out, kernel, stride, dilation):
    """2 x 2 windows, dilation 1, all inside x (pads, if any, never reached)."""
    return (kernel == (2, 2) and dilation == (1, 1)
            and (out.shape[2] - 1) * stride[0] + 2 <= x.shape[2]
            and (out.shape[3] - 1) * stride[1] + 2 <= x.shape[3])


@register_kernel("MaxPool", provider="numba", dtypes=FLOATS)
def max_pool_numba(x, out, kernel, stride, pads, dilation):
    if not out.size:
        return
    if _inside_2x2(x, out, kernel, stride, dilation) and not (pads[0] or pads[2]):
        (_J or _load()).max_pool_2x2(x, out, stride[0], stride[1], out.dtype.type(np.nan))
    else:
        (_J or _load()).max_pool(x, out, kernel[0], kernel[1], stride[0], stride[1],
                                 dilation[0], dilation[1], pads[0], pads[2],
                                 out.dtype.type(-np.inf), out.dtype.type(np.nan))


@register_kernel("MaxPoolGrad", provider="numba", dtypes=FLOATS)
def max_pool_grad_numba(x, out, grad, dx, kernel, stride, pads, dilation):
    if not dx.size:
        return
    if _inside_2x2(x, out, kernel, stride, dilation) and not (pads[0] or pads[2]):
        (_J or _load()).max_pool_grad_2x2(x, out, grad, dx, stride[0], stride[1])
    else:
        (_J or _load()).max_pool_grad(x, out, grad, dx, kernel[0], kernel[1], stride[0],
                                      stride[1], dilation[0], dilation[1], pads[0], pads[2])
