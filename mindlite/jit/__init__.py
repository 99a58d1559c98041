"""Graph mode (MindSpore's jit): `mindlite.jit` and GRAPH_MODE Cells.

    api.py              JitFunction: per-signature compile cache
    cell_graph.py       the GRAPH_MODE Cell hook (a cell's construct as a JitFunction)
    parse*.py           Python source (ast) -> FuncGraph specialized to the call's signature
    standard_method.py  graph-mode versions of eager functions that keep runtime state
    executor.py         run a FuncGraph through the normal op path
    passes/             the pass pipeline run after parsing, the user pass API
    save_graphs.py      the per-stage graph files of set_context(save_graphs=...)
The IR itself (nodes, FuncGraph, manager, lint, .ir dump) lives in mindlite/ir/. This
module stays light: the parser is imported at the first compile (`import mindlite` does
not pay for ast and inspect).
"""
from .errors import UnsupportedSyntaxError  # noqa: F401


_CHOICES = {"capture_mode": ("ast",), "jit_level": ("O0", "O1", "O2"), "dynamic": (0, 1),
            "fullgraph": (False, True), "backend": ("", "ms_backend")}


def jit(fn=None, *, input_signature=None, capture_mode="ast", jit_level="O0", dynamic=0,
        fullgraph=False, backend="", **options):
    """Compile `fn` to graphs, one per input signature (mindspore.jit); as a decorator,
    `@jit` or `@jit(...)`, or a call, `jit(fn)`; methods too.

    MindSpore 2.10's options are accepted: capture_mode "ast" (the only one: "bytecode"
    and "trace" are ValueErrors), jit_level, dynamic (a graph is still compiled per
    concrete shape), fullgraph (mindlite always compiles the full graph or raises), backend,
    and further backend options, which do not change results here."""
    given = {"capture_mode": capture_mode, "jit_level": jit_level, "dynamic": dynamic,
             "fullgraph": fullgraph, "backend": backend}
    for name, value in given.items():
        if value not in _CHOICES[name] or type(value) is not type(_CHOICES[name][0]):
            raise ValueError(f"For 'jit', '{name}' must be one of {list(_CHOICES[name])}, but "
                             f"got {value!r}")
    from .api import JitFunction
    if fn is None:
        return lambda f: JitFunction(f, input_signature)
    if not callable(fn):
        raise TypeError(f"For 'jit', 'fn' must be a function or method, but got "
                        f"{type(fn).__name__}")
    return JitFunction(fn, input_signature)
