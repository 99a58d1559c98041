"""Graph autodiff: the J transform over the parser's FuncGraphs (see docs/graph_autodiff.md).

    transform.py   backprop(parser, start, outputs, sens, wrt): the backward of the nodes a
                   forward call left in the graph being built, each primitive's eager bprop
                   parsed into graph nodes; Switch calls get backward branch graphs
    custom.py      custom Cell.bprop regions (the user's bprop parsed in place of the
                   construct's own backward)
"""
from .transform import ADUnsupportedError, backprop  # noqa: F401
