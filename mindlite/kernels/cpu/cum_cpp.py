"""C++ CumSum / CumProd kernels (provider "cpp") along the last axis, from 16384 elements:
_C.cum_rows (csrc/kernels/cum_rows.cc) runs each row's running value in numpy's order of
operations, rows split across the thread pool, so the results are the numba and numpy
kernels' bit for bit (integers wrap as they do). Another axis, or a strided input or output,
takes the numba kernels (cum_numba.py).
NOTE: the numba loop ran on one thread below 1M elements, where its Python helper thread's
round trip cost more than it saved: cumsum 256x256 took 60 µs against PyTorch's 33.
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C
from .cum_numba import _big, cumprod_numba, cumsum_numba

DTYPES = (mstype.float32, mstype.float64, mstype.int32, mstype.int64)


def _launch(x, out, axis, exclusive, reverse, prod, fallback):
    if axis == x.ndim - 1 and x.flags.c_contiguous and out.flags.c_contiguous:
        _C.cum_rows(x, out, prod, exclusive, reverse)
    else:
        fallback(x, out, axis, exclusive, reverse)


@register_kernel("CumSum", provider="cpp", dtypes=DTYPES, when=_big)
def cumsum_cpp(x, out, axis, exclusive, reverse):
    _launch(x, out, axis, exclusive, reverse, False, cumsum_numba)


@register_kernel("CumProd", provider="cpp", dtypes=DTYPES, when=_big)
def cumprod_cpp(x, out, axis, exclusive, reverse):
    _launch(x, out, axis, exclusive, reverse, True, cumprod_numba)
