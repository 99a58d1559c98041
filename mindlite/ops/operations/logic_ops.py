"""Comparison and logical primitives (Equal, Less, ..., LogicalAnd / Or / Not,
ApproximateEqual) and Select.
Kernels: kernels/cpu/math_*.py. Re-exported by math_ops, so `math_ops.Equal` keeps working.

Comparisons promote x and y to one dtype and return bool; logical ops take the truth value
of bool, number or complex tensors (no promotion) and return bool, as MindSpore 2.10. None
of them is differentiable: they are marked non_differentiable, so the grad recorder never
keeps them. Select passes the gradient
to x where the condition holds and to y elsewhere; the condition gets none.
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for, non_differentiable
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import broadcast_shape, check_dtype, check_tensor, tensor
from ._base import CompareOp, LogicalBinaryOp, UnaryOp, needs_grad

__all__ = ["Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
           "LogicalNot", "LogicalAnd", "LogicalOr", "LogicalXor", "Select", "ApproximateEqual"]


class Equal(CompareOp):
    """z = (x == y) -> bool, after promotion (nan != nan). Not differentiable."""


class NotEqual(CompareOp):
    """z = (x != y) -> bool. Not differentiable."""


class Less(CompareOp):
    """z = (x < y) -> bool. Not differentiable."""
    valid_types = mstype.REAL_TYPES


class LessEqual(CompareOp):
    """z = (x <= y) -> bool. Not differentiable."""
    valid_types = mstype.REAL_TYPES


class Greater(CompareOp):
    """z = (x > y) -> bool. Not differentiable."""
    valid_types = mstype.REAL_TYPES


class GreaterEqual(CompareOp):
    """z = (x >= y) -> bool. Not differentiable."""
    valid_types = mstype.REAL_TYPES


class LogicalNot(UnaryOp):
    """y = not x -> bool, for a bool, number or complex x (MindSpore 2.10). Not
    differentiable."""
    valid_types = (mstype.bool_,) + mstype.NUMBER_TYPES + mstype.COMPLEX_TYPES

    def infer(self, x):
        check_dtype(self, "x", x, self.valid_types)
        return tensor(mstype.bool_, x.shape)


class LogicalAnd(LogicalBinaryOp):
    """z = x and y -> bool (truth values). Not differentiable."""


class LogicalOr(LogicalBinaryOp):
    """z = x or y -> bool (truth values). Not differentiable."""


class LogicalXor(LogicalBinaryOp):
    """z = x xor y -> bool (truth values), MindSpore's input names. Not differentiable."""
    input_names = ("input", "other")


class ApproximateEqual(Primitive):
    """z = |x1 - x2| < tolerance -> bool (MindSpore's ApproximateEqual): float inputs of one
    shape (no broadcasting, as MindSpore), promoted to one dtype; tolerance a Python float
    (default 1e-5). Not differentiable."""
    input_names = ("x1", "x2")
    same_type_inputs = (0, 1)

    @prim_attr_register
    def __init__(self, tolerance=1e-5):
        if not isinstance(tolerance, float):
            raise TypeError(f"For '{self.name}', the type of 'tolerance' should be 'float', but "
                            f"got type '{type(tolerance).__name__}'")

    def infer(self, x1, x2):
        check_dtype(self, "x1", x1, mstype.FLOAT_TYPES)
        check_tensor(self, "x2", x2)
        if x1.shape != x2.shape:
            raise ValueError(f"For '{self.name}', arg 'x1' must have the same shape as 'x2'. "
                             f"But got 'x1' shape: {list(x1.shape)}, 'x2' shape: "
                             f"{list(x2.shape)}")
        return tensor(mstype.bool_, x1.shape)

    def kernel_params(self, x1, x2):
        return {"tolerance": self.attrs["tolerance"]}


non_differentiable(Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual,
                   LogicalNot, LogicalAnd, LogicalOr, LogicalXor, ApproximateEqual)


class Select(Primitive):
    """z = condition ? x : y elementwise; condition is bool, the three inputs broadcast and x, y
    are promoted to one dtype. Gradient (None, dz where condition else 0, dz elsewhere)."""
    input_names = ("condition", "x", "y")
    same_type_inputs = (1, 2)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, condition, x, y):
        check_dtype(self, "condition", condition, (mstype.bool_,))
        check_tensor(self, "x", x)
        check_tensor(self, "y", y)
        shape = broadcast_shape(self, x.shape, y.shape, ("x", "y"))
        shape = broadcast_shape(self, condition.shape, shape, ("condition", "x/y"))
        return tensor(x.dtype, shape)


_select = Select()


@bprop_for(Select)
def select_bprop(prim, condition, x, y, out, dout):
    # dout has the broadcast output shape; backward sums it back to x's and y's shapes
    return (None, _select(condition, dout, 0.0) if needs_grad(x) else None,
            _select(condition, 0.0, dout) if needs_grad(y) else None)
