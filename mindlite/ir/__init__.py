"""MindIR for mindlite's graph mode: ANF nodes and FuncGraph (anf.py), the manager and
lint (manager.py), primitive inference over abstracts (infer.py) and the `.ir` text dump
(dump.py) and `.dot` (dot.py). The parser that builds these graphs is mindlite/jit/."""
from .anf import (AnfNode, CNode, FuncGraph, IRPrim, Location, ParameterNode,  # noqa: F401
                  ValueNode, MAKE_TUPLE, PRINT, SWITCH, TUPLE_GETITEM)
from .dump import dump_ir  # noqa: F401
from .dot import render_svg, to_dot  # noqa: F401
from .manager import FuncGraphManager, LintError, lint, reachable_graphs, toposort  # noqa: F401
