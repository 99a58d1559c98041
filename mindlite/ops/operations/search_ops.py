"""Search, counting and run primitives: SearchSorted (insertion points into sorted rows),
Histogram (histc: equal-width bins), Bincount (counts or summed weights per value) and
UniqueConsecutive (runs of equal values). Their outputs are indices or counts: none is
differentiable (MindSpore has no bprop for them). Kernels: kernels/cpu/search_numpy.py;
Bincount and UniqueConsecutive have data-dependent output shapes (dynamic, alloc="kernel").
"""
from ...common import dtype as mstype
from ...ir.rules import non_differentiable
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_bool, check_dtype, check_tensor, tensor

__all__ = ["SearchSorted", "Histogram", "Bincount", "UniqueConsecutive"]


class SearchSorted(Primitive):
    """y = for each value, the index where it would be inserted into its row of the sorted
    sequence (the leading dims of sequence and values match, or sequence is 1-D); `right`:
    after equal entries. int64, or int32 with dtype=int32."""
    input_names = ("sorted_sequence", "values")

    @prim_attr_register
    def __init__(self, dtype=mstype.int64, right=False):
        check_bool(self, "right", right)
        if dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{self.name}', 'dtype' must be int32 or int64, but got "
                            f"{dtype}")

    def infer(self, seq, values):
        check_tensor(self, "sorted_sequence", seq)
        check_tensor(self, "values", values)
        if len(seq.shape) > 1 and tuple(seq.shape[:-1]) != tuple(values.shape[:-1]):
            raise ValueError(f"For '{self.name}', the leading dims of 'sorted_sequence' "
                             f"{list(seq.shape)} and 'values' {list(values.shape)} must match")
        return tensor(self.attrs["dtype"], values.shape)

    def kernel_params(self, seq, values):
        return {"right": self.attrs["right"]}


class Histogram(Primitive):
    """y = counts of x's elements in `bins` equal-width bins over [min, max] (both 0: x's own
    range); elements outside are ignored; the last bin includes max. Counts in x's dtype
    (float16 and ints other than int32: float32), as MindSpore's."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, bins=100, min=0.0, max=0.0):
        if not isinstance(bins, int) or isinstance(bins, bool) or bins <= 0:
            raise ValueError(f"For '{self.name}', 'bins' must be a positive int, but got "
                             f"{bins!r}")
        if min > max:
            raise ValueError(f"For '{self.name}', 'min' must be <= 'max', but got {min} and "
                             f"{max}")

    def infer(self, x):
        check_dtype(self, "x", x, mstype.NUMBER_TYPES)
        # as MindSpore's: float16 counts in float32, int32 in int32
        out = (mstype.float32 if x.dtype == mstype.float16 else x.dtype
               if x.dtype.kind == "f" or x.dtype == mstype.int32 else mstype.float32)
        return tensor(out, (self.attrs["bins"],))

    def kernel_params(self, x):
        return {"bins": self.attrs["bins"], "lo": float(self.attrs["min"]),
                "hi": float(self.attrs["max"])}


class Bincount(Primitive):
    """y[v] = how often v occurs in the 1-D non-negative int x (weighted: the sum of the
    weights at those positions), for v < max(max(x) + 1, minlength). Counts are int64; sums
    have the float weights' dtype (float64 for int weights). Unweighted, `weights` is
    ignored (pass x). skip_invalid (MindSpore's ops.bincount): x may hold any real values,
    negative and non-integral ones count nowhere, v < max(int(max(x) + 1), minlength), and
    y is float32."""
    input_names = ("x", "weights")
    dynamic_shape = True

    @prim_attr_register
    def __init__(self, minlength=0, weighted=False, skip_invalid=False):
        if not isinstance(minlength, int) or isinstance(minlength, bool) or minlength < 0:
            raise ValueError(f"For '{self.name}', 'minlength' must be a non-negative int, but "
                             f"got {minlength!r}")
        check_bool(self, "weighted", weighted)
        check_bool(self, "skip_invalid", skip_invalid)

    def infer(self, x, weights):
        skip = self.attrs["skip_invalid"]
        check_dtype(self, "x", x, mstype.REAL_TYPES if skip else mstype.INT_TYPES)
        if len(x.shape) != 1:
            raise ValueError(f"For '{self.name}', 'x' must be 1-D, but got shape "
                             f"{list(x.shape)}")
        if skip or not self.attrs["weighted"]:
            if self.attrs["weighted"]:
                self._check_weights(x, weights)
            return tensor(mstype.float32 if skip else mstype.int64, (-1,))
        self._check_weights(x, weights)
        return tensor(weights.dtype if weights.dtype.kind == "f" else mstype.float64, (-1,))

    def _check_weights(self, x, weights):
        check_tensor(self, "weights", weights)
        if tuple(weights.shape) != tuple(x.shape):
            raise ValueError(f"For '{self.name}', 'weights' must have x's shape "
                             f"{list(x.shape)}, but got {list(weights.shape)}")

    def kernel_params(self, x, weights):
        return {"minlength": self.attrs["minlength"], "weighted": self.attrs["weighted"],
                "skip_invalid": self.attrs["skip_invalid"]}


class UniqueConsecutive(Primitive):
    """(y, inverse, counts): x with each run of equal consecutive values (elements, or slices
    along `axis`) kept once; inverse maps every position to its run, counts the run
    lengths (int64)."""
    input_names = ("x",)
    dynamic_shape = True

    @prim_attr_register
    def __init__(self, axis=None):
        if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
            raise TypeError(f"For '{self.name}', 'axis' must be None or an int, but got "
                            f"{axis!r}")

    def infer(self, x):
        check_tensor(self, "x", x)
        axis = self.attrs["axis"]
        if axis is None:
            return (tensor(x.dtype, (-1,)), tensor(mstype.int64, x.shape),
                    tensor(mstype.int64, (-1,)))
        n = len(x.shape)
        if not -max(n, 1) <= axis < max(n, 1):
            raise ValueError(f"For '{self.name}', 'axis' must be in [{-n}, {n}), but got {axis}")
        shape = list(x.shape)
        shape[axis % n] = -1
        return (tensor(x.dtype, tuple(shape)), tensor(mstype.int64, (x.shape[axis % n],)),
                tensor(mstype.int64, (-1,)))

    def kernel_params(self, x):
        return {"axis": self.attrs["axis"]}


non_differentiable(SearchSorted, Histogram, Bincount, UniqueConsecutive)
