"""The graph-mode parser (Python source -> FuncGraph), one module a part:

    parser.py      Parser: the walk, frames, inlining; function_ast, signature
    stmt.py        statements                    expr.py     expressions
    call.py        calls (primitives, Cells, functions, builtins)
    control.py     graphs for control flow on tensors (if -> Switch, while -> loop graphs)
    grad.py        grad / value_and_grad inside graph code (the J transform: jit/ad)
    graph_cell.py  a loaded model (nn.GraphCell) inlined into the graph
`mindlite.jit.parse` names what the single module of that name did.
"""
from .parser import (MAX_INLINE_DEPTH, Frame, GraphClosure, GraphMethod, Parser,  # noqa: F401
                     function_ast, is_dyn, is_tensor, signature)
