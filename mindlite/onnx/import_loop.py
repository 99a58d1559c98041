"""ONNX `Loop` -> a mindlite while-loop graph (the form the graph-mode parser gives a `while`
on a tensor, which the graph executor runs with tail calls, any number of iterations):

    L(it, c, v1..vk):  go = c [and it < M];  Switch(go, @body, @exit)()
    @body:             the ONNX body on (it, c, v) -> (c', v');  L(it + 1, c', v')
    @exit:             MakeTuple(v1..vk)
    caller:            L(0, cond, v_init...) -> TupleGetItem per value

Scan outputs (body outputs past the loop-carried values) are not supported.
"""
import numpy as np

from ..ir.anf import FUNC, MAKE_TUPLE, SWITCH, TUPLE_GETITEM, FuncGraph, ValueNode
from ..ops import operations as P
from .import_ctx import Const, importer
from .importer import Scope


def _sig(ab):
    return (ab.dtype, tuple(ab.shape))


@importer("Loop")
def _loop(ctx):
    imp, scope = ctx.imp, ctx.scope
    body_proto = ctx.attr("body")
    k = ctx.n_inputs - 2
    if len(body_proto.output) != k + 1:
        ctx.fail(f"scan outputs are not supported (body gives {len(body_proto.output)} "
                 f"outputs for {k} loop-carried values)")
    if len(body_proto.input) != k + 2:
        ctx.fail(f"the body takes {len(body_proto.input)} inputs, expected {k + 2}")
    v_init = [imp.node_of(ctx.t(i), scope) for i in range(2, ctx.n_inputs)]
    cond0 = ctx.t(1) if ctx.has(1) else Const(np.array(True))
    trip = ctx.t(0) if ctx.has(0) else None
    if not ctx.has(0) and not ctx.has(1):
        ctx.fail("a Loop with neither a trip count nor a condition never ends")

    imp.n_graphs += 1
    tag = f"{imp.n_graphs}_{imp.root.name}"
    loop = FuncGraph(f"while_{tag}", parent=scope.graph)
    it = loop.add_parameter("iter", imp.abstract(Const(np.array(0, np.int64))))
    c = loop.add_parameter("cond", imp.abstract(imp.node_of(cond0, scope)))
    vs = [loop.add_parameter(f"v{j}", v.abstract) for j, v in enumerate(v_init)]
    lscope = Scope(loop, scope)
    go = imp.call(lscope, P.Cast(), c, _bool())
    if trip is not None:
        go = imp.call(lscope, P.LogicalAnd(), go, imp.call(lscope, P.Less(), it, trip))

    body = FuncGraph(f"while_body_{tag}", parent=loop)
    bscope = Scope(body, lscope)
    names = [i.name for i in body_proto.input]
    for name, value in zip(names, [it, c] + vs):
        bscope.values[name] = value
    imp.import_nodes(body_proto, bscope)
    outs = [imp.node_of(bscope.get(o.name), bscope) for o in body_proto.output]
    for j, (v, out) in enumerate(zip(vs, outs[1:])):
        if isinstance(out.abstract, tuple) or _sig(out.abstract) != _sig(v.abstract):
            ctx.fail(f"loop value {j} changes from {v.abstract} to {out.abstract} in the body")
    results = tuple(v.abstract for v in vs)
    step = imp.node_of(imp.call(bscope, P.Add(), it, Const(np.array(1, np.int64))), bscope)
    cond_next = imp.call(bscope, P.Cast(), outs[0], c.abstract.dtype)
    if tuple(imp.abstract(cond_next).shape) != tuple(c.abstract.shape):
        cond_next = imp.call(bscope, P.Reshape(), cond_next, tuple(c.abstract.shape))
    cond_next = imp.node_of(cond_next, bscope)
    body.set_output(body.new_cnode([ValueNode(loop), step, cond_next] + outs[1:], results))

    exit_ = FuncGraph(f"while_exit_{tag}", parent=loop)
    exit_.set_output(exit_.new_cnode([MAKE_TUPLE] + vs, results))
    go = imp.node_of(go, lscope)
    sw = loop.new_cnode([SWITCH, go, ValueNode(body), ValueNode(exit_)], FUNC)
    loop.set_output(loop.new_cnode([sw], results))

    g = scope.graph
    start = imp.node_of(Const(np.array(0, np.int64)), scope)
    call = g.new_cnode([ValueNode(loop), start, imp.node_of(cond0, scope)] + v_init, results)
    return [g.new_cnode([TUPLE_GETITEM, call, ValueNode(j, j)], a)
            for j, a in enumerate(results)]


def _bool():
    from ..common import dtype as mstype
    return mstype.bool_
