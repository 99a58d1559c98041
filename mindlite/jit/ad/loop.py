"""The backward of a `while` on a tensor, by recomputation (no per-iteration storage).

The forward is a loop graph L(P) = Switch(cond(P), @body, @exit)(), the body ending with
the tail call L(step(P)). Its backward, built from clones of L's condition and body:

    n      = Count(P0, 0)          the trip count: L with a counter, returning it
    P_k    = Adv(P0, k)            the carried values after k iterations (k steps of body)
    Bk(k, dP, dFV):  while k > 0:  P = Adv(P0, k - 1); (dP, dFV_k) = J(step)(P) applied
                                   to dP; dFV += dFV_k; k -= 1     -> (dP, dFV)
    d P0 = dP, and dFV (the gradients of the tracked values the loop reads from enclosing
    graphs: weights, inputs) are accumulated like any adjoint.

Every backward iteration recomputes the forward from P0, so the backward costs O(n^2)
body evaluations for n iterations, in O(1) memory: correct for any trip count, slow for
long loops (docs/graph_autodiff.md). Each graph is a loop of the parser's own shape
(tail calls), so the executor runs any number of iterations without recursion.
"""
from ...ir.anf import FUNC, SWITCH, TUPLE_GETITEM, CNode, ValueNode
from ...common import dtype as mstype
from ...common.tensor import Tensor
from .control import _map
from .recompute import check_replay, replay_skips
from .transform import _Backprop, _ir, free_values, zeros_of


def loop_parts(L):
    """(cond node, body graph, exit graph, tail call) of a parser-built loop graph, or None."""
    out = L.output
    if not (isinstance(out, CNode) and isinstance(out.inputs[0], CNode)
            and _ir(out.inputs[0].inputs[0]) is SWITCH):
        return None
    sw = out.inputs[0]
    body, exit_g = sw.inputs[2].value, sw.inputs[3].value
    tail = body.output
    if not (isinstance(tail, CNode) and isinstance(tail.inputs[0], ValueNode)
            and tail.inputs[0].value is L):
        return None
    return sw.inputs[1], body, exit_g, tail


def _clone(nodes, target, mapping, own):
    for n in nodes:
        if replay_skips(n):                  # a print: the forward printed it already
            mapping[n] = ValueNode(None, n.abstract)
            continue
        ins = [_map(i, target, mapping, own) for i in n.inputs]
        mapping[n] = target.new_cnode(ins, n.abstract, n.debug, n.name, n.side_effect)


def _one(values):
    return values[0] if len(values) == 1 else tuple(values)


class _LoopBuilder:
    def __init__(self, bp, L):
        self.bp, self.p, self.L = bp, bp.p, L
        self.cond, self.body, self.exit, self.tail = loop_parts(L)
        self.own_body = {self.body} | set(self.body.children_all())
        self.own_l = {L} | set(L.children_all())
        self.abstracts = [q.abstract for q in L.parameters]

    def step(self, target, params):
        """Clone the body (without its tail call) into `target` with L's parameters bound to
        `params`; returns the new carried values."""
        mapping = dict(zip(self.L.parameters, params))
        _clone(self.L.order[:-2], target, mapping, self.own_l)    # what the body may read
        _clone(self.body.order[:-1], target, mapping, self.own_body)
        return [mapping.get(a, a) for a in self.tail.inputs[1:]]

    def cond_of(self, target, params):
        mapping = dict(zip(self.L.parameters, params))
        _clone(self.L.order[:-2], target, mapping, self.own_l)
        return mapping.get(self.cond, self.cond)

    def loop(self, name, abstracts, cond_fn, body_fn, exit_fn):
        """A loop graph of the parser's shape: params -> Switch(cond, @body, @exit)()."""
        p = self.p
        saved = p.fg
        g = p.new_graph(name)
        g.ad_generated = True              # a backward loop: not differentiated again (yet)
        try:
            params = [g.add_parameter(f"p{i}", a) for i, a in enumerate(abstracts)]
            p.fg = g
            cond = cond_fn(g, params)
            exit_g = p.new_graph(name + "_exit")
            p.fg = exit_g
            out = p.as_input(_one(exit_fn(params)))
            exit_g.set_output(out)
            out_abs = out.abstract if out.abstract is not None else p.abstract_of(out)
            p.fg = g
            body_g = p.new_graph(name + "_body")
            p.fg = body_g
            new = body_fn(body_g, params)
            body_g.set_output(p.emit([ValueNode(g, FUNC)] + new, out_abs))
            p.fg = g
            sw = p.emit([SWITCH, cond, ValueNode(body_g, FUNC), ValueNode(exit_g, FUNC)], FUNC)
            g.set_output(p.emit([sw], out_abs))
        finally:
            p.fg = saved
        return g, out_abs


def _int_scalar():
    from ...common.abstract import AbstractTensor
    return AbstractTensor(mstype.int32, ())


def loop_backward(bp, call, L, dout):
    from ...ops.operations.logic_ops import Greater
    from ...ops.operations.math_ops import Add, Sub
    p = bp.p
    check_replay(bp, [L], "'while' loop")
    lb = _LoopBuilder(bp, L)
    init = list(call.inputs[1:])
    fvs = [v for v in free_values(L) if v in bp.tracked]
    k_abs = _int_scalar()
    add, sub, greater = Add(), Sub(), Greater()
    n_carried = len(lb.abstracts)

    count, _ = lb.loop("loop_count", lb.abstracts + [k_abs],
                       lambda g, ps: lb.cond_of(g, ps[:-1]),
                       lambda g, ps: lb.step(g, ps[:-1]) + [p.emit_prim(add, (ps[-1], 1))],
                       lambda ps: [ps[-1]])

    def adv_body(g, ps):
        return lb.step(g, ps[:-1]) + [p.emit_prim(sub, (ps[-1], 1))]
    adv, adv_abs = lb.loop("loop_advance", lb.abstracts + [k_abs],
                           lambda g, ps: p.emit_prim(greater, (ps[-1], 0)), adv_body,
                           lambda ps: ps[:-1])

    fv_abs = [p.abstract_of(v) for v in fvs]

    def back_body(g, ps):
        k, dps, dfv = ps[0], ps[1:1 + n_carried], ps[1 + n_carried:]
        km1 = p.emit_prim(sub, (k, 1))
        state = p.emit([ValueNode(adv, FUNC)] + init + [km1], adv_abs)
        pk = [state] if n_carried == 1 else [p.emit([TUPLE_GETITEM, state, i], a)
                                              for i, a in enumerate(lb.abstracts)]
        start = len(g.order)
        new = lb.step(g, pk)
        inner = _Backprop(p, list(g.order[start:]), pk + fvs)
        inner.written = bp.written
        inner.mark()
        inner.run(new, dps)
        out_dp = [inner.adj.get(x) if inner.adj.get(x) is not None else zeros_of(a)
                  for x, a in zip(pk, lb.abstracts)]
        out_fv = []
        for acc, v in zip(dfv, fvs):
            d = inner.adj.get(v)
            out_fv.append(acc if d is None else p.emit_prim(add, (acc, d)))
        return [km1] + out_dp + out_fv

    back, back_abs = lb.loop("loop_bprop", [k_abs] + lb.abstracts + fv_abs,
                             lambda g, ps: p.emit_prim(greater, (ps[0], 0)), back_body,
                             lambda ps: ps[1:])
    n = p.emit([ValueNode(count, FUNC)] + init + [Tensor(0, mstype.int32)], k_abs)
    douts = bp.dense(call.abstract, dout)
    douts = list(douts) if isinstance(call.abstract, tuple) else [douts]
    res = p.emit([ValueNode(back, FUNC), n] + douts + [zeros_of(a) for a in fv_abs], back_abs)
    outs = [res] if not isinstance(back_abs, tuple) else \
        [p.emit([TUPLE_GETITEM, res, i], a) for i, a in enumerate(back_abs)]
    for x, d in zip(init, outs[:n_carried]):
        if x in bp.tracked:
            bp.add(x, d)
    for v, d in zip(fvs, outs[n_carried:]):
        bp.add(v, d)

