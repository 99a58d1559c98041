"""mindlite.numpy's polynomials (coefficients highest power first, as numpy): `polyadd`,
`polysub`, `polymul`, `polyder`, `polyint`, `polyval`, and the 1-D `convolve` /
`correlate` they share. Built on Mul / Add / Concat / Gather primitives (differentiable)."""
import numpy as onp

from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as F
from .dtypes import to_tensor

__all__ = ["polyadd", "polysub", "polymul", "polyder", "polyint", "polyval", "convolve",
           "correlate"]


def _poly(p, name):
    p = to_tensor(p)
    if p.ndim != 1:
        raise ValueError(f"For 'mindlite.numpy.{name}', the coefficients must be 1-D, but got "
                         f"{p.ndim}-D")
    return p


def _lead_pad(p, n):
    if p.shape[0] == n:
        return p
    return F.concat((F.zeros((n - p.shape[0],), p.dtype), p), 0)


def polyadd(a1, a2):
    a1, a2 = _poly(a1, "polyadd"), _poly(a2, "polyadd")
    n = max(a1.shape[0], a2.shape[0])
    return _lead_pad(a1, n) + _lead_pad(a2, n)


def polysub(a1, a2):
    a1, a2 = _poly(a1, "polysub"), _poly(a2, "polysub")
    n = max(a1.shape[0], a2.shape[0])
    return _lead_pad(a1, n) - _lead_pad(a2, n)


def _full_conv(a, v):
    """Full 1-D convolution: out[k] = sum_i a[i] v[k - i], as a (len(a)+len(v)-1, len(a))
    banded matrix of v times a (a Gather then a MatMul)."""
    n, m = a.shape[0], v.shape[0]
    k = onp.arange(n + m - 1)[:, None] - onp.arange(n)[None, :]
    valid = (k >= 0) & (k < m)
    idx = Tensor(onp.where(valid, k, 0).astype(onp.int32))
    band = F.gather(v, F.reshape(idx, (-1,)), 0)
    band = F.reshape(band, idx.shape) * Tensor(valid.astype(v.dtype.np))
    return F.reshape(F.matmul(band, F.reshape(a, (-1, 1))), (-1,))


def _pair(a, v, name):
    a, v = _poly(a, name), _poly(v, name)
    dtype = mstype.promote(a.dtype, v.dtype)
    if dtype not in mstype.FLOAT_TYPES:
        dtype = mstype.float32
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError(f"For 'mindlite.numpy.{name}', the inputs cannot be empty")
    return F.cast(a, dtype), F.cast(v, dtype)


def polymul(a1, a2):
    a1, a2 = _pair(a1, a2, "polymul")
    return _full_conv(a1, a2)


def convolve(a, v, mode="full"):
    """The discrete linear convolution of 1-D a and v; mode 'full', 'same' or 'valid'."""
    a, v = _pair(a, v, "convolve")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    full = _full_conv(a, v)
    n, m = a.shape[0], v.shape[0]
    if mode == "full":
        return full
    if mode == "same":
        start = (m - 1) // 2
        return full[start:start + n]
    if mode == "valid":
        return full[m - 1:n]
    raise ValueError(f"For 'mindlite.numpy.convolve', 'mode' must be 'full', 'same' or "
                     f"'valid', but got {mode!r}")


def correlate(a, v, mode="valid"):
    """Cross-correlation of 1-D a and v: convolve(a, v[::-1]) (numpy's definition)."""
    a, v = _pair(a, v, "correlate")
    if v.shape[0] > a.shape[0]:
        return F.flip(correlate(v, a, mode), (0,))
    return convolve(a, F.flip(v, (0,)), mode)


def polyder(p, m=1):
    """The m-th derivative's coefficients."""
    p = _poly(p, "polyder")
    if p.dtype not in mstype.FLOAT_TYPES:
        p = F.cast(p, mstype.float32)
    for _ in range(m):
        n = p.shape[0] - 1
        if n <= 0:
            return F.zeros((1,), p.dtype)
        p = p[:-1] * Tensor(onp.arange(n, 0, -1).astype(p.dtype.np))
    return p


def polyint(p, m=1, k=None):
    """The m-th antiderivative's coefficients; k: the integration constants (0)."""
    p = _poly(p, "polyint")
    if p.dtype not in mstype.FLOAT_TYPES:
        p = F.cast(p, mstype.float32)
    ks = onp.zeros(m) if k is None else onp.broadcast_to(onp.asarray(k, onp.float64), (m,))
    for j in range(m):
        n = p.shape[0]
        p = F.concat((p / Tensor(onp.arange(n, 0, -1).astype(p.dtype.np)),
                      Tensor(onp.array([ks[j]], p.dtype.np))), 0)
    return p


def polyval(p, x):
    """p evaluated at x by Horner's rule (x a number or Tensor)."""
    p = _poly(p, "polyval")
    x = to_tensor(x)
    if p.dtype not in mstype.FLOAT_TYPES:
        p = F.cast(p, mstype.float32)
    x = F.cast(x, p.dtype)
    out = F.zeros_like(x)
    for i in range(p.shape[0]):
        out = out * x + p[i]
    return out
