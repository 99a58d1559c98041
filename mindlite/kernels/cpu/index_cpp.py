"""C++ kernel (mindlite._C, csrc/bind/index_bind.cc) for BasicIndex's row layout, x[i].

`for row in x` calls it from the FastRunner without a Python frame: basic_index_row(x, i, out)
checks i against x.shape[0] and out against x's dtype and row shape, then copies the row (one
memcpy for C-contiguous arrays). Other layouts keep the numpy kernel (index_numpy.py).
"""
from ..registry import register_kernel
from ._cext import _C


def _row_layout(x, spec, *starts):
    return spec == (-1, 0)


register_kernel("BasicIndex", provider="cpp", when=_row_layout)(_C.basic_index_row)
