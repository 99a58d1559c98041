"""Array transforms of mindspore.dataset.transforms on numpy columns: Duplicate (a column
twice), Fill (every element set to a value, in the column's dtype), Concatenate (with
prepend / append arrays along an axis), Mask (a Relational comparison with a constant, as
bool or `dtype`), PadEnd (pad each axis at its end to pad_shape, or cut it), Slice (numpy
indexing per axis), Unique (values in order of first appearance, the index of each element,
and the counts), and the Relational enum."""
import enum
import numbers

import numpy as np

__all__ = ["Duplicate", "Fill", "Concatenate", "Mask", "PadEnd", "Slice", "Unique",
           "Relational"]


class Relational(enum.Enum):
    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_COMPARE = {Relational.EQ: np.equal, Relational.NE: np.not_equal, Relational.GT: np.greater,
            Relational.GE: np.greater_equal, Relational.LT: np.less,
            Relational.LE: np.less_equal}


class Duplicate:
    def __call__(self, data):
        data = np.asarray(data)
        return data, data.copy()


class Fill:
    """Every element := fill_value, cast to the column's dtype."""

    def __init__(self, fill_value):
        if not isinstance(fill_value, (numbers.Number, str, bytes, np.generic)):
            raise TypeError(f"For 'Fill', 'fill_value' must be a number or a string, but got "
                            f"{type(fill_value).__name__}")
        self.fill_value = fill_value

    def __call__(self, data):
        data = np.asarray(data)
        if data.dtype.kind in "US" and not isinstance(self.fill_value, (str, bytes)):
            raise TypeError("For 'Fill', a string column needs a string 'fill_value'")
        return np.full(data.shape, np.asarray(self.fill_value).astype(data.dtype), data.dtype)


class Concatenate:
    """prepend + data + append along `axis` (0 or -1 for a 1-D column)."""

    def __init__(self, axis=0, prepend=None, append=None):
        if axis not in (0, -1):
            raise ValueError(f"For 'Concatenate', 'axis' must be 0 or -1, but got {axis!r}")
        self.axis = axis
        self.prepend = None if prepend is None else np.asarray(prepend)
        self.append = None if append is None else np.asarray(append)

    def __call__(self, data):
        data = np.asarray(data)
        parts = [p for p in (self.prepend, data, self.append) if p is not None]
        for p in parts:
            if p.dtype.kind != data.dtype.kind:
                raise TypeError(f"For 'Concatenate', 'prepend' / 'append' must have the "
                                f"column's type {data.dtype}, but got {p.dtype}")
        return np.concatenate([p.astype(data.dtype) for p in parts], self.axis)


class Mask:
    """data <operator> constant, as bool (or cast to `dtype`)."""

    def __init__(self, operator, constant, dtype=None):
        if not isinstance(operator, Relational):
            raise TypeError(f"For 'Mask', 'operator' must be a Relational, but got "
                            f"{operator!r}")
        self.operator, self.constant = operator, constant
        if dtype is None:
            self.np_dtype = np.bool_
        else:
            from ..common import dtype as mstype
            self.np_dtype = mstype.to_type(dtype).np

    def __call__(self, data):
        data = np.asarray(data)
        const = np.asarray(self.constant).astype(data.dtype) if data.dtype.kind not in "US" \
            else self.constant
        return _COMPARE[self.operator](data, const).astype(self.np_dtype)


class PadEnd:
    """Each axis padded at its end to pad_shape (None keeps an axis; a shorter axis is cut)
    with pad_value (0 or '' by default)."""

    def __init__(self, pad_shape, pad_value=None):
        if not isinstance(pad_shape, (list, tuple)) or not all(
                s is None or (isinstance(s, numbers.Integral) and s >= 0) for s in pad_shape):
            raise TypeError(f"For 'PadEnd', 'pad_shape' must be a list of non-negative ints or "
                            f"None, but got {pad_shape!r}")
        self.pad_shape, self.pad_value = list(pad_shape), pad_value

    def __call__(self, data):
        data = np.asarray(data)
        if len(self.pad_shape) != data.ndim:
            raise ValueError(f"For 'PadEnd', 'pad_shape' must have one entry per axis "
                             f"({data.ndim}), but got {self.pad_shape}")
        shape = tuple(d if s is None else s for d, s in zip(data.shape, self.pad_shape))
        value = self.pad_value if self.pad_value is not None else \
            ("" if data.dtype.kind in "US" else 0)
        out = np.full(shape, value, data.dtype)
        keep = tuple(slice(0, min(a, b)) for a, b in zip(data.shape, shape))
        out[keep] = data[keep]
        return out


class Slice:
    """numpy-style selection, one argument per axis: an int, a slice, a list of indices,
    Ellipsis or None (all)."""

    def __init__(self, *slices):
        self.slices = tuple(slice(None) if s is None else s for s in slices)

    def __call__(self, data):
        data = np.asarray(data)
        index = []
        for s in self.slices:
            if isinstance(s, numbers.Integral):
                index.append(slice(int(s), int(s) + 1 if s != -1 else None))
            elif isinstance(s, (list, tuple)):
                index.append(np.asarray(s, np.int64))
            else:
                index.append(s)
        return data[tuple(index)]


class Unique:
    """(distinct values in order of first appearance, the index of each element among
    them, the count of each) of a 1-D column."""

    def __call__(self, data):
        data = np.asarray(data)
        if data.ndim != 1:
            raise ValueError(f"For 'Unique', the column must be 1-D, but got shape {data.shape}")
        values, first, inverse, counts = np.unique(data, return_index=True,
                                                   return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return values[order], rank[inverse].astype(np.int32), counts[order].astype(np.int32)
