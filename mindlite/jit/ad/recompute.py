"""What the backward may replay of a tensor `if`'s branch or a `while`'s body.

The backward of a branch (ad/control.py) and of a loop (ad/loop.py) recomputes the forward
from its inputs instead of storing its intermediates. A replay is only right when the
replayed nodes give the forward's values and do nothing a user can see twice:
- `print` is replayed without printing (the forward printed; its value is None);
- a write in place (Assign, AssignAdd, item assignment to a Parameter, a BatchNorm's
  moving statistics, ...) or a random draw in the replayed region would run again, and a
  Parameter the function writes anywhere would be read after the write, so the replay
  would differ from the forward: refused with ADUnsupportedError naming the primitive (a
  gradient function then runs on the eager tape, with a warning, as for any construct the
  J transform cannot differentiate).
"""
import os

from ...ir.anf import PRINT, CNode, FuncGraph, ValueNode
from ...ir.rules import has_side_effect
from .nodes import ADUnsupportedError, _ir, _prim_of


def _nodes(graphs):
    """Every CNode of `graphs`, their nested graphs and the graphs they call."""
    todo, seen_g = list(graphs), set()
    while todo:
        g = todo.pop()
        if g in seen_g:
            continue
        seen_g.add(g)
        todo.extend(g.children_all())
        for n in g.order:
            if not isinstance(n, CNode):
                continue
            for i in n.inputs:
                if isinstance(i, ValueNode) and isinstance(i.value, FuncGraph):
                    todo.append(i.value)
            yield n


def _region_nodes(region):
    graphs = []
    for n in region:
        if isinstance(n, CNode):
            yield n
            graphs.extend(i.value for i in n.inputs
                          if isinstance(i, ValueNode) and isinstance(i.value, FuncGraph))
    yield from _nodes(graphs)


def written_parameters(region):
    """The Parameter nodes a write in place of `region` (or of a graph it calls) targets."""
    out = set()
    for n in _region_nodes(region):
        prim = _prim_of(n)
        for k in getattr(prim, "inplace_inputs", None) or ():
            if k + 1 < len(n.inputs) and getattr(n.inputs[k + 1], "default", None) is not None:
                out.add(n.inputs[k + 1])
    return out


def replay_skips(node):
    """True for a node the replay leaves out: a print (the forward printed already)."""
    return node.side_effect and _ir(node.inputs[0]) is PRINT


def check_replay(bp, graphs, what):
    """Refuse replaying `graphs` (a branch pair or a loop) when the replay would differ.
    bp.written (the Parameters the differentiated region writes) is found once, on the
    outermost backprop, and handed to the inner ones."""
    if bp.written is None:
        bp.written = written_parameters(bp.region)
    written = bp.written
    for n in _nodes(graphs):
        if replay_skips(n):
            continue
        prim = _prim_of(n)
        if n.side_effect or (prim is not None and has_side_effect(prim)):
            name = prim.name if prim is not None else getattr(_ir(n.inputs[0]), "name", "?")
            raise ADUnsupportedError(
                f"Graph autodiff does not support gradients through a {what} that has a side "
                f"effect ('{name}'{_where(n)}): its backward replays the {what}, which would "
                f"run the effect again")
        for i in n.inputs:
            if i in written:
                raise ADUnsupportedError(
                    f"Graph autodiff does not support gradients through a {what} that reads the "
                    f"Parameter '{i.default.name}'{_where(n)}, which the function writes in "
                    f"place: its backward replays the {what} after the write")


def _where(node):
    pkg = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    user = [loc for loc in node.debug if not os.path.abspath(loc.file).startswith(pkg)]
    loc = user[-1] if user else (node.debug[-1] if node.debug else None)
    return f", {os.path.basename(loc.file)}:{loc.line}" if loc is not None else ""
