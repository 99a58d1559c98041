"""Gradient calls met by the graph-mode parser: forward and backward compile into one graph.

    grad(f, ...)(x)           inside @jit (or as the entry of a compiled grad, ad/entry.py):
    value_and_grad(f, ...)    f is parsed inline (the forward region), then the J transform
    GradOperation(...)(f)     (ad/transform.py) emits its backward right after it; the
                              result has eager's structure (composite._structure)
    a @jit function           called from graph code: its Python function is parsed inline
                              (a jit of a grad or vmap function: that transform)
    vmap(f, ...)(x)           the batch rules replayed on graph values (parse/vmap.py)
    needs_grad(x)             in a bprop being parsed: answered from the backward's tracked set
    a Cell with a bprop       its construct parsed inline and remembered as a custom region:
                              the J transform calls the user's bprop for it (ad/custom.py)
    optimizer helpers         Optimizer.check_gradients / get_lr: their graph versions
                              (ad/step.py), so a whole training step compiles
Errors are eager's (grad positions out of range, a non-Tensor output, a sensitivity that
does not match), raised at compile time with the source line.
"""
import numbers
import types

import numpy as np

from ...common.abstract import AbstractTensor
from ...common.tensor import Tensor
from ...ir.anf import AnfNode, ValueNode
from ...ops.operations._base import needs_grad

NOT_MINE = object()


def special_call(parser, fn, args, kwargs):
    """The value of a call this module handles, or NOT_MINE."""
    if fn is needs_grad:
        return graph_needs_grad(parser, *args)
    t = type(fn)
    if t is types.FunctionType:
        spec = getattr(fn, "_ml_grad", None)
        if spec is not None:
            return call_grad(parser, spec, args, kwargs)
        spec = getattr(fn, "_ml_vmap", None)
        if spec is not None:
            from .vmap import call_vmap
            try:
                return call_vmap(parser, spec, args, kwargs)
            except (TypeError, ValueError, NotImplementedError, RuntimeError):
                pass    # a batch rule the parser cannot replay (an optimizer's, writing a
                #         Parameter): the vmapped function is parsed as code instead
        if getattr(fn, "_ml_grad_api", False):           # grad, value_and_grad, vmap
            return make_grad_fn(parser, fn, args, kwargs)
        return NOT_MINE
    if t is types.MethodType:
        graph_version = _methods().get(fn.__func__)
        if graph_version is None:
            return NOT_MINE
        return parser.call_function(graph_version, (fn.__self__,) + tuple(args), kwargs)
    if t.__name__ == "GradOperation" and t.__module__ == "mindlite.ops.composite":
        return make_grad_fn(parser, fn, args, kwargs)
    if t.__name__ == "JitFunction" and t.__module__ == "mindlite.jit.api":
        if fn.bound is not None:
            args = (fn.bound,) + tuple(args)
        return parser.call_value(fn.fn, tuple(args), kwargs)   # (jit(grad(f)): the grad)
    construct = getattr(t, "construct", None)
    if construct is not None and construct in _methods():          # an optimizer (step.py)
        return parser.call_function(_methods()[construct], (fn,) + tuple(args), kwargs)
    if getattr(t, "bprop", None) is not None and construct is not None:
        from ..ad.custom import call_custom_cell
        return call_custom_cell(parser, fn, args, kwargs)
    return NOT_MINE


_METHODS = {}


def _methods():
    """Eager methods with a graph version (the optimizers' helpers: ad/step.py)."""
    if not _METHODS:
        from ..ad.step import graph_methods
        _METHODS.update(graph_methods())
    return _METHODS


def make_grad_fn(parser, api, args, kwargs):
    """`grad(f, ...)`, `value_and_grad(...)`, `GradOperation(...)(f, weights)` in graph code:
    made now (their arguments are constants; weights read as graph parameters are given back
    as the Parameters), so the gradient function's later call compiles (call_grad)."""
    from .values import GraphClosure, is_dyn
    args, kwargs = _const(args), {k: _const(v) for k, v in kwargs.items()}
    if getattr(api, "__name__", "") == "vmap" and args and isinstance(args[0], GraphClosure):
        raise parser.unsupported("vmap of a function defined inside graph code (define it "
                                 "at module level or outside the compiled function)")
    dyn = is_dyn(args) or is_dyn(kwargs)
    if dyn:          # eager's own check names the argument (e.g. weights that are Tensors)
        args, kwargs = _stand_in(args), {k: _stand_in(v) for k, v in kwargs.items()}
    try:
        made = api(*args, **kwargs)
    except (TypeError, ValueError) as err:
        raise parser.error(err) from None
    if dyn:
        raise parser.unsupported(f"'{getattr(api, '__name__', type(api).__name__)}' with "
                                 f"Tensors computed in the graph as its arguments")
    return made


def _stand_in(v):
    """Graph values as zero Tensors of their abstract (for eager's argument checks only)."""
    from ..ad.transform import zeros_of
    if isinstance(v, AnfNode) and isinstance(v.abstract, AbstractTensor):
        return zeros_of(v.abstract)
    if isinstance(v, (tuple, list)):
        return type(v)(_stand_in(x) for x in v)
    return v


def _const(v):
    from ...ir.anf import ParameterNode
    if isinstance(v, ParameterNode) and v.default is not None:
        return v.default
    if isinstance(v, (tuple, list)):
        return type(v)(_const(x) for x in v)
    return v


def graph_needs_grad(parser, x):
    """ops.operations._base.needs_grad on graph values: a float tensor the running
    backward follows (any float tensor when no backward runs)."""
    a = parser.abstract_of(x)
    if not (isinstance(a, AbstractTensor) and a.dtype.kind in "fc"):
        return False
    if not isinstance(x, (AnfNode, Tensor)):
        return False
    stack = getattr(parser, "ad_tracked", None)
    tracked = not stack or x in stack[-1]
    if tracked and a.dtype.kind == "c":
        from ..ad.transform import ADUnsupportedError
        raise ADUnsupportedError(f"Graph autodiff does not support gradients through {a.dtype} "
                                 "values yet (use PYNATIVE mode for them)")
    return tracked


def _is_tensor(parser, v):
    return isinstance(v, Tensor) or (isinstance(v, AnfNode)
                                     and isinstance(parser.abstract_of(v), AbstractTensor))


def call_grad(parser, spec, args, kwargs):
    from ...ops.composite import _structure
    from ..ad import backprop
    api = spec.api
    if kwargs:
        raise parser.error(TypeError(f"For '{api}', the gradient function takes positional "
                                     f"arguments only, but got {sorted(kwargs)}"))
    args = list(args)
    sens = None
    if spec.sens_param:
        if not args:
            raise parser.error(TypeError("For 'GradOperation', sens_param=True needs the "
                                         "sensitivity as the last argument"))
        args, sens = args[:-1], args[-1]
    positions = spec.positions
    if spec.get_all:
        positions = tuple(i for i, a in enumerate(args) if _is_tensor(parser, a))
    pos = () if positions is None else (positions if isinstance(positions, tuple)
                                        else (positions,))
    for p in pos:
        if not -len(args) <= p < len(args):
            raise parser.error(ValueError(
                f"For '{api}', 'grad_position' {p} is out of range for a function called "
                f"with {len(args)} positional arguments"))
        if not _is_tensor(parser, args[p]):
            raise parser.error(TypeError(f"For '{api}', the input at 'grad_position' {p} must "
                                         f"be a Tensor, but got {type(args[p]).__name__}"))
        if not isinstance(args[p], AnfNode):        # a constant: a node of its own to follow
            args[p] = ValueNode(args[p], parser.abstract_of(args[p]))
    wnodes = [parser.param_node(w) for w in spec.weights or ()]
    wrt = [args[p] for p in pos] + [n for n, w in zip(wnodes, spec.weights or ())
                                    if w.requires_grad]
    start = len(parser.fg.order)
    out = parser.call_value(spec.fn, tuple(args), {})
    outs, aux = _split_output(parser, api, out, spec.has_aux)
    sens = _sens(parser, api, outs, sens)
    grads, _ = backprop(parser, start, outs, sens, wrt)
    found = dict(zip(map(id, wrt), grads))
    gx = tuple(_or_zeros(parser, args[p], found.get(id(args[p]))) for p in pos)
    gw = tuple(_or_zeros(parser, n, found.get(id(n))) for n in wnodes)
    if api == "GradOperation":
        if spec.get_by_list:
            return (gx, gw) if spec.get_all else gw
        return gx if spec.get_all else gx[0]
    g = _structure(positions, gx, gw, spec.weights, spec.single_weight)
    if api == "value_and_grad":
        return out, g
    return (g, aux) if spec.has_aux else g


def _split_output(parser, api, out, has_aux):
    if has_aux:
        if not isinstance(out, tuple) or len(out) < 2:
            raise parser.error(TypeError(
                f"For '{api}' with has_aux=True, the function must return a tuple (output, aux, "
                f"...), but got {_kind(parser, out)}"))
        outs, aux = (out[0],), tuple(out[1:])
    else:
        outs, aux = (out if isinstance(out, tuple) else (out,)), ()
    for o in outs:
        if not _is_tensor(parser, o) and not isinstance(o, numbers.Number):
            raise parser.error(TypeError(f"For '{api}', the function's output must be a Tensor or "
                                         f"a tuple of Tensors, but got {_kind(parser, o)}"))
    # a Python number (a constant-folded Size, len(), a shape entry) contributes zeros, as in
    # MindSpore and pynative (ops/composite.py)
    return tuple(o for o in outs if _is_tensor(parser, o)), aux


def _kind(parser, v):
    return "Tensor" if _is_tensor(parser, v) else type(v).__name__


def _sens(parser, api, outs, sens):
    abstracts = [parser.abstract_of(o) for o in outs]
    if sens is None:
        from ...ops.operations.creation_ops import OnesLike
        # ones of each output's shape; a dynamic one (-1 dims) gets OnesLike of the output
        return [Tensor.from_numpy(np.ones(a.shape, dtype=a.dtype.np)) if min(a.shape, default=0)
                >= 0 else parser.call_value(OnesLike(), (o,), {})
                for o, a in zip(outs, abstracts)]
    sens = sens if isinstance(sens, tuple) else (sens,)
    got = [parser.abstract_of(s) for s in sens]
    if len(sens) != len(outs) or any(not isinstance(g, AbstractTensor) or
                                     tuple(g.shape) != tuple(a.shape)
                                     for g, a in zip(got, abstracts)):
        raise parser.error(ValueError(
            f"For '{api}', the sensitivity must match the output: expected shapes "
            f"{[list(a.shape) for a in abstracts]}, but got "
            f"{[list(getattr(g, 'shape', ())) for g in got]}"))
    return list(sens)


def _or_zeros(parser, node, g):
    """The gradient as a graph value computed at every run: zeros where none flowed; a
    gradient known at compile time (e.g. of x * 2) is added to those zeros, so each call
    returns a new Tensor (a constant output would be one object shared by every call)."""
    if isinstance(g, AnfNode):
        return g
    from ...ops.operations.creation_ops import ZerosLike
    zeros = parser.emit_prim(_zeros_like(ZerosLike), (node,))
    if g is None:
        return zeros
    from ..ad.transform import _ADD
    return parser.emit_prim(_ADD, (zeros, g))


_ZL = []


def _zeros_like(cls):
    if not _ZL:
        _ZL.append(cls())
    return _ZL[0]
