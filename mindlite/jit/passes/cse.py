"""cse: common subexpression elimination. Two pure CNodes of one graph with the same callee
(an equal Primitive: same class, name and attributes; or a structural IR primitive) and the
same inputs (the same nodes; constants equal by value, tensors by identity) compute the same
value: the later one's users take the earlier. A node that may write memory (an in-place
primitive, a Custom op, a call of a graph containing one) ends the span in which nodes are
merged, so a read of a Parameter after an Assign is never merged with one before it.
"""
from ...ir.anf import PRINT, CNode, FuncGraph, ParameterNode, ValueNode
from ...ir.manager import reachable_graphs
from .common import Editor, drop, is_pure, value_key


def _input_key(node):
    if isinstance(node, (CNode, ParameterNode)):
        return ("n", node.id)
    return value_key(node.value)


def _key(node):
    callee = node.inputs[0].value
    try:
        head = ("p", callee) if not hasattr(callee, "attrs_key") else \
            ("p", type(callee), callee.name, callee.attrs_key)
        hash(head)
    except TypeError:
        return None
    keys = tuple(_input_key(i) for i in node.inputs[1:])
    if any(k is None for k in keys):
        return None
    return head + keys


class _Effects:
    """Does calling a graph (transitively) run a node that may write memory?"""

    def __init__(self):
        self.memo = {}

    def graph(self, fg):
        hit = self.memo.get(fg.id)
        if hit is None:
            hit = self.memo[fg.id] = any(
                writes(n, self) for g in reachable_graphs(fg) for n in g.order
                if not _is_call(n))
        return hit


def _is_call(node):
    callee = node.inputs[0]
    return isinstance(callee, CNode) or (isinstance(callee, ValueNode)
                                         and isinstance(callee.value, FuncGraph))


def writes(node, effects):
    """True when running `node` may change memory other nodes read."""
    callee = node.inputs[0]
    if isinstance(callee, ValueNode) and isinstance(callee.value, FuncGraph):
        return effects.graph(callee.value)
    if isinstance(callee, CNode):             # a Switch's pick: either branch may run
        branches = [i.value for i in callee.inputs[2:] if isinstance(i, ValueNode)
                    and isinstance(i.value, FuncGraph)]
        if len(branches) != len(callee.inputs) - 2 or not branches:
            return True
        return any(effects.graph(b) for b in branches)
    if node.side_effect:
        return not (isinstance(callee, ValueNode) and callee.value is PRINT)
    return False


def run(root, manager):
    editor = Editor(manager)
    effects = _Effects()
    changed = False
    for g in editor.graphs:
        table, gone = {}, set()
        for node in g.order:
            if writes(node, effects):
                table.clear()
                continue
            if not is_pure(node):
                continue
            key = _key(node)
            if key is None:
                continue
            hit = table.get(key)
            if hit is not None and editor.replace(node, hit):
                gone.add(node.id)
            elif hit is None:
                table[key] = node
        drop(g, gone)
        changed |= bool(gone)
    return changed
