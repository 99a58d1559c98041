"""Elementwise math primitives: unary, binary arithmetic, comparison, logical, Select, AddN,
and MatMul / BatchMatMul. Kernels: kernels/cpu/math_*.py; bprops: ops/bprop/math_bprop.py."""
from ...common import dtype as mstype
from ..primitive import Primitive, prim_attr_register
from ..validator import check_bool, check_dtype, check_same_dtype, check_tensor, tensor
from ._base import BinaryOp

__all__ = ["Add", "MatMul"]


class Add(BinaryOp):
    """z = x + y (bool + bool is logical or, as numpy)."""


class MatMul(Primitive):
    """z = op(x) @ op(y), op = transpose if transpose_a / transpose_b; 2-D, same dtype."""
    input_names = ("x1", "x2")

    @prim_attr_register
    def __init__(self, transpose_a=False, transpose_b=False):
        check_bool(self, "transpose_a", transpose_a)
        check_bool(self, "transpose_b", transpose_b)

    def infer(self, x1, x2):
        check_tensor(self, "x1", x1)
        check_tensor(self, "x2", x2)
        check_same_dtype(self, [("x1", x1), ("x2", x2)])
        check_dtype(self, "x1", x1, mstype.NUMBER_TYPES)
        if len(x1.shape) != 2 or len(x2.shape) != 2:
            raise ValueError(f"For '{self.name}', the input dimensions must be 2, but got 'x1' "
                             f"shape {list(x1.shape)} and 'x2' shape {list(x2.shape)}")
        ta, tb = self.attrs["transpose_a"], self.attrs["transpose_b"]
        m, k1 = (x1.shape[1], x1.shape[0]) if ta else x1.shape
        k2, n = (x2.shape[1], x2.shape[0]) if tb else x2.shape
        if k1 != k2:
            raise ValueError(f"For '{self.name}' the input dimensions must be equal, but got "
                             f"'x1_col': {k1} and 'x2_row': {k2}.")
        return tensor(x1.dtype, (m, n))

    def kernel_params(self, x1, x2):
        return {"transpose_a": self.attrs["transpose_a"],
                "transpose_b": self.attrs["transpose_b"]}
