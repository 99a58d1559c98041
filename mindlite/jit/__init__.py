"""Graph mode (MindSpore's jit): `mindlite.jit` and GRAPH_MODE Cells.

    api.py              JitFunction: per-signature compile cache, the GRAPH_MODE Cell hook
    parse*.py           Python source (ast) -> FuncGraph specialized to the call's signature
    standard_method.py  graph-mode versions of eager functions that keep runtime state
    executor.py         run a FuncGraph through the normal op path
The IR itself (nodes, FuncGraph, manager, lint, .ir dump) lives in mindlite/ir/. This
module stays light: the parser is imported at the first compile (`import mindlite` does
not pay for ast and inspect).
"""
from .errors import UnsupportedSyntaxError  # noqa: F401


def jit(fn=None, *, input_signature=None):
    """Compile `fn` to graphs, one per input signature (mindspore.jit); as a decorator,
    `@jit` or `@jit(input_signature=...)`, or a call, `jit(fn)`; methods too."""
    from .api import JitFunction
    if fn is None:
        return lambda f: JitFunction(f, input_signature)
    return JitFunction(fn, input_signature)
