"""SearchSorted: insertion points of values into sorted rows (MindSpore's
`ops.SearchSorted(dtype=int64, right=False)`). Kernel: kernels/cpu/search_numpy.py (binary
search per row, O(m log n)). Indices are not differentiable.

`sorted_sequence` is 1-D (searched for every value) or has the leading dimensions of
`values` (row k of the sequence serves row k of the values); `right=False` gives the first
position where the value fits (numpy's side='left'), `right=True` the last.
"""
from ...common import dtype as mstype
from ...pynative.grad import non_differentiable
from ..primitive import Primitive, prim_attr_register
from ..validator import check_bool, check_dtype, check_tensor, tensor

__all__ = ["SearchSorted"]


class SearchSorted(Primitive):
    """out[..., j] = the insertion index of values[..., j] into sorted_sequence[..., :]."""
    input_names = ("sorted_sequence", "values")

    @prim_attr_register
    def __init__(self, dtype=mstype.int64, right=False):
        check_bool(self, "right", right)
        if mstype.to_type(dtype) not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{self.name}', 'dtype' must be int32 or int64, but got "
                            f"{dtype}")
        self.add_prim_attr("dtype", mstype.to_type(dtype))

    def infer(self, seq, values):
        check_dtype(self, "sorted_sequence", seq, mstype.REAL_TYPES)
        check_tensor(self, "values", values)
        if values.dtype != seq.dtype:
            raise TypeError(f"For '{self.name}', the type of 'values' should be same as "
                            f"'sorted_sequence', but got {values.dtype} and {seq.dtype}")
        if seq.ndim == 0:
            raise ValueError(f"For '{self.name}', 'sorted_sequence' must have at least 1 "
                             f"dimension, but got a 0-D tensor")
        if seq.ndim > 1 and tuple(seq.shape[:-1]) != tuple(values.shape[:-1]):
            raise ValueError(f"For '{self.name}', the leading dimensions of 'sorted_sequence' "
                             f"{list(seq.shape[:-1])} and 'values' {list(values.shape[:-1])} "
                             f"must be equal")
        return tensor(self.attrs["dtype"], values.shape)

    def kernel_params(self, seq, values):
        return {"right": self.attrs["right"]}


non_differentiable(SearchSorted)
