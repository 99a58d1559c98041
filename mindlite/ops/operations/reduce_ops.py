"""Reductions: ReduceSum/Mean/Max/Min/Prod/All/Any, Argmax/Argmin, ArgMaxWithValue,
ArgMinWithValue.

Called as MindSpore's `ReduceSum(keep_dims=False)(x, axis)`, axis an int, tuple or ()
(= all axes; may be left out). Kernels get `axis` as a sorted tuple of non-negative ints
(() for a 0-d input) and `keep_dims`; Argmax/Argmin/ArgM*WithValue get one non-negative
int `axis` (0 for a 0-d input). Kernels: kernels/cpu/reduce_*.py.
"""
from ...common import dtype as mstype
from ..primitive import Primitive, prim_attr_register
from ..validator import check_axes, check_axis, check_bool, check_dtype, check_int, tensor

__all__ = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceAll",
           "ReduceAny", "Argmax", "Argmin", "ArgMaxWithValue", "ArgMinWithValue"]


class _Reduce(Primitive):
    const_inputs = (1,)
    valid_types = mstype.NUMBER_TYPES
    needs_elements = False            # max / min: no identity, so no empty reduced axes

    @prim_attr_register
    def __init__(self, keep_dims=False):
        check_bool(self, "keep_dims", keep_dims)

    def _axes(self, x, axis, extra):
        if extra:
            raise TypeError(f"For '{self.name}', expected the inputs (x, axis), but got "
                            f"{2 + len(extra)} inputs")
        check_dtype(self, "x", x, self.valid_types)
        axes = check_axes(self, "axis", axis, len(x.shape))
        if self.needs_elements and any(x.shape[a] == 0 for a in axes):
            raise ValueError(f"For '{self.name}', the reduced axes {list(axes)} of 'x' must not "
                             f"have size 0 (no identity for this reduction), but got shape "
                             f"{list(x.shape)}")
        return axes

    def infer(self, x, axis=(), *extra):
        axes = self._axes(x, axis, extra)
        if self.attrs["keep_dims"]:
            shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        else:
            shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return tensor(x.dtype, shape)

    def kernel_params(self, x, axis=(), *extra):
        return {"axis": self._axes(x, axis, extra), "keep_dims": self.attrs["keep_dims"]}


class ReduceSum(_Reduce):
    """sum over `axis` (all axes for ()); the sum of an empty set is 0."""


class ReduceMean(_Reduce):
    """mean over `axis`; the mean of an empty set is NaN for floats.
    NOTE: integer inputs keep their dtype (as MindSpore): the mean is taken in float64 and
    truncated toward zero; the mean of an empty set is 0 for them."""


class ReduceMax(_Reduce):
    """maximum over `axis` (NaN propagates); a reduced axis of size 0 is a ValueError."""
    needs_elements = True


class ReduceMin(_Reduce):
    """minimum over `axis` (NaN propagates); a reduced axis of size 0 is a ValueError."""
    needs_elements = True


class ReduceProd(_Reduce):
    """product over `axis`; the product of an empty set is 1 (integers wrap around)."""


class ReduceAll(_Reduce):
    """logical and over `axis` (bool only); True for an empty set."""
    valid_types = (mstype.bool_,)


class ReduceAny(_Reduce):
    """logical or over `axis` (bool only); False for an empty set."""
    valid_types = (mstype.bool_,)


class _ArgReduce(Primitive):
    """Index of the first extreme value along one axis (the first NaN if there is one)."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, axis=-1, output_type=mstype.int32):
        check_int(self, "axis", axis)
        try:
            t = mstype.to_type(output_type)
        except TypeError:
            t = None
        if t is not mstype.int32 and t is not mstype.int64:
            raise TypeError(f"For '{self.name}', 'output_type' must be int32 or int64, but got "
                            f"{output_type!r}")
        self.add_prim_attr("output_type", t)

    def _axis(self, x):
        check_dtype(self, "x", x, mstype.NUMBER_TYPES)
        axis = check_axis(self, "axis", self.attrs["axis"], len(x.shape))
        if x.shape and x.shape[axis] == 0:
            raise ValueError(f"For '{self.name}', 'x' must not be empty along 'axis' {axis}, but "
                             f"got shape {list(x.shape)}")
        return axis

    def _out_shape(self, x, axis, keep_dims):
        if not x.shape:
            return ()
        if keep_dims:
            return x.shape[:axis] + (1,) + x.shape[axis + 1:]
        return x.shape[:axis] + x.shape[axis + 1:]

    def infer(self, x):
        axis = self._axis(x)
        return tensor(self.attrs["output_type"], self._out_shape(x, axis, False))

    def kernel_params(self, x):
        return {"axis": self._axis(x)}


class Argmax(_ArgReduce):
    """index of the maximum along `axis`, as `output_type` (int32 or int64)."""


class Argmin(_ArgReduce):
    """index of the minimum along `axis`, as `output_type` (int32 or int64)."""


class ArgMaxWithValue(_ArgReduce):
    """(index int32, value): the first maximum along `axis` and where it is."""

    @prim_attr_register
    def __init__(self, axis=0, keep_dims=False):
        check_int(self, "axis", axis)
        check_bool(self, "keep_dims", keep_dims)

    def infer(self, x):
        axis = self._axis(x)
        shape = self._out_shape(x, axis, self.attrs["keep_dims"])
        return (tensor(mstype.int32, shape), tensor(x.dtype, shape))

    def kernel_params(self, x):
        return {"axis": self._axis(x), "keep_dims": self.attrs["keep_dims"]}


class ArgMinWithValue(ArgMaxWithValue):
    """(index int32, value): the first minimum along `axis` and where it is."""
