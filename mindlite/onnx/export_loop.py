"""`while` loops -> ONNX `Loop` for the exporter (export.py's Emitter calls `emit_loop`).

The graph-mode parser makes a `while` on a tensor a loop graph L(v1..vk): its first nodes
compute the condition (`pre`), then `Switch(cond, @body, @exit)()`; @body computes the
next values and ends in the tail call L(v1'..vk'); @exit computes what the loop returns
from the final values. As ONNX:

    cond0 = pre(v_init)                           (emitted before the Loop)
    Loop(M="", cond0, v_init...) body(iter, cond_in, v...):
        v' = body(v);  cond' = pre(v')            (pre emitted again on the new values)
        -> (cond', v'...)
    exit(v_final)                                 (emitted after the Loop)

A graph that calls itself in any other shape cannot be exported (ValueError).
"""
from ..ir.anf import SWITCH, CNode, FuncGraph, ValueNode
from . import _lib


def loop_form(g):
    """(pre nodes, cond node, body graph, exit graph, tail call) if `g` is a while loop's
    graph, else None."""
    out = g.output
    if not (isinstance(out, CNode) and len(out.inputs) == 1 and isinstance(out.inputs[0], CNode)):
        return None
    sw = out.inputs[0]
    if not (isinstance(sw.inputs[0], ValueNode) and sw.inputs[0].value is SWITCH):
        return None
    cond, tb, fb = sw.args
    body, exit_ = getattr(tb, "value", None), getattr(fb, "value", None)
    if not (isinstance(body, FuncGraph) and isinstance(exit_, FuncGraph)):
        return None
    tail = body.output
    if not (isinstance(tail, CNode) and isinstance(tail.inputs[0], ValueNode)
            and tail.inputs[0].value is g and body.parameters == []):
        return None
    pre = [n for n in g.order if n is not sw and n is not out]
    return pre, cond, body, exit_, tail


def _emit_pre(parent, g, pre, names, nodes):
    """L's condition nodes with L's parameters bound to `names`, appended to `nodes`."""
    from .export import Emitter
    em = Emitter(parent.model, g, parent)
    em.nodes = nodes
    for p, n in zip(g.parameters, names):
        em.names[p.id] = n
    for node in pre:
        em.names[node.id] = em.emit(node)
    return em


def emit_loop(em, g, form, args):
    """The ONNX Loop for a call of loop graph `g` with `args`; returns the exit's value."""
    from .export import Emitter, onnx_dtype
    helper = _lib.onnx().helper
    pre, cond, body, exit_, tail = form
    if any(isinstance(a, tuple) for a in args) or any(
            isinstance(p.abstract, tuple) for p in g.parameters):
        raise ValueError(f"export_onnx: the loop @{g.name} carries a tuple; only tensors can "
                         f"be loop values in ONNX")
    model = em.model
    bool_t = _lib.onnx().TensorProto.BOOL
    init = _emit_pre(em, g, pre, args, em.nodes)
    cond0 = em.node("Cast", [init.value(cond)], to=bool_t)

    nodes = []
    outer = Emitter(model, g, em)
    outer.nodes = nodes
    it, cond_in = model.fresh("loop_iter"), model.fresh("loop_cond")
    v_in = [model.fresh(f"loop_{p.name}") for p in g.parameters]
    inner = _emit_pre(outer, g, pre, v_in, nodes)
    b = Emitter(model, body, inner)
    b.nodes = nodes
    for n in body.order:
        if n is not tail:
            b.names[n.id] = b.emit(n)
    new = [b.value(a) for a in tail.args]
    nxt = _emit_pre(outer, g, pre, new, nodes)
    cond_out = outer.node("Cast", [nxt.value(cond)], to=bool_t, hint="loop_cond_out")
    outs = [helper.make_tensor_value_info(cond_out, bool_t, [])]
    for p, v in zip(g.parameters, new):
        final = outer.node("Identity", [v], hint=f"loop_{p.name}_out")
        outs.append(helper.make_tensor_value_info(final, onnx_dtype(p.abstract.dtype), None))
    ins = [helper.make_tensor_value_info(it, _lib.onnx().TensorProto.INT64, []),
           helper.make_tensor_value_info(cond_in, bool_t, [])]
    ins += [helper.make_tensor_value_info(n, onnx_dtype(p.abstract.dtype), None)
            for n, p in zip(v_in, g.parameters)]
    graph = helper.make_graph(nodes, model.fresh(f"loop_{g.name}"), ins, outs,
                              value_info=model.infos_of(nodes))
    finals = em.node("Loop", ["", cond0] + list(args), n_out=len(args), hint="loop_out",
                     body=graph)
    finals = finals if isinstance(finals, tuple) else (finals,)
    after = _emit_pre(em, g, pre, finals, em.nodes)
    ex = Emitter(model, exit_, after)
    ex.nodes = em.nodes
    return ex.emit_graph([])
