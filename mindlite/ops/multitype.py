"""MindSpore's function-dispatch composites: MultitypeFuncGraph (one name, a function per
combination of argument types), HyperMap and Map (apply a function over sequences) and
partial (ops.partial / F.partial). Optimizers and training wrappers written for MindSpore
build their per-parameter updates from them (`HyperMap()(F.partial(_opt, lr), grads, ...)`).

As MindSpore 2.10 runs them in PyNative mode: MultitypeFuncGraph with one registered function
calls it without looking at the types; with several, the first registration (in order) whose
type names all match the arguments' MindSpore types wins, else ValueError. Type names are
MindSpore's: "Tensor" (any Tensor or Parameter), "Number" (bool, int and float: a Python int
is Int64, a float Float64, a bool Bool), "Int", "Float", "Bool", "Int64", "Float32", ...,
"String", "Tuple", "List", "None", "Function", "RowTensor", "Dict"; a mindlite dtype (for
`register(mstype.float32)`) matches a Python number of that type. HyperMap recurses into nested
tuples/lists (the leaves are the function's arguments); Map applies to one level. Both return
tuples, as MindSpore's.
"""
import functools
import numbers

import numpy as np

from ..common import dtype as mstype
from ..common.tensor import Tensor

__all__ = ["MultitypeFuncGraph", "HyperMap", "Map", "partial"]


def _int_kind(bits):
    return lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool) and bits == 64


def _float_kind(bits):
    return lambda v: isinstance(v, float) and bits == 64


def _number(v):
    return isinstance(v, (bool, numbers.Integral, float))


_BY_NAME = {
    "Tensor": lambda v: isinstance(v, Tensor),
    "Number": _number,
    "Int": lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool),
    "Float": lambda v: isinstance(v, float),
    "Bool": lambda v: isinstance(v, bool),
    "String": lambda v: isinstance(v, str),
    "Tuple": lambda v: isinstance(v, tuple),
    "List": lambda v: isinstance(v, list),
    "Dict": lambda v: isinstance(v, dict),
    "None": lambda v: v is None,
    "Function": callable,
    "Slice": lambda v: isinstance(v, slice),
    "Ellipsis": lambda v: v is Ellipsis,
    "TypeType": lambda v: isinstance(v, mstype.Type),
    "RowTensor": lambda v: type(v).__name__ == "RowTensor",
}
for _bits in (8, 16, 32, 64):
    _BY_NAME[f"Int{_bits}"] = _int_kind(_bits)
    _BY_NAME[f"UInt{_bits}"] = lambda v: False       # Python ints are Int64
for _bits in (16, 32, 64):
    _BY_NAME[f"Float{_bits}"] = _float_kind(_bits)


def _matcher(name, type_name):
    if isinstance(type_name, mstype.Type):
        key = {"b": "Bool", "i": "Int", "u": "UInt", "f": "Float"}.get(type_name.kind)
        bits = np.dtype(type_name.np).itemsize * 8 if key not in (None, "Bool") else None
        type_name = key if bits is None else f"{key}{bits}"
    if not isinstance(type_name, str) or type_name not in _BY_NAME:
        raise TypeError(f"For 'MultitypeFuncGraph' '{name}', register only supports "
                        f"MindSpore type names ({', '.join(sorted(_BY_NAME))}) or dtypes, "
                        f"but got {type_name!r}")
    return _BY_NAME[type_name]


class MultitypeFuncGraph:
    """An overloaded function: `@mfg.register("Tensor", "Number")` adds an implementation;
    calling picks the implementation whose types match (module docstring)."""

    def __init__(self, name, read_value=False):
        if not isinstance(name, str):
            raise TypeError(f"For 'MultitypeFuncGraph', 'name' must be a str, but got "
                            f"{type(name).__name__}")
        self.name = name
        self.read_value = read_value
        self.entries = []

    def register(self, *type_names):
        matchers = tuple(_matcher(self.name, t) for t in type_names)

        def deco(fn):
            self.entries.append((type_names, matchers, fn))
            return fn
        return deco

    def __call__(self, *args):
        for arg in args:
            if isinstance(arg, np.ndarray):
                raise TypeError("For 'MultitypeFuncGraph', the input can not be numpy.ndarray")
        if len(self.entries) == 1:
            return self.entries[0][2](*args)
        for _, matchers, fn in self.entries:
            if len(matchers) == len(args) and all(m(a) for m, a in zip(matchers, args)):
                return fn(*args)
        got = tuple(type(a).__name__ for a in args)
        raise ValueError(f"For 'MultitypeFuncGraph' '{self.name}', cannot find a function "
                         f"registered for the argument types {got}; registered: "
                         f"{[e[0] for e in self.entries]}")

    def __repr__(self):
        return f"MultitypeFuncGraph({self.name!r})"


def _check_fn(api, fn):
    if not callable(fn):
        raise TypeError(f"For '{api}', the operation must be callable (a MultitypeFuncGraph, "
                        f"function or partial), but got {type(fn).__name__}")


def _check_lengths(api, seqs):
    if len({len(s) for s in seqs}) > 1:
        raise ValueError(f"For '{api}', the input sequences must have the same length, but "
                         f"got lengths {[len(s) for s in seqs]}")


class HyperMap:
    """HyperMap(ops=None)(*seqs): ops applied to the leaves of (nested) tuples/lists taken
    together, element by element; with ops None the first argument is the operation."""

    def __init__(self, ops=None, reverse=False):
        if ops is not None:
            _check_fn("HyperMap", ops)
        self.ops = ops
        self.reverse = reverse

    def _map(self, fn, args):
        if not args:
            raise TypeError("For 'HyperMap', at least one input sequence is required")
        if not isinstance(args[0], (tuple, list)):
            return fn(*args)
        _check_lengths("HyperMap", args)
        return tuple(self._map(fn, row) for row in zip(*args))

    def __call__(self, *args):
        if self.ops is None:
            if not args:
                raise TypeError("For 'HyperMap', the operation is missing")
            _check_fn("HyperMap", args[0])
            return self._map(args[0], args[1:])
        return self._map(self.ops, args)


class Map:
    """Map(ops=None)(*seqs): ops applied to one level of sequences, element by element."""

    def __init__(self, ops=None, reverse=False):
        if ops is not None:
            _check_fn("Map", ops)
        self.ops = ops
        self.reverse = reverse

    def __call__(self, *args):
        fn, seqs = (self.ops, args) if self.ops is not None else (args[0], args[1:])
        _check_fn("Map", fn)
        for s in seqs:
            if not isinstance(s, (tuple, list)):
                raise TypeError(f"For 'Map', the inputs must be tuples or lists, but got "
                                f"{type(s).__name__}")
        _check_lengths("Map", seqs)
        return tuple(fn(*row) for row in zip(*seqs))


def partial(func, *args):
    """F.partial(func, *args): func with its leading arguments bound (MindSpore's Partial)."""
    _check_fn("partial", func)
    return functools.partial(func, *args)
