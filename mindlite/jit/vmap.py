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
"""
import inspect
import numbers

from ..common.tensor import Tensor
from ..ir.anf import MAKE_TUPLE, TUPLE_GETITEM, IRPrim, ValueNode
from ..ir.manager import FuncGraphManager
from ..ir.primitive import Primitive
from ..ops.function import vmap_rules

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

    def batched(*args):
        axes = _axes_tree(api, in_axes, args)
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
        graph, template = _parse(fn, examples)
        env = {}
        it = iter(zip(args, values))
        for p in graph.parameters:
            if p.default is not None:            # a Parameter read by fn: not mapped
                env[p.id] = (p.default, None)
                continue
            arg, moved = next(it)
            env[p.id] = (moved, 0) if moved is not None else (arg, None)
        out = _run(graph, env)
        return _place(api, out, template, out_axes, sizes.pop())
    batched._ml_vmap = VmapSpec(fn, in_axes, out_axes)   # graph mode: jit/parse/vmap.py
    return batched


vmap._ml_grad_api = True          # made in graph code at compile time (jit/parse/grad.py)


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
