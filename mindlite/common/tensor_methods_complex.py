"""Tensor's complex methods (`x.real()`, `x.imag()`, `x.conj()`, `x.angle()`,
`x.is_complex()`), as MindSpore 2.10's Tensor: each calls its functional op
(ops/function/complex_func.py), so it is recorded for autograd. Listed in tensor.py's
`_METHOD_MODULES`.
"""

F = None      # mindlite.ops.functional, bound by tensor.py (functional imports Tensor)


class ComplexMethods:
    """real / imag / conj / angle / is_complex."""
    __slots__ = ()

    def real(self): return F.real(self)
    def imag(self): return F.imag(self)
    def conj(self): return F.conj(self)
    def angle(self): return F.angle(self)
    def is_complex(self): return F.is_complex(self)


METHODS = ComplexMethods
