"""Tensor's comparison, logical, truth and top-k methods (`x.ne(2.0)`, `x.less(y)`,
`x.logical_xor(y)`, `x.approximate_equal(y)`, `x.bool()`, `x.top_k(k)`), and `x.hardshrink()`,
MindSpore 2.10's names and signatures, each calling the
functional op (so graph mode parses them like any op). Tensor inherits `METHODS`
(tensor.py's _METHOD_MODULES).
"""
from . import dtype as mstype

F = None      # mindlite.ops.functional, bound by tensor.py (functional imports Tensor)


class TensorLogicMethods:
    """Comparisons (bool results, after promotion), logical ops (truth values), top_k."""
    __slots__ = ()

    def eq(self, other): return F.equal(self, other)
    def ne(self, other): return F.not_equal(self, other)
    def not_equal(self, other): return F.not_equal(self, other)
    def lt(self, other): return F.less(self, other)
    def less(self, other): return F.less(self, other)
    def le(self, other): return F.less_equal(self, other)
    def less_equal(self, other): return F.less_equal(self, other)
    def gt(self, other): return F.greater(self, other)
    def greater(self, other): return F.greater(self, other)
    def ge(self, other): return F.greater_equal(self, other)
    def greater_equal(self, other): return F.greater_equal(self, other)
    def logical_and(self, other): return F.logical_and(self, other)
    def logical_or(self, other): return F.logical_or(self, other)
    def logical_xor(self, other): return F.logical_xor(self, other)
    def logical_not(self): return F.logical_not(self)
    def top_k(self, k, sorted=True): return F.top_k(self, k, sorted)
    def bool(self): return F.cast(self, mstype.bool_)
    def hardshrink(self, lambd=0.5): return F.hardshrink(self, lambd)

    def approximate_equal(self, other, tolerance=1e-5):
        return F.approximate_equal(self, other, tolerance)


METHODS = TensorLogicMethods
