"""C++ kernels of LayerNorm and LayerNormGrad (csrc/kernels/layer_norm.cc, entry points
csrc/bind/norm_bind.cc): the rows of x normalised over its trailing axes with a gamma / beta
of those axes (begin_params_axis == begin_norm_axis, what nn.LayerNorm and the Transformer
layers build), float32 / float64. Each row is two passes over cache-resident data with double
accumulators; other layouts (gamma over more axes than the normalised ones, mixed dtypes)
run the numpy kernels (norm_numpy.py).

Measured (thread CPU time, float32, x (64, 32, 128) as in benchmarks/train_step.py's
Transformer layer, on the loaded 2-core machine): nn.LayerNorm forward 445 us with the numpy
kernel, forward + backward 3660 us (PyTorch 383).
"""
import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel
from . import norm_numpy as ref
from ._cext import _C

FLOATS = (mstype.float32, mstype.float64)


def _trailing_params(x, gamma, *_):
    """gamma (and beta) span x's trailing axes, as the C loops' rows x cols need."""
    gs, xs = tuple(gamma.shape), tuple(x.shape)
    return 0 < len(gs) <= len(xs) and xs[len(xs) - len(gs):] == gs


def _rows_cols(x, norm_axes, gamma):
    """(rows, cols) when the normalised axes are the trailing ones gamma spans, else None."""
    k = x.ndim - gamma.ndim
    if tuple(norm_axes) != tuple(range(k, x.ndim)) or x.shape[k:] != gamma.shape:
        return None
    cols = int(np.prod(x.shape[k:], dtype=np.int64))
    return (x.size // cols if cols else 0), cols


def _same_dtype(*arrays):
    return all(a.dtype == arrays[0].dtype for a in arrays)


@register_kernel("LayerNorm", provider="cpp", dtypes=FLOATS, when=_trailing_params)
def layer_norm_cpp(x, gamma, beta, y, mean, variance, norm_axes, epsilon):
    rc = _rows_cols(x, norm_axes, gamma)
    if rc is None or not rc[1] or not _same_dtype(x, gamma, beta, y, mean, variance):
        return ref.layer_norm_numpy(x, gamma, beta, y, mean, variance, norm_axes, epsilon)
    rows, cols = rc
    c = np.ascontiguousarray
    _C.layer_norm(c(x).reshape(rows, cols), c(gamma).reshape(cols), c(beta).reshape(cols),
                  y.reshape(rows, cols), mean.reshape(rows), variance.reshape(rows),
                  float(epsilon))


@register_kernel("LayerNormGrad", provider="cpp", dtypes=FLOATS, when=_trailing_params)
def layer_norm_grad_cpp(x, dy, variance, mean, gamma, dx, dgamma, dbeta, norm_axes,
                        param_axes, epsilon):
    rc = _rows_cols(x, norm_axes, gamma)
    if (rc is None or not rc[1] or tuple(param_axes) != tuple(range(x.ndim - gamma.ndim))
            or not _same_dtype(x, dy, variance, mean, gamma, dx, dgamma, dbeta)):
        return ref.layer_norm_grad_numpy(x, dy, variance, mean, gamma, dx, dgamma, dbeta,
                                         norm_axes, param_axes, epsilon)
    rows, cols = rc
    c = np.ascontiguousarray
    _C.layer_norm_grad(c(x).reshape(rows, cols), c(dy).reshape(rows, cols),
                       c(variance).reshape(rows), c(mean).reshape(rows), c(gamma).reshape(cols),
                       dx.reshape(rows, cols), dgamma.reshape(cols), dbeta.reshape(cols),
                       float(epsilon))
    ref.add_stats_term(x, dy, variance, mean, gamma, dx, norm_axes, epsilon)
