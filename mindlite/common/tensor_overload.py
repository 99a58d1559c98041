"""Overload resolution for the Tensor methods MindSpore 2.10 defines with several signatures
(`x.max()`, `x.max(dim, keepdim=False)`, `x.max(axis=None, keepdims=False, ...)`): as
MindSpore's argument parser, the signatures are tried in their declared order and the first one
the call's arguments bind to (count, keyword names, argument types) runs.

A signature is written as text, parsed once at import:
    "dim: int, keepdim: bool = False, *, dtype: dtype? = None"
    "*axes: ints"                      (varargs; one tuple / list argument is unpacked)
Types: int (not bool), bool, number (int or float, not bool), ints (an int or a tuple / list
of ints), tensor, dtype, str, any; a trailing `?` also admits None. Defaults are Python
literals. `overloaded(name, (signature, impl), ...)` returns the method: impl(self, *values),
the values in the signature's parameter order; `overloaded_function` the same for a function
(mint.max): impl(*values).
"""
import ast
import numbers

import numpy as np

from . import dtype as mstype

_REQUIRED = object()


def _is_int(v):
    t = type(v)
    if t is int:
        return True
    return t is not bool and isinstance(v, (numbers.Integral, np.integer)) and \
        not isinstance(v, np.bool_)


def _is_ints(v):
    return _is_int(v) or (isinstance(v, (tuple, list)) and all(_is_int(e) for e in v))


Tensor = None   # the Tensor class, set by tensor.py (which imports this module)


def _tensor_type():
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
                if p.name in kwargs:             # x.permute(dims=(1, 0)): the whole tuple
                    if rest:
                        return None
                    rest = [kwargs[p.name]]
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
    """(impl, its arguments in the signature's parameter order, the signature) of the first
    overload the call fits, else a TypeError naming the method, what was given and the valid
    forms (impls take their parameters positionally: overloads with other parameter names
    may share one).
    Graph mode (jit/parse/call.py) resolves at compile time with its own `is_tensor` (graph
    values are Tensors too)."""
    for sig, impl in sigs:
        bound = sig.bind(args, kwargs, is_tensor)
        if bound is not None:
            return impl, tuple(bound[p.name] for p in sig.params), sig
    given = ", ".join([type(a).__name__ for a in args] +
                      [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
    valid = "; ".join(f"{name}({s.text})" for s, _ in sigs)
    raise TypeError(f"Failed calling {name} with \"{name}({given})\". The valid calling forms "
                    f"are: {valid}")


# ---- the plan cache of eager calls ----------------------------------------------------------
# NOTE: which overload a call binds to, and how, depends only on the number of positional
# arguments, the keyword names and each argument's kind (the type tests above): an eager call
# looks its binding plan up by that key (one dict lookup) instead of trying every signature.
# Bounded (PLAN_CAP per method, cleared when full) and thread-safe (dict reads and writes).
PLAN_CAP = 64
_KINDS = {int: "i", bool: "b", float: "f", str: "s", type(None): "n"}


def _kind(v):
    k = _KINDS.get(type(v))
    if k is not None:
        return k
    if isinstance(v, (tuple, list)):
        return "I" if all(_is_int(e) for e in v) else "q"
    if isinstance(v, _tensor_type()):
        return "T"
    if isinstance(v, mstype.Type):
        return "d"
    if isinstance(v, (bool, np.bool_)):
        return "b"
    if _is_int(v):
        return "i"
    if isinstance(v, (numbers.Real, np.number)):
        return "f"
    return "o"


def _plan(sig, args, kwargs, impl):
    """How to replay `sig`'s binding of a call of this shape, or None for a varargs signature
    (bound afresh each time): (impl, the parameter names in order (the first len(args) are
    the positional ones), defaults of those not given, and, for a call without keywords,
    those defaults in parameter order: impl(*args, *tail))."""
    if any(p.varargs for p in sig.params):
        return None
    names = tuple(p.name for p in sig.params)
    positional = names[:len(args)]
    defaults = {p.name: p.default for p in sig.params
                if p.name not in kwargs and p.name not in positional}
    tail = None if kwargs else tuple(p.default for p in sig.params[len(args):])
    return impl, names, defaults, tail


class _Dispatcher:
    """The eager entry of an overloaded method / function: the plan cache, then resolve.
    Implementations take their parameters in signature order (so a call without keywords
    replays as impl(*leading, *args, *tail))."""
    __slots__ = ("name", "sigs", "plans")

    def __init__(self, name, sigs):
        self.name, self.sigs, self.plans = name, sigs, {}

    def __call__(self, lead, args, kwargs):
        key = tuple(map(_kind, args))
        if kwargs:
            key = (key, tuple((k, _kind(v)) for k, v in kwargs.items()))
        plan = self.plans.get(key)
        if plan is None:
            impl, values, sig = resolve(self.name, self.sigs, args, kwargs)
            plan = _plan(sig, args, kwargs, impl)
            if plan is None:
                return impl(*lead, *values)
            if len(self.plans) >= PLAN_CAP:
                self.plans.clear()
            self.plans[key] = plan
        impl, names, defaults, tail = plan
        if tail is not None:
            return impl(*lead, *args, *tail)
        bound = dict(defaults)
        bound.update(zip(names[:len(args)], args))
        bound.update(kwargs)
        return impl(*lead, *[bound[n] for n in names])


def overloaded(name, *overloads):
    """The Tensor method `name` over its (signature text, impl) overloads, tried in order."""
    sigs = tuple((Signature(text), impl) for text, impl in overloads)
    dispatch = _Dispatcher(name, sigs)

    def method(self, *args, **kwargs):
        if not args and not kwargs:
            plan = dispatch.plans.get(())             # x.sum(): one lookup, one call
            if plan is not None:
                return plan[0](self, *plan[3])
        return dispatch((self,), args, kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"Tensor.{name}: " + " | ".join(f"({s.text})" for s, _ in sigs)
    method.overloads = sigs
    method.overload_self = True
    return method


def overloaded_function(name, *overloads, owner="mint"):
    """A function (mint.max, ...) over its (signature text, impl) overloads: impl(**bound)."""
    sigs = tuple((Signature(text), impl) for text, impl in overloads)
    dispatch = _Dispatcher(name, sigs)

    def function(*args, **kwargs):
        return dispatch((), args, kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"{owner}.{name}: " + " | ".join(f"({s.text})" for s, _ in sigs)
    function.overloads = sigs
    function.overload_self = False
    return function
