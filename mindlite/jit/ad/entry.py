"""Compiled gradients: grad / value_and_grad / GradOperation of a @jit function or of a
Cell under GRAPH_MODE run one joint graph (forward + backward) instead of the eager tape.

The gradient function is compiled as the entry `_joint(grad_fn, *args)`: the parser meets
the call of `grad_fn`, which parse_grad.py turns into the forward region and its backward
(ad/transform.py). One JitFunction per gradient function, so graphs are cached per input
signature as @jit's are. A construct the J transform cannot differentiate yet (an
UnsupportedSyntaxError: e.g. a `while` on a tensor) makes that gradient function fall back
to the eager tape, with one warning naming the construct and the line.
Importing this module fills common/api.py's GRAPH.grad_entry, through which ops/composite.py's
grad APIs reach it from below.
"""
import sys
import warnings

from ...common import api

NOT_COMPILED = object()
_TAPE = "tape"


def _joint(grad_fn, *args):
    return grad_fn(*args)


def wants_graph(fn):
    """True for a @jit function, or a Cell while the context is GRAPH_MODE."""
    t = type(fn)
    if t.__name__ == "JitFunction" and t.__module__ == "mindlite.jit.api":
        return True
    from ...context import CONTEXT, GRAPH_MODE
    if CONTEXT.values["mode"] != GRAPH_MODE:
        return False
    from ...nn.cell import Cell
    return isinstance(fn, Cell)


def graph_grad_call(grad_fn, args):
    """Run grad_fn's compiled joint graph on args, or NOT_COMPILED (use the tape)."""
    from ..api import JitFunction
    from ..errors import UnsupportedSyntaxError
    jf = grad_fn.__dict__.get("_ml_joint")
    if jf == _TAPE:
        return NOT_COMPILED
    if jf is None:
        from ..cell_graph import _CELL_JIT, _EAGER
        fn = grad_fn._ml_grad.fn
        if hasattr(fn, "construct") and _CELL_JIT.get(fn) is _EAGER:
            grad_fn._ml_joint = _TAPE      # a cell that runs eagerly (amp, or it failed to
            return NOT_COMPILED            # compile and said so once): its gradient too
        jf = grad_fn._ml_joint = JitFunction(_joint)
    try:
        return jf(grad_fn, *args)
    except UnsupportedSyntaxError as err:
        if jf.cache:                   # compiled before for another signature: strict
            raise
        grad_fn._ml_joint = _TAPE
        warnings.warn(f"mindlite: the gradient of {_name(grad_fn)} could not be compiled, so it "
                      f"runs on the eager tape: {err}", stacklevel=3)
        return NOT_COMPILED


def _name(grad_fn):
    fn = grad_fn._ml_grad.fn
    return getattr(fn, "__qualname__", type(fn).__name__)


def graph_step(step):
    """`step(*batch)` (a training step: value_and_grad, then the optimizer) compiled as one
    graph while the context is GRAPH_MODE (train.Model's step), eager otherwise; a step the
    parser cannot compile runs eagerly, with one warning naming the construct."""
    from ...context import CONTEXT, GRAPH_MODE
    state = {}

    def run(*batch):
        if CONTEXT.values["mode"] != GRAPH_MODE or state.get("eager"):
            return step(*batch)
        from ..api import JitFunction
        from ..errors import UnsupportedSyntaxError
        jf = state.get("jit")
        if jf is None:
            jf = state["jit"] = JitFunction(step)
        try:
            return jf(*batch)
        except UnsupportedSyntaxError as err:
            if jf.cache:
                raise
            state["eager"] = True
            warnings.warn(f"mindlite: GRAPH_MODE could not compile the training step, so it "
                          f"runs eagerly: {err}", stacklevel=2)
            return step(*batch)
    run.graph_state = state
    return run


api.GRAPH.fill(grad_entry=sys.modules[__name__])
