"""FuncGraphManager: node users, replace, insert/erase, topological order, reachable graphs,
DCE and lint.

Passes (later) change graphs only through a manager, so `users` stays right: the
manager indexes every CNode input of every graph reachable from the root, and
`replace(old, new)` rewires each user. `lint(root)` checks the invariants every stage
must keep (run it in tests after each transformation).
"""
from collections import defaultdict

from .anf import CNode, FuncGraph, ParameterNode, ValueNode


class FuncGraphManager:
    """Users of every node in the graphs reachable from `root`."""

    def __init__(self, root):
        self.root = root
        self.users = defaultdict(list)       # node -> [(user CNode, input index)]
        self.rebuild()

    def rebuild(self):
        self.users.clear()
        for g in self.graphs():
            for node in g.order:
                for i, inp in enumerate(node.inputs):
                    self.users[inp].append((node, i))

    def graphs(self):
        """The root and every graph reachable from it (as a callee, a Switch branch, a child)."""
        return reachable_graphs(self.root)

    def replace(self, old, new):
        """Every use of `old` becomes a use of `new` (graph outputs included)."""
        for user, i in self.users.pop(old, []):
            user.inputs[i] = new
            self.users[new].append((user, i))
        for g in self.graphs():
            if g.output is old:
                g.output = new

    def insert_before(self, anchor, node):
        """Place the new CNode `node` in `anchor`'s graph, just before `anchor` in its order
        (so it runs in that position), and index its inputs' users."""
        g = anchor.graph
        pos = next(i for i, n in enumerate(g.order) if n is anchor)
        node.graph = g
        g.order = g.order[:pos] + [node] + g.order[pos:]
        for i, inp in enumerate(node.inputs):
            self.users[inp].append((node, i))
        return node

    def erase(self, node):
        """Remove a CNode nothing uses any more from its graph's order (ValueError if a node
        or a graph output still uses it)."""
        live = [(u, i) for u, i in self.users.get(node, []) if u.inputs[i] is node
                and any(n is u for n in u.graph.order)]
        if live or any(g.output is node for g in self.graphs()):
            raise ValueError(f"FuncGraphManager.erase: {node!r} is still used")
        node.graph.order = [n for n in node.graph.order if n is not node]
        self.users.pop(node, None)
        for inp in node.inputs:
            self.users[inp] = [(u, i) for u, i in self.users.get(inp, []) if u is not node]

    def dce(self):
        """Drop CNodes whose value nothing needs (side-effect nodes always stay)."""
        changed = False
        for g in self.graphs():
            live = set()
            stack = [g.output] + [n for n in g.order if n.side_effect]
            for other in self.graphs():          # free variables used by nested graphs
                if other is not g:
                    stack.extend(n for n in other.order for n in n.inputs if n.graph is g)
                    if other.output is not None and other.output.graph is g:
                        stack.append(other.output)
            while stack:
                n = stack.pop()
                if n.id in live or not isinstance(n, CNode) or n.graph is not g:
                    continue
                live.add(n.id)
                stack.extend(n.inputs)
            kept = [n for n in g.order if n.id in live]
            changed |= len(kept) != len(g.order)
            g.order = kept
        if changed:
            self.rebuild()
        return changed


def reachable_graphs(root):
    out, seen, stack = [], set(), [root]
    while stack:
        g = stack.pop()
        if g.id in seen:
            continue
        seen.add(g.id)
        out.append(g)
        found = [inp.value for node in g.order for inp in node.inputs
                 if isinstance(inp, ValueNode) and isinstance(inp.value, FuncGraph)]
        stack.extend(reversed(found))
    return out


def toposort(graph):
    """CNodes of `graph` that its output depends on, inputs first (iterative DFS)."""
    order, done, stack = [], set(), [(graph.output, False)]
    while stack:
        node, expanded = stack.pop()
        if not isinstance(node, CNode) or node.graph is not graph or node.id in done:
            continue
        if expanded:
            done.add(node.id)
            order.append(node)
            continue
        stack.append((node, True))
        stack.extend((i, False) for i in reversed(node.inputs))
    return order


class LintError(AssertionError):
    pass


def lint(root):
    """Check the IR's invariants over every graph reachable from `root`; raise LintError."""
    for g in reachable_graphs(root):
        if g.output is None:
            raise LintError(f"@{g.name} has no output")
        visible = {g.id} | {a.id for a in g.ancestors()}
        for p in g.parameters:
            if not isinstance(p, ParameterNode) or p.graph is not g:
                raise LintError(f"@{g.name}: parameter {p!r} belongs to another graph")
        defined = set()
        for node in g.order:
            if node.graph is not g:
                raise LintError(f"@{g.name}: {node!r} in order belongs to @{node.graph.name}")
            if not node.inputs:
                raise LintError(f"@{g.name}: {node!r} has no callee")
            for inp in node.inputs:
                _check_input(g, node, inp, defined, visible)
            if node.abstract is None:
                raise LintError(f"@{g.name}: {node!r} has no abstract")
            defined.add(node.id)
        _check_input(g, None, g.output, defined, visible)


def _check_input(g, node, inp, defined, visible):
    where = f"@{g.name}: input of {node!r}" if node is not None else f"@{g.name}: output"
    if isinstance(inp, ValueNode):
        return
    if isinstance(inp, ParameterNode):
        if inp.graph is None or inp.graph.id not in visible:
            raise LintError(f"{where}: parameter {inp.name} of an unrelated graph")
        return
    if not isinstance(inp, CNode):
        raise LintError(f"{where}: {inp!r} is not an AnfNode")
    if inp.graph is g:
        if inp.id not in defined:
            raise LintError(f"{where}: {inp!r} is used before it is computed")
    elif inp.graph is None or inp.graph.id not in visible:
        raise LintError(f"{where}: {inp!r} belongs to a graph that does not enclose @{g.name}")
    elif inp not in inp.graph.order:
        raise LintError(f"{where}: free variable {inp!r} is not computed in its graph")
