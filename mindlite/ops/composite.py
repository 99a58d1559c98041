"""Grad APIs: mindlite.grad, value_and_grad, ops.GradOperation (MindSpore's return structures).

Each call opens a tape on the GradExecutor (pynative/grad.py), watches the
requested inputs and trainable weights, runs the function, closes the tape and
runs backward. The tape is a local of that call: it is gone when the call
returns. See docs/mindspore_api.md, "Gradients", for the structures returned.
"""
import numbers

import numpy as np

from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..common.api import GRAPH, PYNATIVE
from .multitype import HyperMap, Map, MultitypeFuncGraph  # noqa: F401  (C.HyperMap, ...)


def _check_positions(api, grad_position, weights):
    if grad_position is None:
        if weights is None:
            raise ValueError(f"For '{api}', 'grad_position' and 'weights' cannot both be None")
        return None
    if isinstance(grad_position, numbers.Integral) and not isinstance(grad_position, bool):
        return int(grad_position)
    if isinstance(grad_position, (tuple, list)) and grad_position and all(
            isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in grad_position):
        return tuple(int(p) for p in grad_position)
    raise TypeError(f"For '{api}', 'grad_position' must be an int, a non-empty tuple of ints or "
                    f"None, but got {grad_position!r}")


def _check_weights(api, weights):
    if weights is None:
        return None, False
    if isinstance(weights, Parameter):
        return (weights,), True
    if isinstance(weights, (tuple, list)):
        for i, w in enumerate(weights):
            if not isinstance(w, Parameter):
                raise TypeError(f"For '{api}', 'weights' must be a Parameter or a list/tuple of "
                                f"Parameters, but element {i} is {type(w).__name__}")
        return tuple(weights), False
    raise TypeError(f"For '{api}', 'weights' must be a Parameter, ParameterTuple or list of "
                    f"Parameters, but got {type(weights).__name__}")


def _split_output(api, out, has_aux):
    """-> (outputs to differentiate, aux tuple)."""
    if has_aux:
        if not isinstance(out, tuple) or len(out) < 2:
            raise TypeError(f"For '{api}' with has_aux=True, the function must return a tuple "
                            f"(output, aux, ...), but got {type(out).__name__}")
        outs, aux = (out[0],), tuple(out[1:])
    else:
        outs, aux = (out if isinstance(out, tuple) else (out,)), ()
    for o in outs:
        if not isinstance(o, (Tensor, numbers.Number)):
            raise TypeError(f"For '{api}', the function's output must be a Tensor or a tuple of "
                            f"Tensors, but got {type(o).__name__}")
    # a Python number (Size, len(), a shape entry) is a constant of the inputs: as MindSpore,
    # it contributes zeros
    return tuple(o for o in outs if isinstance(o, Tensor)), aux


def _ones_like(t):
    return Tensor.from_numpy(np.ones(t.shape, dtype=t.dtype.np))


def _zeros_like(t):
    return Tensor.from_numpy(np.zeros(t.shape, dtype=t.dtype.np))


def _run(api, fn, args, positions, weights, has_aux, sens=None):
    """Run fn under a tape; returns (raw output, aux, input grads tuple, weight grads tuple)."""
    pos = () if positions is None else (positions if isinstance(positions, tuple) else (positions,))
    for p in pos:
        if not -len(args) <= p < len(args):
            raise ValueError(f"For '{api}', 'grad_position' {p} is out of range for a function "
                             f"called with {len(args)} positional arguments")
        if not isinstance(args[p], Tensor):
            raise TypeError(f"For '{api}', the input at 'grad_position' {p} must be a Tensor, but "
                            f"got {type(args[p]).__name__}")
    tape = PYNATIVE.grad.open_tape()
    try:
        for p in pos:
            tape.watch(args[p])
        for w in weights or ():
            if w.requires_grad:
                tape.watch(w)
        out = fn(*args)
    finally:
        PYNATIVE.grad.close_tape(tape)
    outs, aux = _split_output(api, out, has_aux)
    if sens is None:
        sens = tuple(_ones_like(o) for o in outs)
    else:
        sens = sens if isinstance(sens, tuple) else (sens,)
        if len(sens) != len(outs) or any(
                not isinstance(s, Tensor) or s.shape != o.shape for s, o in zip(sens, outs)):
            raise ValueError(f"For '{api}', the sensitivity must match the output: expected "
                             f"shapes {[list(o.shape) for o in outs]}, but got "
                             f"{[list(getattr(s, 'shape', ())) for s in sens]}")
    grads = PYNATIVE.grad.backward(tape, outs, sens)
    del tape
    gx = tuple(_get(grads, args[p]) for p in pos)
    gw = tuple(_get(grads, w) for w in weights or ())
    return out, aux, gx, gw


def _get(grads, t):
    g = grads.get(id(t))
    return _zeros_like(t) if g is None else g


def _structure(positions, gx, gw, weights, single_weight):
    g_in = None if positions is None else (gx[0] if isinstance(positions, int) else gx)
    if weights is None:
        return g_in
    g_w = gw[0] if single_weight else gw
    return g_w if positions is None else (g_in, g_w)


class _GradSpec:
    """What a gradient function computes, for graph mode (jit/parse/grad.py reads it from the
    function's `_ml_grad`: inside @jit, and for a @jit function or a GRAPH_MODE Cell, the
    forward and backward compile into one graph, jit/ad/)."""

    def __init__(self, api, fn, positions, weights, single_weight=False, has_aux=False,
                 get_all=False, get_by_list=False, sens_param=False):
        self.api, self.fn, self.positions, self.weights = api, fn, positions, weights
        self.single_weight, self.has_aux = single_weight, has_aux
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param


def _graph_result(grad_fn, fn, args):
    """The compiled joint graph's result, or _NO_GRAPH (eager tape)."""
    entry = GRAPH.grad_entry           # jit/ad/entry.py, through its slot (common/api.py)
    if not entry.wants_graph(fn):
        return _NO_GRAPH
    out = entry.graph_grad_call(grad_fn, args)
    return _NO_GRAPH if out is entry.NOT_COMPILED else out
_NO_GRAPH = object()


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """A function returning the gradient of `fn` w.r.t. inputs `grad_position` and `weights`."""
    positions = _check_positions("grad", grad_position, weights)
    weights, single = _check_weights("grad", weights)

    def grad_fn(*args):
        out = _graph_result(grad_fn, fn, args)
        if out is not _NO_GRAPH:
            return out
        _, aux, gx, gw = _run("grad", fn, args, positions, weights, has_aux)
        g = _structure(positions, gx, gw, weights, single)
        return (g, aux) if has_aux else g
    grad_fn._ml_grad = _GradSpec("grad", fn, positions, weights, single, has_aux)
    return grad_fn


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """A function returning `(fn(*args), gradients)` (see grad for the gradient structure)."""
    positions = _check_positions("value_and_grad", grad_position, weights)
    weights, single = _check_weights("value_and_grad", weights)

    def value_and_grad_fn(*args):
        out = _graph_result(value_and_grad_fn, fn, args)
        if out is not _NO_GRAPH:
            return out
        out, aux, gx, gw = _run("value_and_grad", fn, args, positions, weights, has_aux)
        return out, _structure(positions, gx, gw, weights, single)
    value_and_grad_fn._ml_grad = _GradSpec("value_and_grad", fn, positions, weights, single,
                                           has_aux)
    return value_and_grad_fn


# graph code calling grad/value_and_grad makes the gradient function at compile time
# (jit/parse/grad.py make_grad_fn)
grad._ml_grad_api = value_and_grad._ml_grad_api = True


class GradOperation:
    """`GradOperation(get_all=False, get_by_list=False, sens_param=False)(fn[, weights])`."""

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        for name, v in (("get_all", get_all), ("get_by_list", get_by_list),
                        ("sens_param", sens_param)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'GradOperation', '{name}' must be a bool, but got {v!r}")
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param

    def __call__(self, fn, weights=None):
        if self.get_by_list:
            if weights is None:
                raise TypeError("For 'GradOperation', get_by_list=True needs 'weights' (a "
                                "ParameterTuple or list of Parameters)")
            weights, _ = _check_weights("GradOperation", weights)
        else:
            weights = None

        def grad_fn(*args):
            out = _graph_result(grad_fn, fn, args)
            if out is not _NO_GRAPH:
                return out
            sens = None
            if self.sens_param:
                if not args:
                    raise TypeError("For 'GradOperation', sens_param=True needs the sensitivity "
                                    "as the last argument")
                args, sens = args[:-1], args[-1]
            if self.get_all:
                positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
            elif self.get_by_list:
                positions = None
            else:
                positions = 0
            _, _, gx, gw = _run("GradOperation", fn, args, positions, weights, False, sens)
            if self.get_by_list:
                return (gx, gw) if self.get_all else gw
            return gx if self.get_all else gx[0]
        grad_fn._ml_grad = _GradSpec("GradOperation", fn, 0, weights, get_all=self.get_all,
                                     get_by_list=self.get_by_list, sens_param=self.sens_param)
        if self.get_by_list and not self.get_all:
            grad_fn._ml_grad.positions = None
        return grad_fn


def multinomial(inputs, num_sample, replacement=True, seed=None):
    """ops.composite.multinomial (MindSpore's path): ops.multinomial."""
    from .function.random_extra_func import multinomial as _multinomial
    return _multinomial(inputs, num_sample, replacement, seed)
