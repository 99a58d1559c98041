"""Custom `Cell.bprop` in graphs: the user's bprop replaces the construct's own backward.

When the parser meets a call of a Cell whose class defines `bprop`, it parses `construct`
inline as usual and remembers the nodes it emitted as a custom region (first/last node,
the call's inputs and output). The J transform (transform.py) then skips the region's
nodes and, where the region ends, parses `cell.bprop(*inputs, out, dout)` in their place,
checking its arity as eager does (nn/cell.py _cell_bprop). Weights used inside the
construct get no gradient through it, as in eager.
"""
from ...ir.anf import AnfNode


class CustomRegion:
    __slots__ = ("cell", "inputs", "out", "nodes", "first", "last")

    def __init__(self, cell, inputs, out, nodes):
        self.cell, self.inputs, self.out = cell, inputs, out
        self.nodes = frozenset(nodes)
        self.first, self.last = nodes[0], nodes[-1]


def call_custom_cell(parser, cell, args, kwargs):
    start = len(parser.fg.order)
    out = parser.call_function(type(cell).construct, (cell,) + tuple(args), kwargs)
    nodes = parser.fg.order[start:]
    if nodes and not kwargs:
        regions = parser.__dict__.setdefault("ad_custom", {})
        regions.setdefault(parser.fg, []).append(CustomRegion(cell, tuple(args), out, nodes))
    return out


def _leaves(v):
    if isinstance(v, AnfNode):
        yield v
    elif isinstance(v, (tuple, list)):
        for x in v:
            yield from _leaves(x)


def mark_custom(bp, region):
    """Forward marking: the region's output follows its inputs (whatever the inside is)."""
    if any(x in bp.tracked for x in _leaves(region.inputs)):
        bp.tracked.update(_leaves(region.out))


def custom_backward(bp, region):
    p = bp.p
    out = region.out
    leaves = list(_leaves(out))
    if not any(x in bp.adj for x in leaves):
        return
    dout = _dense_like(bp, out)
    cell = region.cell
    name = f"{type(cell).__name__}.bprop"
    saved = p.stack, p.loc
    debug = region.last.debug
    p.stack = list(debug[:-1])
    p.loc = debug[-1] if debug else None
    try:
        grads = p.call_function(type(cell).bprop, (cell,) + region.inputs + (out, dout), {})
        if not isinstance(grads, tuple):
            grads = (grads,)
        if len(grads) != len(region.inputs):
            raise p.error(ValueError(f"For '{name}', bprop must return {len(region.inputs)} "
                                     f"gradients (one per input), but returned {len(grads)}"))
    finally:
        p.stack, p.loc = saved
    for x, g in zip(region.inputs, grads):
        if isinstance(x, AnfNode) and x in bp.tracked:
            bp.add(x, g)


def _dense_like(bp, v):
    if isinstance(v, AnfNode):
        return bp.dense(bp.p.abstract_of(v), bp.adj.pop(v, None))
    if isinstance(v, (tuple, list)):
        return tuple(_dense_like(bp, x) for x in v)
    return v
