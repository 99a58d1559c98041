"""The backward of an `if` on a tensor: `Switch(c, @t, @f)()` -> `Switch(c, @bt, @bf)(dout)`.

Per branch graph g, a backward graph bg (a child of the graph being built, so it reads the
same enclosing values g reads): bg's parameters are the adjoints of g's outputs; its body
is g recomputed (g's nodes cloned, nested branch graphs cloned with them) followed by the
J transform of that clone; its output is the tuple of gradients of the tracked values g
reads from enclosing graphs (the same list, in the same order, for both branches: zeros
where a branch does not use one). The same condition picks the backward graph, so the
backward follows the branch the forward took; the gradients are then accumulated on the
enclosing values like any other adjoint.
"""
from ...ir.anf import FUNC, MAKE_TUPLE, SWITCH, TUPLE_GETITEM, CNode, FuncGraph, ValueNode
from .recompute import check_replay, replay_skips
from .transform import _Backprop, _ir, free_values, zeros_of


def clone_graph(g, parent, mapping, name):
    """A copy of g (a child of `parent`); nodes of g and of its nested graphs are mapped."""
    new = FuncGraph(name, parent=parent, location=g.location)
    new.return_loc = g.return_loc
    for p in g.parameters:
        mapping[p] = new.add_parameter(p.name, p.abstract, p.default, p.debug)
    _clone_nodes_into(g, new, mapping)
    new.set_output(_map(g.output, new, mapping, {g} | set(g.children_all())))
    return new


def _map(i, new, mapping, own):
    hit = mapping.get(i)
    if hit is not None:
        return hit
    if isinstance(i, ValueNode) and isinstance(i.value, FuncGraph) and i.value in own:
        g = i.value
        clone = clone_graph(g, new, mapping, f"{g.name}_re")
        mapping[i] = ValueNode(clone, FUNC)
        return mapping[i]
    return i


def switch_backward(bp, call, sw, dout):
    """Emit the backward Switch for `call`, a pick of `sw` called with `args` (none for a
    forward `if`; the adjoints for a backward Switch being differentiated again)."""
    p = bp.p
    cond = sw.inputs[1]
    graphs = [i.value for i in sw.inputs[2:4]]
    args = list(call.inputs[1:])
    fvs = []
    for g in graphs:
        for v in free_values(g):
            if v in bp.tracked and v not in fvs:
                fvs.append(v)
    if not fvs and not any(a in bp.tracked for a in args):
        return
    check_replay(bp, graphs, "tensor 'if'")
    arg_abs = [p.abstract_of(a) for a in args]
    abstracts = arg_abs + [p.abstract_of(v) for v in fvs]
    out_abs = call.abstract
    dout_value = bp.dense(out_abs, dout)
    backs = [_branch_backward(bp, g, fvs, abstracts, out_abs) for g in graphs]
    saved = p.loc
    p.loc = call.debug[-1] if call.debug else p.loc
    try:
        bsw = p.emit([SWITCH, cond, ValueNode(backs[0], FUNC), ValueNode(backs[1], FUNC)], FUNC)
        douts = list(dout_value) if isinstance(out_abs, tuple) else [dout_value]
        grads = p.emit([bsw] + args + douts, tuple(abstracts))
        for i, (v, a) in enumerate(zip(args + fvs, abstracts)):
            if v in bp.tracked:
                bp.add(v, p.emit([TUPLE_GETITEM, grads, i], a))
    finally:
        p.loc = saved


def _branch_backward(bp, g, fvs, abstracts, out_abs):
    """bg(params of g..., douts...) -> (gradients of g's parameters, then of fvs)."""
    p = bp.p
    saved_fg = p.fg
    bg = p.new_graph("bprop_" + g.name.split("_", 1)[-1].split("_")[0])
    p.fg = bg
    try:
        mapping = {q: bg.add_parameter(q.name, q.abstract, q.default, q.debug)
                   for q in g.parameters}
        params = [mapping[q] for q in g.parameters]
        leaves = list(out_abs) if isinstance(out_abs, tuple) else [out_abs]
        sens = [bg.add_parameter(f"dout{i}", a) for i, a in enumerate(leaves)]
        _clone_nodes_into(g, bg, mapping)
        out = mapping.get(g.output, g.output)
        outs = _leaf_values(p, out, out_abs)
        wrt = params + fvs
        inner = _Backprop(p, list(bg.order), wrt)
        inner.written = bp.written
        inner.mark()
        inner.run(outs, sens)
        grads = []
        for v, a in zip(wrt, abstracts):
            gv = inner.adj.get(v) if v in inner.tracked else None
            grads.append(zeros_of(a) if gv is None else gv)
        bg.set_output(p.as_input(tuple(grads)))
    finally:
        p.fg = saved_fg
    return bg


def _clone_nodes_into(g, bg, mapping):
    own = {g} | set(g.children_all())
    for n in g.order:
        if replay_skips(n):                  # a print: the forward printed it already
            mapping[n] = ValueNode(None, n.abstract)
            continue
        ins = [_map(i, bg, mapping, own) for i in n.inputs]
        mapping[n] = bg.new_cnode(ins, n.abstract, n.debug, n.name, n.side_effect)


def _leaf_values(p, out, out_abs):
    """The branch output's leaves (a MakeTuple's items, else TupleGetItems of it)."""
    if not isinstance(out_abs, tuple):
        return [out]
    if isinstance(out, CNode) and _ir(out.inputs[0]) is MAKE_TUPLE:
        return list(out.inputs[1:])
    return [p.emit([TUPLE_GETITEM, out, i], a) for i, a in enumerate(out_abs)]
