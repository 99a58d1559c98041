"""RowTensor: MindSpore's container for a set of slices of a larger tensor (rows `indices` of
a dense tensor of shape `dense_shape` hold `values`; the other rows are zero). MindSpore
deprecated it in 1.7 but 2.10 still exports it, and training code that registers
MultitypeFuncGraph functions for sparse gradients names it. mindlite's gradients are dense, so
no op produces one; it is a value holder with MindSpore's constructor and properties, plus
to_dense(). As MindSpore's, the constructor checks the argument types, not the shapes.
"""
import numbers

import numpy as np

from .tensor import Tensor

__all__ = ["RowTensor"]


class RowTensor:
    """RowTensor(indices, values, shape) or RowTensor(row_tensor=other)."""

    def __init__(self, indices=None, values=None, shape=None, row_tensor=None):
        if row_tensor is not None:
            if not isinstance(row_tensor, RowTensor):
                raise TypeError(f"Expect input `row_tensor` to be a RowTensor, but got "
                                f"{type(row_tensor)}")
            if not (indices is None and values is None and shape is None):
                raise TypeError("If input `row_tensor` is provided, `indices`, `values`, "
                                "`shapes` should all be `None`")
            indices, values, shape = (row_tensor.indices, row_tensor.values,
                                      row_tensor.dense_shape)
        for arg, v in (("indices", indices), ("values", values)):
            if not isinstance(v, Tensor):
                raise TypeError(f"For 'RowTensor', '{arg}' must be a Tensor, but got "
                                f"{type(v).__name__}")
        if not isinstance(shape, tuple) or not all(
                isinstance(n, numbers.Integral) and not isinstance(n, bool) for n in shape):
            raise TypeError(f"For 'RowTensor', 'shape' must be a tuple of ints, but got "
                            f"{shape!r}")
        self._indices, self._values, self._shape = indices, values, tuple(int(n) for n in shape)

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._shape

    def to_dense(self):
        """The dense Tensor: values added into the rows `indices` of zeros of dense_shape."""
        vals = self._values.asnumpy()
        idx = self._indices.asnumpy()
        if idx.ndim != 1 or vals.shape[:1] != idx.shape or \
                tuple(vals.shape[1:]) != self._shape[1:]:
            raise ValueError(f"For 'RowTensor.to_dense', indices {list(idx.shape)} and values "
                             f"{list(vals.shape)} do not describe rows of dense_shape "
                             f"{list(self._shape)}")
        out = np.zeros(self._shape, vals.dtype)
        np.add.at(out, idx, vals)
        return Tensor(out)

    def __repr__(self):
        return (f"RowTensor(shape={list(self._shape)}, dtype={self._values.dtype}, "
                f"indices={self._indices!r}, values={self._values!r})")
