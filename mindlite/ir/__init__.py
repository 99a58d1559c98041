"""MindIR for mindlite's graph mode: ANF nodes and FuncGraph (anf.py), the manager and
lint (manager.py), primitive inference over abstracts (infer.py) and the `.ir` text dump
(dump.py) and `.dot` (dot.py). The parser that builds these graphs is mindlite/jit/.
A FuncGraph shows itself in a notebook as its `.ir` text and its graph (the hooks are set on
the class here, so that anf.py does not import the dumps built on it)."""
from .anf import (AnfNode, CNode, FuncGraph, IRPrim, Location, ParameterNode,  # noqa: F401
                  ValueNode, MAKE_TUPLE, PRINT, SWITCH, TUPLE_GETITEM)
from .manager import FuncGraphManager, LintError, lint, reachable_graphs, toposort  # noqa: F401

_LAZY = {"dump_ir": "dump", "render_svg": "dot", "to_dot": "dot"}


def __getattr__(name):
    """dump_ir, to_dot, render_svg: imported on first use (only dumps need them, so the
    first graph compile does not pay for importing them)."""
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(f"{__name__}.{mod}"), name)
    globals()[name] = value
    return value


def _repr_svg_(graph):
    from .dot import render_svg
    return render_svg(graph)


def _repr_pretty_(graph, p, cycle):
    from .dump import dump_ir
    p.text(dump_ir(graph))


FuncGraph._repr_svg_ = _repr_svg_
FuncGraph._repr_pretty_ = _repr_pretty_
