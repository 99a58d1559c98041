"""C++ kernel (mindlite._C, csrc/bind/index_bind.cc) for BasicIndex, every layout.

The FastRunner calls it without a Python frame: _C.basic_index(x, i, out) for the row layout
x[i] (`for row in x`: BasicIndex binds no params then), _C.basic_index(x, starts..., out,
items) for the others (items: BasicIndex.kernel_params'). It checks the starts against the
axis sizes and out against x's dtype and the indexed shape before writing, then copies a
strided view of x (one memcpy when the view is contiguous). index_numpy.py is the reference.
"""
from ..registry import register_kernel
from ._cext import _C

register_kernel("BasicIndex", provider="cpp")(_C.basic_index)
