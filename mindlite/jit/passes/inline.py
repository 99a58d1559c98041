"""inline: a call of a FuncGraph ValueNode, `@g(a, b)`, becomes g's nodes copied into the
caller with g's parameters replaced by the arguments (MindSpore's inline pass). Left alone:
recursive graphs (a `while` loop calls itself), graphs with nested graphs of their own (the
nested graphs' free variables would need copying too), graphs whose free variables the
caller cannot see, arity mismatches, and calls through a Switch on a condition known only
at run time (control flow); a Switch on a constant condition calls its chosen branch, which
is inlined like a plain call.
The parser already inlines Python functions as it parses; this pass inlines what user passes
or folded Switches leave behind. Copies keep each node's abstract and source lines.
"""
from ...ir.anf import SWITCH, CNode, FuncGraph, ValueNode
from ...ir.manager import reachable_graphs
from .common import MAX_ROUNDS, Editor


def _callees(g):
    return [i.value for n in g.order for i in n.inputs
            if isinstance(i, ValueNode) and isinstance(i.value, FuncGraph)]


def recursive_graphs(graphs):
    """Ids of the graphs that can reach themselves through the graphs they reference."""
    edges = {g.id: {c.id for c in _callees(g)} for g in graphs}
    out = set()
    for g in graphs:
        seen, stack = set(), list(edges.get(g.id, ()))
        while stack:
            k = stack.pop()
            if k == g.id:
                out.add(g.id)
                break
            if k in seen:
                continue
            seen.add(k)
            stack.extend(edges.get(k, ()))
    return out


def inlinable(fg, caller, node, recursive):
    if fg.id in recursive or len(fg.parameters) != len(node.inputs) - 1:
        return False
    if any(fg in tuple(g.ancestors()) for g in reachable_graphs(fg) if g is not fg):
        return False                                  # has nested graphs in use
    if fg.parent is not None and fg.parent is not caller and \
            fg.parent not in tuple(caller.ancestors()):
        return False
    return fg.output is not None


def inline_call(editor, caller, node, fg):
    """Copy fg's nodes in place of the call `node` in `caller`; False if refused."""
    mapping = {p.id: a for p, a in zip(fg.parameters, node.inputs[1:])}
    copies = []
    for n in fg.order:
        c = CNode(caller, [mapping.get(i.id, i) for i in n.inputs], n.abstract, n.debug,
                  n.name, n.side_effect)
        mapping[n.id] = c
        copies.append(c)
    out = mapping.get(fg.output.id, fg.output)
    if not editor.can_replace(node, out):
        return False
    pos = next(i for i, n in enumerate(caller.order) if n is node)
    caller.order = caller.order[:pos] + copies + caller.order[pos + 1:]
    for c in copies:
        editor.add_uses(c)
    editor.replace(node, out)
    return True


def _called_graph(callee):
    """The graph a call runs when it is known now: a FuncGraph ValueNode, or the branch a
    Switch on a constant condition picks (control flow decided at compile time)."""
    if isinstance(callee, ValueNode):
        return callee.value if isinstance(callee.value, FuncGraph) else None
    if isinstance(callee, CNode) and isinstance(callee.inputs[0], ValueNode) and \
            callee.inputs[0].value is SWITCH and isinstance(callee.inputs[1], ValueNode):
        try:
            pick = callee.inputs[2] if bool(callee.inputs[1].value) else callee.inputs[3]
        except Exception:
            return None
        return _called_graph(pick) if isinstance(pick, ValueNode) else None
    return None


def run(root, manager):
    changed = False
    for _ in range(MAX_ROUNDS):
        editor = Editor(manager)
        recursive = recursive_graphs(editor.graphs)
        swept = False
        for g in editor.graphs:
            for node in list(g.order):
                fg = _called_graph(node.inputs[0])
                if fg is not None and inlinable(fg, g, node, recursive):
                    swept |= inline_call(editor, g, node, fg)
        if not swept:
            break
        manager.rebuild()
        changed = True
    return changed
