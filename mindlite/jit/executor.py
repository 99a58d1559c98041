"""Run a specialized FuncGraph: every CNode's primitive is called through the normal op
path (Primitive.__call__ -> runner cache -> kernel registry), so a graph's results equal
eager's exactly and provider / Custom kernels work unchanged; Switch picks a branch graph
from its bool tensor; a graph whose output is a call of another graph (a branch's pick,
a loop's next iteration) continues in that graph without a new Python frame (tail call),
so a `while` on a tensor runs any number of iterations without recursion.

The buffer-planned C runner replaces this interpreter for all-C graphs later; this one
stays the reference.
"""
from ..ir.anf import (MAKE_TUPLE, PRINT, SWITCH, TUPLE_GETITEM, CNode, FuncGraph, IRPrim,
                      ValueNode)


class _Frame:
    __slots__ = ("graph", "parent", "values")

    def __init__(self, graph, parent):
        self.graph = graph
        self.parent = parent
        self.values = {}


def _lookup(node, frame):
    if isinstance(node, ValueNode):
        return node.value
    key = node.id
    f = frame
    while f is not None:
        v = f.values.get(key, _MISSING)
        if v is not _MISSING:
            return v
        f = f.parent
    raise RuntimeError(f"graph executor: {node!r} has no value (a lint error)")


_MISSING = object()


def _frame_for(graph, args, frame):
    parent = frame
    while parent is not None and parent.graph is not graph.parent:
        parent = parent.parent
    if graph.parent is not None and parent is None:
        raise RuntimeError(f"graph executor: @{graph.name} called outside its parent graph")
    new = _Frame(graph, parent)
    params = graph.parameters
    if len(args) != len(params):
        raise TypeError(f"@{graph.name} takes {len(params)} inputs, but got {len(args)}")
    for p, a in zip(params, args):
        new.values[p.id] = a
    return new


def _tail_call(graph):
    out = graph.output
    if not (isinstance(out, CNode) and out.graph is graph and graph.order
            and graph.order[-1] is out):
        return False
    callee = out.inputs[0]
    return isinstance(callee, CNode) or (isinstance(callee, ValueNode)
                                         and isinstance(callee.value, FuncGraph))


def run_graph(graph, args, parent=None):
    """Evaluate `graph` on `args` (values of its parameters) and return its output value."""
    frame = _frame_for(graph, args, parent)
    while True:
        tail = _tail_call(graph)
        order = graph.order[:-1] if tail else graph.order
        values = frame.values
        for node in order:
            values[node.id] = _eval(node, frame)
        if not tail:
            return _lookup(graph.output, frame)
        out = graph.output
        callee = _lookup(out.inputs[0], frame)
        call_args = [_lookup(i, frame) for i in out.inputs[1:]]
        frame = _frame_for(callee, call_args, frame)
        graph = callee


def _eval(node, frame):
    inputs = node.inputs
    fn = _lookup(inputs[0], frame)
    args = [_lookup(i, frame) for i in inputs[1:]]
    if isinstance(fn, IRPrim):
        if fn is MAKE_TUPLE:
            return tuple(args)
        if fn is TUPLE_GETITEM:
            return args[0][args[1]]
        if fn is SWITCH:
            return args[1] if bool(args[0]) else args[2]
        if fn is PRINT:
            print(*args)
            return None
        raise RuntimeError(f"graph executor: unknown IR primitive {fn!r}")
    if isinstance(fn, FuncGraph):
        return run_graph(fn, args, frame)
    return fn(*args)
