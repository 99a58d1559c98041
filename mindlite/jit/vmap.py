"""ops.vmap (MindSpore's `vmap(fn, in_axes=0, out_axes=0)`): a batching transform over
primitives, not a Python loop over the batch.

`fn` is parsed once into a graph for one example (the graph parser, jit/parse*.py, with each
mapped argument's abstract minus its mapped axis); the graph's primitive calls are then
replayed on the whole batch, each through its batch rule (vmap_rules.py): the rule calls the
primitive (or a batched relative) once on batched values, e.g. a reduction over axis a of
the example becomes a reduction over axis a + 1, a MatMul of a batched matrix becomes a
BatchMatMul. A primitive with no batch rule, or control flow on a tensor inside `fn`, raises
NotImplementedError naming it. Batched values carry their batch axis first internally;
`out_axes` moves it where asked.

`fn` may be a Cell (its construct is parsed, the cell its first argument), a bound method or
a @jit function (its Python function is parsed).
A vmap of a vmap runs as one vmap over both batch axes: each argument's outer and inner
mapped axes are moved first and merged into one axis of B1 * B2 (an argument mapped by one
of them only is repeated along the other), the inner function is vmapped once over it, and
the result is split back and placed by the inner, then the outer out_axes.
"""
import inspect
import numbers

from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..ir.anf import MAKE_TUPLE, TUPLE_GETITEM, IRPrim, ValueNode
from ..ir.manager import FuncGraphManager
from ..ir.primitive import Primitive
from ..ops.function import vmap_rules
from ..ops.function.vmap_rules import _F


class _Functional:
    """ops.functional, imported on first use (it imports this module)."""

    def __getattr__(self, name):
        return getattr(_F(), name)


F = _Functional()

__all__ = ["vmap"]


def _axes_tree(api, axes, args):
    """in_axes per positional argument (an int / None for all, or a tuple/list per arg)."""
    if axes is None or isinstance(axes, numbers.Integral) and not isinstance(axes, bool):
        return [axes] * len(args)
    if isinstance(axes, (tuple, list)) and len(axes) == len(args):
        return list(axes)
    raise ValueError(f"For '{api}', 'in_axes' must be an int, None, or a tuple with one entry "
                     f"per argument ({len(args)}), but got {axes!r}")


def _parse(fn, examples):
    from .api import _as_params, _pack
    from .parse.parser import Parser, function_ast
    from ..ir.anf import Location
    _, file = function_ast(fn)
    parser = Parser("vmap_" + getattr(fn, "__name__", "fn").replace("<", "").replace(">", ""),
                    Location(file, fn.__code__.co_firstlineno))
    names = list(inspect.signature(fn).parameters)
    params = [_as_params(parser, a, names[i] if i < len(names) else f"arg{i}")
              for i, a in enumerate(examples)]
    result = parser.parse_entry(fn, params, {}, names)
    parser.fg = parser.root
    leaves = []
    template = _pack(result, leaves)
    parser.root.set_output(leaves[0] if template == ("leaf", 0)
                           else parser.as_input(tuple(leaves)))
    FuncGraphManager(parser.root).dce()
    return parser.root, template


def _example(api, value, axis):
    """(the per-example stand-in for parsing, the value with its batch axis moved first)."""
    if axis is None or not isinstance(value, Tensor):
        return value, None
    if not -value.ndim <= axis < value.ndim:
        raise ValueError(f"For '{api}', in_axes {axis} is out of range for an argument of "
                         f"shape {value.shape}")
    axis %= value.ndim
    moved = vmap_rules.move_to_front(value, axis)
    return moved[0], moved


def _target(fn):
    """(the Python function to parse, the arguments bound before the user's): a Cell's
    construct with the cell, a bound method's function with its object, or fn itself."""
    if inspect.ismethod(fn):
        return fn.__func__, (fn.__self__,)
    wrapped = getattr(fn, "__wrapped__", None)       # a @jit function: parsed as its function
    if not inspect.isfunction(fn) and wrapped is not None:
        return _target(wrapped)
    if not inspect.isfunction(fn) and callable(getattr(type(fn), "construct", None)):
        construct = type(fn).construct
        while not inspect.isfunction(construct) and hasattr(construct, "__wrapped__"):
            construct = construct.__wrapped__           # a @jit construct: its function
        return construct, (fn,)
    return fn, ()


class VmapSpec:
    """What a vmapped function computes, for graph mode (jit/parse/vmap.py reads it from the
    function's `_ml_vmap`): the mapped function, the axes, and this module's steps, so the
    parser replays them on graph values without importing this module."""
    axes_tree = staticmethod(_axes_tree)
    parse = staticmethod(_parse)

    def __init__(self, fn, in_axes, out_axes):
        self.fn, self.in_axes, self.out_axes = fn, in_axes, out_axes

    @staticmethod
    def run(graph, env, apply):
        return _run(graph, env, apply)

    @staticmethod
    def place(api, out, template, out_axes, size, place):
        return _place(api, out, template, out_axes, size, place)


def vmap(fn, in_axes=0, out_axes=0):
    """Vectorize `fn` over the `in_axes` of its arguments; results batched along out_axes."""
    api = "vmap"
    if not callable(fn):
        raise TypeError(f"For '{api}', 'fn' must be callable, but got {type(fn).__name__}")
    inner = getattr(fn, "_vmap_spec", None)
    if inner is not None:
        batched = _nested(api, inner, in_axes, out_axes)
        batched._vmap_spec = (fn, in_axes, out_axes)
        return batched
    target, bound = _target(fn)

    def batched(*args):
        args = bound + args
        axes = [None] * len(bound) + _axes_tree(api, in_axes, args[len(bound):])
        examples, values, sizes = [], [], set()
        for a, ax in zip(args, axes):
            ex, moved = _example(api, a, ax)
            examples.append(ex)
            values.append(moved)
            if moved is not None:
                sizes.add(moved.shape[0])
        if len(sizes) != 1:
            raise ValueError(f"For '{api}', the mapped axes must have one size and at least one "
                             f"argument must be mapped, but got sizes {sorted(sizes)}")
        if isinstance(target, Primitive):                 # vmap(P.MaxPool(...)): its rule
            return _place_prim(api, vmap_rules.apply(target, [
                (m, 0) if m is not None else (a, None) for a, m in zip(args, values)]),
                out_axes, sizes.pop())
        graph, template = _parse(target, examples)
        env = {}
        it = ((a, m) for a, m in zip(args, values) if isinstance(a, Tensor))
        for p in graph.parameters:
            if p.default is not None:            # a Parameter read by fn: not mapped
                env[p.id] = (p.default, None)
                continue
            arg, moved = next(it)
            env[p.id] = (moved, 0) if moved is not None else (arg, None)
        out = _run(graph, env)
        for a, m, ax in zip(args, values, axes):
            if isinstance(a, Parameter) and m is not None and m is not a:
                F.assign(a, F.moveaxis(m, 0, ax))    # in-place updates of a moved Parameter
        return _place(api, out, template, out_axes, sizes.pop())
    batched._vmap_spec = (fn, in_axes, out_axes)
    if target is fn:       # graph mode replays a plain function's vmap (jit/parse/vmap.py)
        batched._ml_vmap = VmapSpec(fn, in_axes, out_axes)
    return batched


vmap._ml_grad_api = True          # made in graph code at compile time (jit/parse/grad.py)


def _one_size(api, sizes):
    if len(set(sizes)) != 1:
        raise ValueError(f"For '{api}', the mapped axes must have one size and at least one "
                         f"argument must be mapped, but got sizes {sorted(set(sizes))}")
    return sizes[0]


def _nested(api, spec, in_axes, out_axes):
    """vmap(vmap(f, in_inner, out_inner), in_axes, out_axes) as one vmap of f over the merged
    batch axes (see the module docstring)."""
    f, in_inner, out_inner = spec

    def batched(*args):
        outer = _axes_tree(api, in_axes, args)
        inner = _axes_tree(api, in_inner, args)
        tensors = [(i, a) for i, a in enumerate(args) if isinstance(a, Tensor)]
        b1 = _one_size(api, [a.shape[outer[i] % a.ndim] for i, a in tensors
                             if outer[i] is not None])
        b2 = _one_size(api, [a.shape[_inner_axis(a, outer[i], inner[i])] for i, a in tensors
                             if inner[i] is not None])
        flat, flat_axes, back = [], [], []
        for i, a in enumerate(args):
            ao, ai = outer[i], inner[i]
            if not isinstance(a, Tensor) or (ao is None and ai is None):
                flat.append(a)
                flat_axes.append(None)
                continue
            v = F.moveaxis(a, ao, 0) if ao is not None else \
                F.broadcast_to(F.expand_dims(a, 0), (b1,) + a.shape)
            v = F.moveaxis(v, ai % (v.ndim - 1) + 1, 1) if ai is not None else \
                F.broadcast_to(F.expand_dims(v, 1), (b1, b2) + v.shape[1:])
            if isinstance(a, Parameter) and ao is not None and ai is not None:
                back.append((i, a, ao, ai, v.shape))
            flat.append(F.reshape(v, (b1 * b2,) + v.shape[2:]))
            flat_axes.append(0)
        out = vmap(f, tuple(flat_axes), 0)(*flat)
        for i, a, ao, ai, shape in back:               # in-place updates of a Parameter
            v = F.reshape(flat[i], shape)
            F.assign(a, F.moveaxis(F.moveaxis(v, 1, ai % (len(shape) - 1) + 1), 0, ao))
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        oi = out_inner if isinstance(out_inner, (tuple, list)) else [out_inner] * len(outs)
        oo = out_axes if isinstance(out_axes, (tuple, list)) else [out_axes] * len(outs)
        if None in oi or None in oo or len(oi) != len(outs) or len(oo) != len(outs):
            raise ValueError(f"For '{api}', a vmap of a vmap needs an int out_axes per output "
                             f"({len(outs)}), but got {out_inner!r} and {out_axes!r}")
        placed = []
        for o, i_ax, o_ax in zip(outs, oi, oo):
            o = F.reshape(o, (b1, b2) + o.shape[1:])
            o = F.moveaxis(o, 1, i_ax % (o.ndim - 1) + 1)
            placed.append(F.moveaxis(o, 0, o_ax))
        return placed[0] if single else tuple(placed)
    return batched


def _inner_axis(a, ao, ai):
    """The axis of `a` an inner in_axes `ai` names (an axis of the slice without `ao`)."""
    ai %= a.ndim - (1 if ao is not None else 0)
    if ao is not None and ai >= ao % a.ndim:
        ai += 1
    return ai


def _ref(node, env):
    if isinstance(node, ValueNode):
        return node.value, None
    return env[node.id]


def _run(graph, env, apply=vmap_rules.apply):
    """Replay the example graph's primitive calls on (value, bdim) pairs through `apply`."""
    for node in graph.order:
        callee = node.inputs[0]
        if not isinstance(callee, ValueNode):
            raise NotImplementedError("vmap does not support control flow on tensors (a call "
                                      "of a computed function) inside the mapped function")
        fn = callee.value
        args = [_ref(i, env) for i in node.inputs[1:]]
        if fn is MAKE_TUPLE:
            env[node.id] = (tuple(v for v, _ in args), tuple(b for _, b in args))
        elif fn is TUPLE_GETITEM:
            (vals, bdims), (i, _) = args
            env[node.id] = (vals[i], bdims[i] if isinstance(bdims, tuple) else bdims)
        elif isinstance(fn, IRPrim) or not isinstance(fn, Primitive):
            raise NotImplementedError(f"vmap does not support '{fn!r}' inside the mapped "
                                      "function (control flow or a non-primitive call)")
        else:
            env[node.id] = apply(fn, args)
    return _ref(graph.output, env)


def _place_prim(api, out, out_axes, size):
    """A primitive's batched result (one tensor or a tuple) with its batch axes at out_axes."""
    value, bdim = out
    if not isinstance(value, tuple):
        return vmap_rules.place(value, bdim, out_axes, size)
    axes = out_axes if isinstance(out_axes, (tuple, list)) else [out_axes] * len(value)
    if len(axes) != len(value):
        raise ValueError(f"For '{api}', 'out_axes' must have one entry per output "
                         f"({len(value)}), but got {out_axes!r}")
    bdims = bdim if isinstance(bdim, tuple) else (bdim,) * len(value)
    return tuple(vmap_rules.place(v, b, a, size) for v, b, a in zip(value, bdims, axes))


def _place(api, out, template, out_axes, size, place=vmap_rules.place):
    value, bdim = out
    if template == ("leaf", 0):
        return place(value, bdim, out_axes, size)
    axes = out_axes if isinstance(out_axes, (tuple, list)) else [out_axes] * len(value)
    if len(axes) != len(value):
        raise ValueError(f"For '{api}', 'out_axes' must have one entry per output "
                         f"({len(value)}), but got {out_axes!r}")
    from .api import _unpack
    bdims = bdim if isinstance(bdim, tuple) else (bdim,) * len(value)
    placed = tuple(place(v, b, a, size) for v, b, a in zip(value, bdims, axes))
    return _unpack(template, placed)
