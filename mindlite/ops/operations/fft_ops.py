"""One-dimensional discrete Fourier transform primitives, the building blocks of ops.fft /
rfft / irfft / fftn / stft (ops/function/fft_func.py builds the n-dimensional transforms as
successive 1-D ones): FFTC2C (complex to complex, forward or inverse), FFTR2C (real to the
one-sided spectrum, n // 2 + 1 bins) and FFTC2R (one-sided spectrum to n real values).

Attributes: n (the signal length: the input is zero-padded or truncated to it along dim; 0
keeps the input's length), dim, norm ("backward": no scaling forward, 1/n inverse; "ortho":
1/sqrt(n) both; "forward": 1/n forward). Float inputs give complex64 (float32 / float16) or
complex128 (float64).

Gradients (complex cotangents as dRe + i dIm, the convention of complex_ops.py): every
transform is linear, so the input gradient is the adjoint applied to dout, which is again a
transform of the opposite direction with the swapped norm ("backward" <-> "forward"); for
R2C the real part of the zero-padded spectrum's adjoint, for C2R the one-sided transform of
dout with the bins that stand for two (all but 0 and n / 2) doubled (its real part for a real
input); then padded or cut back to the input's length. Kernels: kernels/cpu/fft_numpy.py
(numpy's pocketfft).
"""
import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_tensor, tensor
from ._base import cached_prim, needs_grad

__all__ = ["FFTC2C", "FFTR2C", "FFTC2R"]

_NORMS = ("backward", "ortho", "forward")
_SWAP = {"backward": "forward", "ortho": "ortho", "forward": "backward"}
_COMPLEX = {mstype.float16: mstype.complex64, mstype.float32: mstype.complex64,
            mstype.float64: mstype.complex128, mstype.complex64: mstype.complex64,
            mstype.complex128: mstype.complex128}
_REAL = {mstype.complex64: mstype.float32, mstype.complex128: mstype.float64,
         mstype.float32: mstype.float32, mstype.float64: mstype.float64}


def _F():
    from .. import functional as F
    return F


class _FFT(Primitive):
    input_names = ("x",)
    accepts = tuple(_COMPLEX)

    @prim_attr_register
    def __init__(self, n=0, dim=-1, norm="backward", forward=True):
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError(f"For '{self.name}', 'n' must be a non-negative int, but got {n!r}")
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"For '{self.name}', 'dim' must be an int, but got {dim!r}")
        if norm not in _NORMS:
            raise ValueError(f"For '{self.name}', 'norm' must be one of {list(_NORMS)}, but got "
                             f"{norm!r}")

    def _axis(self, x):
        check_tensor(self, "x", x)
        if x.dtype not in self.accepts:
            raise TypeError(f"For '{self.name}', the type of 'x' should be one of "
                            f"{[str(t) for t in self.accepts]}, but got {x.dtype}")
        nd = len(x.shape)
        d = self.attrs["dim"]
        if not nd or not -nd <= d < nd:
            raise ValueError(f"For '{self.name}', 'dim' {d} is out of range for an input of "
                             f"rank {nd}")
        return d % nd

    def _length(self, x, axis):
        n = self.attrs["n"] or x.shape[axis]
        if n < 1:
            raise ValueError(f"For '{self.name}', the transform length must be >= 1, but got "
                             f"{n} for shape {list(x.shape)}")
        return n

    def kernel_params(self, x):
        axis = self._axis(x)
        return {"n": self._out_n(x, axis), "axis": axis, "norm": self.attrs["norm"],
                "forward": self.attrs["forward"]}

    def _out_n(self, x, axis):
        return self._length(x, axis)


class FFTC2C(_FFT):
    """y = the length-n DFT of x along dim (forward, or inverse with forward=False)."""

    def infer(self, x):
        axis = self._axis(x)
        shape = list(x.shape)
        shape[axis] = self._length(x, axis)
        return tensor(_COMPLEX[x.dtype], tuple(shape))


class FFTR2C(_FFT):
    """y = the n // 2 + 1 non-negative-frequency bins of the real x's length-n DFT."""
    accepts = (mstype.float16, mstype.float32, mstype.float64)

    def infer(self, x):
        axis = self._axis(x)
        shape = list(x.shape)
        shape[axis] = self._length(x, axis) // 2 + 1
        return tensor(_COMPLEX[x.dtype], tuple(shape))


class FFTC2R(_FFT):
    """y = the n real values whose one-sided spectrum is x (n // 2 + 1 bins of it are read;
    n defaults to 2 (len - 1))."""
    accepts = (mstype.float32, mstype.float64, mstype.complex64, mstype.complex128)

    def _out_n(self, x, axis):
        n = self.attrs["n"] or 2 * (x.shape[axis] - 1)
        if n < 1:
            raise ValueError(f"For '{self.name}', the output length must be >= 1, but got {n} "
                             f"for shape {list(x.shape)}")
        return n

    def infer(self, x):
        axis = self._axis(x)
        shape = list(x.shape)
        shape[axis] = self._out_n(x, axis)
        return tensor(_REAL[x.dtype], tuple(shape))


def _fit(F, g, axis, length):
    """g cut or zero-padded along axis to `length` (the adjoint of padding / truncating)."""
    have = g.shape[axis]
    if have == length:
        return g
    if have > length:
        return F.narrow(g, axis, 0, length)
    pad = list(g.shape)
    pad[axis] = length - have
    return F.concat((g, F.zeros(tuple(pad), g.dtype)), axis)


@bprop_for(FFTC2C)
def fft_c2c_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    F = _F()
    axis = prim._axis(x._abs)
    a = prim.attrs
    g = cached_prim(FFTC2C, 0, axis, _SWAP[a["norm"]], not a["forward"])(dout)
    g = _fit(F, g, axis, x.shape[axis])
    return (g if x.dtype.kind == "c" else F.real(g),)


@bprop_for(FFTR2C)
def fft_r2c_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    F = _F()
    axis = prim._axis(x._abs)
    n = prim._length(x._abs, axis)
    full = _fit(F, dout, axis, n)
    g = F.real(cached_prim(FFTC2C, 0, axis, _SWAP[prim.attrs["norm"]], False)(full))
    return (_fit(F, g, axis, x.shape[axis]),)


@bprop_for(FFTC2R)
def fft_c2r_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    F = _F()
    axis = prim._axis(x._abs)
    n = prim._out_n(x._abs, axis)
    g = cached_prim(FFTR2C, 0, axis, _SWAP[prim.attrs["norm"]])(dout)     # n // 2 + 1 bins
    bins = n // 2 + 1
    w = np.full(bins, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    shape = [1] * len(x.shape)
    shape[axis] = bins
    g = F.mul(g, Tensor(w.reshape(shape).astype(_REAL[g.dtype].np)))
    g = _fit(F, g, axis, x.shape[axis])
    return (g if x.dtype.kind == "c" else F.real(g),)
