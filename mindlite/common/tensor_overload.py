"""Overload resolution for the Tensor methods MindSpore 2.10 defines with several signatures
(`x.max()`, `x.max(dim, keepdim=False)`, `x.max(axis=None, keepdims=False, ...)`): as
MindSpore's argument parser, the signatures are tried in their declared order and the first one
the call's arguments bind to (count, keyword names, argument types) runs.

A signature is written as text, parsed once at import:
    "dim: int, keepdim: bool = False, *, dtype: dtype? = None"
    "*axes: ints"                      (varargs; one tuple / list argument is unpacked)
Types: int (not bool), bool, number (int or float, not bool), ints (an int or a tuple / list
of ints), tensor, dtype, str, any; a trailing `?` also admits None. Defaults are Python
literals. `overloaded(name, (signature, impl), ...)` returns the method: impl(self, **bound);
`overloaded_function` the same for a function (mint.max): impl(**bound).
"""
import ast
import numbers

import numpy as np

from . import dtype as mstype

_REQUIRED = object()


def _is_int(v):
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_ints(v):
    return _is_int(v) or (isinstance(v, (tuple, list)) and all(_is_int(e) for e in v))


def _tensor_type():
    from .tensor import Tensor
    return Tensor


_CHECKS = {
    "int": _is_int,
    "bool": lambda v: isinstance(v, (bool, np.bool_)),
    "number": lambda v: isinstance(v, (numbers.Real, np.number)) and
    not isinstance(v, (bool, np.bool_)),
    "ints": _is_ints,
    "tensor": None,              # the caller's test (eager: a Tensor; graph mode: a node too)
    "dtype": lambda v: isinstance(v, mstype.Type),
    "str": lambda v: isinstance(v, str),
    "any": lambda v: True,
}


class Param:
    __slots__ = ("name", "check", "optional", "default", "kwonly", "varargs", "type")

    def __init__(self, text, kwonly):
        self.varargs = text.startswith("*")
        text = text.lstrip("*")
        head, _, default = text.partition("=")
        name, _, type_ = head.partition(":")
        self.name = name.strip()
        type_ = type_.strip() or "any"
        self.optional = type_.endswith("?")
        self.type = type_.rstrip("?")
        self.check = _CHECKS[self.type]
        self.default = ast.literal_eval(default.strip()) if default else _REQUIRED
        self.kwonly = kwonly

    def accepts(self, value, is_tensor):
        if value is None and self.optional:
            return True
        return is_tensor(value) if self.check is None else self.check(value)


class Signature:
    """One overload: its parameters, parsed from text."""

    def __init__(self, text):
        self.text = text
        self.params, kwonly = [], False
        for part in filter(None, (p.strip() for p in text.split(","))):
            if part == "*":
                kwonly = True
                continue
            self.params.append(Param(part, kwonly))
        self.names = {p.name for p in self.params}

    def bind(self, args, kwargs, is_tensor):
        """{name: value} when the call fits this signature, else None."""
        if any(k not in self.names for k in kwargs):
            return None
        bound, rest = {}, list(args)
        for p in self.params:
            if p.varargs:
                if p.name in kwargs:
                    return None
                vals = rest[0] if len(rest) == 1 and isinstance(rest[0], (tuple, list)) \
                    else tuple(rest)
                if not all(p.accepts(v, is_tensor) for v in vals):
                    return None
                bound[p.name], rest = tuple(vals), []
                continue
            if rest and not p.kwonly:
                value = rest.pop(0)
                if p.name in kwargs:
                    return None
            elif p.name in kwargs:
                value = kwargs[p.name]
            elif p.default is not _REQUIRED:
                bound[p.name] = p.default
                continue
            else:
                return None
            if not p.accepts(value, is_tensor):
                return None
            bound[p.name] = value
        return None if rest else bound


def _eager_is_tensor(v):
    return isinstance(v, _tensor_type())


def resolve(name, sigs, args, kwargs, is_tensor=_eager_is_tensor):
    """(impl, bound arguments) of the first overload the call fits, else a TypeError naming
    the method, what was given and the valid forms. Graph mode (jit/parse_call.py) resolves
    at compile time with its own `is_tensor` (graph values are Tensors too)."""
    for sig, impl in sigs:
        bound = sig.bind(args, kwargs, is_tensor)
        if bound is not None:
            return impl, bound
    given = ", ".join([type(a).__name__ for a in args] +
                      [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
    valid = "; ".join(f"{name}({s.text})" for s, _ in sigs)
    raise TypeError(f"Failed calling {name} with \"{name}({given})\". The valid calling forms "
                    f"are: {valid}")


def overloaded(name, *overloads):
    """The Tensor method `name` over its (signature text, impl) overloads, tried in order."""
    sigs = tuple((Signature(text), impl) for text, impl in overloads)

    def method(self, *args, **kwargs):
        impl, bound = resolve(name, sigs, args, kwargs)
        return impl(self, **bound)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"Tensor.{name}: " + " | ".join(f"({s.text})" for s, _ in sigs)
    method.overloads = sigs
    method.overload_self = True
    return method


def overloaded_function(name, *overloads, owner="mint"):
    """A function (mint.max, ...) over its (signature text, impl) overloads: impl(**bound)."""
    sigs = tuple((Signature(text), impl) for text, impl in overloads)

    def function(*args, **kwargs):
        impl, bound = resolve(name, sigs, args, kwargs)
        return impl(**bound)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"{owner}.{name}: " + " | ".join(f"({s.text})" for s, _ in sigs)
    function.overloads = sigs
    function.overload_self = False
    return function
