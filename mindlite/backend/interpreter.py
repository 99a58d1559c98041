"""Run a specialized FuncGraph: every CNode's primitive is called through the normal op
path (Primitive.__call__ -> runner cache -> kernel registry), so a graph's results equal
eager's exactly and provider / Custom kernels work unchanged; Switch picks a branch graph
from its bool tensor; a graph whose output is a call of another graph (a branch's pick,
a loop's next iteration) continues in that graph without a new Python frame (tail call),
so a `while` on a tensor runs any number of iterations without recursion.

Each graph is prepared once into a plan: per CNode its callee (resolved when constant)
and its inputs as (constant value) or (node id) entries. The buffer-planned C runner
replaces this interpreter for all-C graphs later; this one stays the reference.
"""
from ..ir.anf import (MAKE_TUPLE, PRINT, SWITCH, TUPLE_GETITEM, CNode, FuncGraph, IRPrim,
                      ValueNode)

_MISSING = object()
_CONST, _NODE = 0, 1


class _Frame:
    __slots__ = ("graph", "parent", "values")

    def __init__(self, graph, parent):
        self.graph = graph
        self.parent = parent
        self.values = {}


def _lookup_id(key, frame):
    f = frame
    while f is not None:
        v = f.values.get(key, _MISSING)
        if v is not _MISSING:
            return v
        f = f.parent
    raise RuntimeError(f"graph executor: node {key} has no value (a lint error)")


def _ref(node):
    return (_CONST, node.value) if isinstance(node, ValueNode) else (_NODE, node.id)


def _plan(graph):
    """(steps, tail): steps = [(node id, callee ref, input refs)], tail = the output's call
    of another graph (callee ref, input refs) or None; cached on the graph."""
    plan = getattr(graph, "_exec_plan", None)
    if plan is not None and plan[0] is graph.order and plan[4] == len(graph.order):
        return plan[1], plan[2], plan[3]
    out = graph.output
    callee = out.inputs[0] if isinstance(out, CNode) else None
    tail = (isinstance(out, CNode) and out.graph is graph and graph.order
            and graph.order[-1] is out and (isinstance(callee, CNode) or (
                isinstance(callee, ValueNode) and isinstance(callee.value, FuncGraph))))
    nodes = graph.order[:-1] if tail else graph.order
    steps = [(n.id, _ref(n.inputs[0]), tuple(_ref(i) for i in n.inputs[1:])) for n in nodes]
    tail_step = (_ref(callee), tuple(_ref(i) for i in out.inputs[1:])) if tail else None
    result = _ref(out)
    graph._exec_plan = (graph.order, steps, tail_step, result, len(graph.order))
    return steps, tail_step, result


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
    values = new.values
    for p, a in zip(params, args):
        values[p.id] = a
    return new


def run_graph(graph, args, parent=None):
    """Evaluate `graph` on `args` (values of its parameters) and return its output value."""
    frame = _frame_for(graph, args, parent)
    while True:
        steps, tail, result = _plan(graph)
        values = frame.values
        for key, (ck, cv), refs in steps:
            fn = cv if ck is _CONST else _lookup_id(cv, frame)
            args = [v if k is _CONST else (values[v] if v in values else _lookup_id(v, frame))
                    for k, v in refs]
            if isinstance(fn, IRPrim) or isinstance(fn, FuncGraph):
                values[key] = _special(fn, args, frame)
            else:
                values[key] = fn(*args)
        if tail is None:
            k, v = result
            return v if k is _CONST else _lookup_id(v, frame)
        (ck, cv), refs = tail
        callee = cv if ck is _CONST else _lookup_id(cv, frame)
        call_args = [v if k is _CONST else _lookup_id(v, frame) for k, v in refs]
        frame = _frame_for(callee, call_args, frame)
        graph = callee


def _special(fn, args, frame):
    if fn is MAKE_TUPLE:
        return tuple(args)
    if fn is TUPLE_GETITEM:
        return args[0][args[1]]
    if fn is SWITCH:
        return args[1] if bool(args[0]) else args[2]
    if fn is PRINT:
        print(*args)
        return None
    if isinstance(fn, FuncGraph):
        return run_graph(fn, args, frame)
    raise RuntimeError(f"graph executor: unknown IR primitive {fn!r}")
