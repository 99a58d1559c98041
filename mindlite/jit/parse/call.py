"""Calls in the graph-mode parser: what each kind of callee becomes.

    Primitive instance          a CNode (abstract from the primitive's infer); with only
                                constant inputs it runs now (constant folding), as eager's
                                const prims do
    Cell                        its construct, parsed and inlined
    nn.GraphCell                its loaded FuncGraph, copied in (parse_graph_cell.py)
    Python function / method    parsed and inlined (constant parts computed as they are
                                reached); one that cannot be parsed is an error
    constexpr helpers           primitive factories and memo caches (standard_method.py)
                                called now on constants
    def / lambda in graph code  parsed and inlined (a closure over the defining frame)
    builtins                    len, range, isinstance, tuple, list, zip, enumerate, min and
                                max on constants, getattr, hasattr, abs, bool, type, print
    anything else               called now on constants; on graph values an error
Graph-mode versions of a few eager functions (GRAPH_OVERRIDES, jit/standard_method.py)
replace them: eager's Tensor indexing keeps runtime caches a graph cannot hold.
"""
import builtins
import types

from ...common.abstract import AbstractScalar
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ir.anf import PRINT, AnfNode, ParameterNode
from ...ir.infer import Folded
from ...ir.rules import SIDE_EFFECTS, has_side_effect  # noqa: F401  (named here too: old path)
from ..dynamic import is_dyn_int
from ...ir.primitive import Primitive

_CONTAINER_BUILTINS = (builtins.len, builtins.tuple, builtins.list, builtins.zip,
                       builtins.enumerate, builtins.reversed, builtins.dict)


_MUTATING = frozenset(("append", "extend", "insert", "pop", "remove", "clear", "update",
                       "setdefault", "popitem", "add", "discard", "sort", "reverse",
                       "__setitem__", "__delitem__", "__iadd__"))


def _overrides():
    from .. import standard_method
    return standard_method.GRAPH_OVERRIDES


def _is_constexpr(fn):
    from ..standard_method import CONSTEXPR, CONSTEXPR_MODULES
    target = fn.__func__ if isinstance(fn, types.MethodType) else fn
    if not isinstance(target, types.FunctionType):
        return False
    return target in CONSTEXPR or target.__module__ in CONSTEXPR_MODULES


class CallMixin:
    def e_Call(self, e, frame):
        import ast
        fn = self.expr(e.func, frame)
        args = []
        for a in e.args:
            if isinstance(a, ast.Starred):
                args.extend(self.iterate(self.expr(a.value, frame)))
            else:
                args.append(self.expr(a, frame))
        kwargs = {}
        for k in e.keywords:
            if k.arg is None:
                kwargs.update(self.expr(k.value, frame))
            else:
                kwargs[k.arg] = self.expr(k.value, frame)
        self.at(frame, e)
        if fn is builtins.super and not args and not kwargs:
            return self.zero_arg_super(frame)
        return self.call_value(fn, tuple(args), kwargs)

    def zero_arg_super(self, frame):
        """`super()` in a parsed method: as Python does, super(__class__, first argument),
        with __class__ the defining class (the function's closure cell, which the compiler
        creates for any method that names `super`) and the frame's first parameter."""
        cls = frame.closure.get("__class__")
        f = frame
        while cls is None and f.enclosing is not None:
            f = f.enclosing
            cls = f.closure.get("__class__")
        if not isinstance(cls, type):
            raise self.error(RuntimeError(f"super(): __class__ cell not found in "
                                          f"'{frame.name}' (super() without arguments works "
                                          f"only in a method defined in a class body)"))
        if frame.first_arg is None or frame.first_arg not in frame.vars:
            raise self.error(RuntimeError(f"super(): no arguments in '{frame.name}'"))
        obj = frame.vars[frame.first_arg]
        if isinstance(obj, AnfNode):
            raise self.unsupported("super() on a Tensor computed in the graph")
        return self.call_value(builtins.super, (cls, obj), {})

    def call_value(self, fn, args, kwargs):
        from .values import GraphClosure, GraphMethod, is_dyn
        from ...nn.cell import Cell
        from .grad import NOT_MINE, special_call
        special = special_call(self, fn, args, kwargs)     # grad calls, @jit, Cell.bprop
        if special is not NOT_MINE:
            return special
        if isinstance(fn, AnfNode):
            raise self.unsupported("calling a value computed in the graph")
        if isinstance(fn, Primitive):
            if kwargs:
                raise self.error(TypeError(f"For '{fn.name}', primitives take positional "
                                           f"inputs only, but got {sorted(kwargs)}"))
            return self.emit_prim(fn, args)
        if isinstance(fn, GraphMethod):
            return self.call_value(fn.func, (fn.obj,) + tuple(args), kwargs)
        if isinstance(fn, GraphClosure):
            return self.call_closure(fn, args, kwargs)
        if isinstance(fn, Cell) and getattr(type(fn), "_graph_cell", False):
            from .graph_cell import inline_graph_cell      # a loaded model: inlined
            return inline_graph_cell(self, fn, args, kwargs)
        if isinstance(fn, Cell):
            if fn.__dict__.get("_mp_dtype") is not None or "_mp_output" in fn.__dict__:
                # to_float casts inputs and Parameter reads at run time (nn/cell_mixed.py):
                # inlined, its construct would silently compute in the weights' dtype
                raise self.unsupported(f"calling the mixed-precision cell "
                                       f"{type(fn).__name__} (Cell.to_float)")
            for name in ("_mp_dtype", "_mp_output"):      # a later to_float: stale
                self.guards.setdefault((id(fn), name), (fn, name, None))
            return self.call_function(type(fn).construct, (fn,) + tuple(args), kwargs)
        override = _overrides().get(fn) if _hashable(fn) else None
        if override is not None:
            return self.call_function(override, args, kwargs)
        if fn is builtins.print:
            return self.emit_print(args)
        handler = _BUILTINS.get(fn) if _hashable(fn) else None
        if handler is not None and (any(isinstance(a, AnfNode) for a in args)
                                    or fn is builtins.isinstance):
            return handler(self, *args, **kwargs)
        dyn = is_dyn(args) or is_dyn(kwargs)
        if not dyn and _is_constexpr(fn):
            try:
                return fn(*args, **kwargs)
            except Exception as err:
                raise self.error(err) from None
        overloads = getattr(getattr(fn, "__func__", fn), "overloads", None)
        if overloads is not None:              # a Tensor method with several signatures
            return self._call_overloaded(fn, args, kwargs, overloads)
        self.check_mutation(fn)
        if isinstance(fn, types.MethodType) and hasattr(fn.__func__, "__code__"):
            return self._parse_or_fallback(fn.__func__, (fn.__self__,) + tuple(args), kwargs,
                                           dyn)
        if isinstance(fn, types.FunctionType):
            return self._parse_or_fallback(fn, args, kwargs, dyn)
        if dyn and not self._container_call(fn, args):
            raise self.unsupported(f"calling '{getattr(fn, '__qualname__', fn)}' with Tensors "
                                   f"computed in the graph")
        try:
            result = fn(*args, **kwargs)
        except Exception as err:
            raise self.error(err) from None
        if isinstance(fn, type) or getattr(fn, "__name__", "") == "__new__":
            self.local(result)          # a new object: the graph code may set it up
        try:
            return self.lift(result)
        except Exception as err:
            raise self.error(err) from None

    def local(self, value):
        """Remember an object the graph code itself created (a list, a dict, a new instance):
        only those may be mutated at compile time (a mutation of anything else would happen
        once, not per call)."""
        self.locals[id(value)] = value
        return value

    def check_mutation(self, fn):
        owner = getattr(fn, "__self__", None)
        if isinstance(fn, types.BuiltinMethodType) and isinstance(owner, (list, dict, set)) \
                and fn.__name__ in _MUTATING and id(owner) not in self.locals:
            raise self.unsupported(f"'{type(owner).__name__}.{fn.__name__}' on a "
                                   f"{type(owner).__name__} the graph did not create (a side "
                                   f"effect that would happen once, at compile time)")

    def _call_overloaded(self, fn, args, kwargs, overloads):
        """The overload is chosen now, from the arguments' kinds (graph values are Tensors);
        its implementation is parsed as any function."""
        from ...common.tensor_overload import resolve
        from .values import is_tensor
        if isinstance(fn, types.MethodType):
            args = (fn.__self__,) + tuple(args)
        method = getattr(getattr(fn, "__func__", fn), "overload_self", True)
        try:
            impl, values, _ = resolve(fn.__name__, overloads,
                                      tuple(args[1:] if method else args), kwargs, is_tensor)
        except TypeError as err:
            raise self.error(err) from None
        return self.call_function(impl, ((args[0],) if method else ()) + values, {})

    def _parse_or_fallback(self, fn, args, kwargs, dyn):
        """Python functions are always parsed (so a random or in-place primitive inside stays
        a node of the graph, and no Python side effect runs at compile time); one that
        cannot be parsed is an error even on constants (calling it now could change state
        once, at compile time, instead of on every call)."""
        return self.call_function(fn, args, kwargs)

    def _container_call(self, fn, args):
        """Builtins that only move values around (len, tuple, zip, list.append...)."""
        if fn in _CONTAINER_BUILTINS:
            return not any(isinstance(a, AnfNode) for a in args)
        owner = getattr(fn, "__self__", None)
        return isinstance(fn, types.BuiltinMethodType) and isinstance(owner, (list, dict))

    def emit_prim(self, prim, args):
        from .values import is_dyn
        args = tuple(self._tensor_arg(prim, i, a) for i, a in enumerate(args))
        effect = has_side_effect(prim)
        if not is_dyn(args) and not effect:
            try:
                return prim(*args)
            except Exception as err:
                raise self.error(err) from None
        abstracts = tuple(a if i in prim.const_inputs else self.abstract_of(a)
                          for i, a in enumerate(args))
        try:
            out = self.infer_prim(prim, args, abstracts)
        except (TypeError, ValueError) as err:
            raise self.error(err) from None
        if isinstance(out, Folded):
            return out.value
        node = self.emit([prim] + list(args), out, side_effect=effect)
        return self.prim_result(node, out)

    def _tensor_arg(self, prim, i, a):
        if isinstance(a, Parameter) and i not in prim.const_inputs:
            return self.param_node(a)
        return a

    def emit_print(self, args):
        shown = []
        for a in args:
            if isinstance(a, (AnfNode, Tensor)) or not isinstance(a, (tuple, list)):
                shown.append(a)
            else:
                shown.append(tuple(a))
        self.emit([PRINT] + shown, AbstractScalar(None), side_effect=True)
        return None


def _hashable(fn):
    try:
        hash(fn)
        return True
    except TypeError:
        return False


# ---- builtins on graph values ------------------------------------------------------------------
def _len(p, x):
    a = x.abstract
    if not getattr(a, "shape", None):
        raise p.error(TypeError("len() of a 0-d Tensor"))
    return a.shape[0] if a.shape[0] >= 0 else p.dyn_shape(x)[0]


def _isinstance(p, x, classes):
    if isinstance(x, AnfNode):
        return issubclass(_type(p, x), classes)
    return isinstance(x, classes)


def _type(p, x):
    if is_dyn_int(x):
        return int
    return Parameter if isinstance(x, ParameterNode) and x.default is not None else Tensor


def _abs(p, x):
    return p.call_value(Tensor.__abs__, (x,), {})


def _bool(p, x):
    return p.condition(x)


def _no(name):
    def handler(p, *args, **kwargs):
        raise p.unsupported(f"'{name}()' on a Tensor computed in the graph (use ops.minimum/"
                            f"ops.maximum, ops.sum, Tensor.item() in eager mode, ...)")
    return handler


def _on_ints(fn, name):
    """range(n), int(n) on a dynamic dimension: the hint's value, guarded (a graph per
    size); on a tensor: an error."""
    def handler(p, *args):
        if not all(is_dyn_int(a) or not isinstance(a, AnfNode) for a in args):
            return _no(name)(p, *args)
        return fn(*(p.dyn_int_value(a, f"'{name}()' of a dynamic dimension")
                    if is_dyn_int(a) else a for a in args))
    return handler


def _getattr(p, obj, name, *default):
    return p.get_attr(obj, name, *default)


def _hasattr(p, obj, name):
    from .expr import _NOT_FOUND
    return p.get_attr(obj, name, _NOT_FOUND) is not _NOT_FOUND


def _seq(kind):
    def handler(p, x, *rest):
        return p.local(kind(p.iterate(x), *rest))
    return handler


_BUILTINS = {builtins.len: _len, builtins.isinstance: _isinstance, builtins.type: _type,
             builtins.abs: _abs, builtins.bool: _bool, builtins.getattr: _getattr,
             builtins.hasattr: _hasattr, builtins.min: _no("min"), builtins.max: _no("max"),
             builtins.int: _on_ints(int, "int"), builtins.float: _no("float"),
             builtins.sum: _no("sum"), builtins.range: _on_ints(range, "range"),
             builtins.tuple: _seq(tuple), builtins.list: _seq(list),
             builtins.enumerate: lambda p, x, start=0: list(enumerate(p.iterate(x), start)),
             builtins.zip: lambda p, *xs: list(zip(*(p.iterate(x) for x in xs)))}
