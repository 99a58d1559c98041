"""FuncGraph -> MsModel: the converter's last step (converter.py runs the passes before it).

The root graph becomes subgraph 0: its parameters without a default are the model inputs,
those with one (weights) const tensors holding the data; constants in the graph (Reshape's
shape, an Add's scalar, a constant Tensor) become const tensors too. Every primitive call is
one node (ops_map.EXPORT). Control flow becomes Lite's: each branch graph is a subgraph whose
inputs are the call's arguments followed by the branch's free variables;
`Switch(cond, g1, g2)(args)` becomes PartialFusion(g1) and PartialFusion(g2) over those
inputs, Switch(cond, p1, p2) and Call(switch) giving the results; a direct call of a graph
is PartialFusion + Call. A graph called again (a `while` loop's body calling the loop
graph) reuses its subgraph, so loops become recursive PartialFusion calls, as in Lite.
MakeTuple / TupleGetItem only route tensors.

Tensor formats are written as MindSpore Lite's runtime infers them: an NHWC op's output and
its constant weights NHWC, a Transpose's output by its perm (to NHWC or back to NCHW), any
other op's output as its first input's; a model input that a Transpose to NCHW reads is NHWC
(layout.input_format gave it).
"""
import numpy as np

from ..common.abstract import AbstractTensor
from ..common.tensor import Tensor
from ..ir.anf import MAKE_TUPLE, SWITCH, TUPLE_GETITEM, CNode, FuncGraph, ParameterNode, ValueNode
from ..ir.manager import reachable_graphs
from ..backend.memory_plan import flat_refs
from ..ir.primitive import Primitive
from . import schema as S
from .ms_file import MsModel, MsNode, MsSubGraph, MsTensor
from .transposes import TO_NCHW, TO_NHWC
from .ops_map import EXPORT, LiteOp


class _Switch:
    __slots__ = ("cond", "branches")

    def __init__(self, cond, branches):
        self.cond, self.branches = cond, branches


class _Exporter:
    def __init__(self, fmk):
        self.m = MsModel(fmk_type=S.FMK.get(fmk, S.FMK["MINDIR"]))
        self.consts = {}                     # id(weight) -> (tensor index, the weight)
        self.count = 0
        self.subgraph_of = {}                # FuncGraph id -> (subgraph index, free variables)

    def tensor(self, name, dtype, dims, node_type=S.NODE_CNODE, data=None):
        self.m.tensors.append(MsTensor(name, dtype, dims, S.FORMAT_NCHW, node_type, data))
        return len(self.m.tensors) - 1

    def const(self, value, name, like=None):
        """A const tensor for a Tensor / numpy / Python value (a Python number takes the dtype
        of `like`, the node's output, as mindlite's scalar promotion does)."""
        if isinstance(value, Tensor):
            hit = self.consts.get(id(value))
            if hit is not None and hit[1] is value:   # (a freed temporary's id is reused)
                return hit[0]
            arr = value.asnumpy()
        elif isinstance(value, (bool, int, float)) and like is not None:
            arr = np.asarray(value, like)
        else:
            arr = np.asarray(value)
            if arr.dtype == np.float64 and isinstance(value, float):
                arr = arr.astype(np.float32)
        if arr.dtype not in S.TYPE_ID:
            raise TypeError(f"converter: constant {name!r} of dtype {arr.dtype} has no .ms type")
        idx = self.tensor(name, arr.dtype, arr.shape, S.NODE_VALUE,
                          np.ascontiguousarray(arr).tobytes())
        if isinstance(value, Tensor):
            self.consts[id(value)] = (idx, value)
        return idx

    def out_tensors(self, abstract, name):
        if isinstance(abstract, tuple):
            return tuple(self.out_tensors(a, f"{name}:{i}") for i, a in enumerate(abstract))
        if not isinstance(abstract, AbstractTensor) or abstract.shape is None:
            raise TypeError(f"converter: {name} gives {abstract!r}, not a tensor of known rank")
        return self.tensor(name, abstract.np, [-1 if d is None or d < 0 else d
                                               for d in abstract.shape])

    def node(self, sub, name, op_type, attrs, inputs, outputs):
        self.m.nodes.append(MsNode(name, op_type, attrs, inputs, outputs))
        sub.nodes.append(len(self.m.nodes) - 1)

    # ---- graphs -------------------------------------------------------------------------
    def graph(self, g, inputs, env):
        """Export graph `g` as a new subgraph with input tensors `inputs` (env: node id ->
        tensor refs, its inputs already in it); returns the subgraph index."""
        sub = MsSubGraph(g.name, inputs, [], [], [])
        self.m.subgraphs.append(sub)
        index = len(self.m.subgraphs) - 1
        for node in g.order:
            env[node.id] = self.cnode(sub, g, node, env)
        sub.outputs = list(flat_refs(self.ref(g.output, env, g.name)))
        used = set(sub.inputs) | set(sub.outputs)
        for n in sub.nodes:
            used.update(self.m.nodes[n].inputs)
            used.update(self.m.nodes[n].outputs)
        sub.tensors = sorted(used)
        return index

    def ref(self, node, env, where, like=None):
        if node.id in env:
            return env[node.id]
        if isinstance(node, ParameterNode) and node.default is not None:
            return self.const(node.default, getattr(node.default, "name", node.name))
        if isinstance(node, ValueNode):
            if isinstance(node.value, FuncGraph):
                return node.value
            if isinstance(node.value, tuple) and like is None:
                return tuple(self.ref(ValueNode(v), env, where) for v in node.value)
            return self.const(node.value, f"{where}_const{self.count}", like)
        raise ValueError(f"converter: {node!r} used in {where} has no tensor (unsupported "
                         "graph structure)")

    def cnode(self, sub, g, node, env):
        callee = node.inputs[0]
        fn = callee.value if isinstance(callee, ValueNode) else None
        self.count += 1
        name = f"{g.name}/{getattr(fn, 'name', 'Call')}-op{self.count}"
        if fn is MAKE_TUPLE:
            return tuple(self.ref(i, env, name) for i in node.inputs[1:])
        if fn is TUPLE_GETITEM:
            base = self.ref(node.inputs[1], env, name)
            return base[node.inputs[2].value]
        if fn is SWITCH:
            return _Switch(self.ref(node.inputs[1], env, name),
                           [i.value for i in node.inputs[2:]])
        if isinstance(fn, Primitive):
            return self.primitive(sub, name, fn, node, env)
        target = env.get(callee.id) if isinstance(callee, CNode) else fn
        if isinstance(target, (_Switch, FuncGraph)):
            return self.call(sub, name, target, node, env)
        raise NotImplementedError(f"converter: node {name} calls {fn or callee!r}, which has no "
                                  "MindSpore Lite form")

    def primitive(self, sub, name, prim, node, env):
        if isinstance(prim, LiteOp):
            op_type, attrs, inputs = prim.lite_type, dict(prim.lite_attrs), node.inputs[1:]
        else:
            rule = EXPORT.get(prim.name)
            if rule is None:
                raise NotImplementedError(
                    f"converter: node {name}: the op '{prim.name}' has no MindSpore Lite "
                    f"mapping in mindlite (supported: {sorted(EXPORT)})")
            args = [_arg(i) for i in node.inputs[1:]]
            op_type, attrs, inputs = rule(prim, args)
        like = _scalar_dtype(node.inputs[1:])
        nhwc_op = attrs.get("format") == S.FORMAT_NHWC
        ins = []
        for i in inputs:
            if isinstance(i, np.ndarray):
                ins.append(self.const(i, f"{name}_in{len(ins)}"))
            elif isinstance(i, (bool, int, float)):
                ins.append(self.const(i, f"{name}_in{len(ins)}", np.dtype(
                    np.float32) if isinstance(i, float) and like.kind != "f" else like))
            else:
                r = self.ref(i, env, name, like)
                if not isinstance(r, int):
                    raise ValueError(f"converter: input {len(ins)} of node {name} is not a tensor")
                ins.append(r)
        outs = self.out_tensors(node.abstract, name)
        fmt = self.m.tensors[ins[0]].format if ins else S.FORMAT_NCHW
        if nhwc_op:
            fmt = S.FORMAT_NHWC
            for t in ins[1:]:
                if self.m.tensors[t].data is not None:
                    self.m.tensors[t].format = S.FORMAT_NHWC
        elif op_type == "Transpose":
            perm = tuple(np.frombuffer(self.m.tensors[ins[1]].data or b"", np.int32))
            fmt = {TO_NHWC: S.FORMAT_NHWC, TO_NCHW: S.FORMAT_NCHW}.get(perm, fmt)
        for t in flat_refs(outs):
            self.m.tensors[t].format = fmt
        self.node(sub, name, op_type, attrs, ins, list(flat_refs(outs)))
        return outs

    def branch(self, bg, args, free, outer, env):
        """Export graph `bg` as a subgraph taking the call's arguments then its free
        variables. It is registered before its body is exported, so a call of `bg` inside
        itself (a loop's next iteration) refers to the same subgraph."""
        benv = dict(env)
        inputs = []
        for p, a in zip(bg.parameters, args):
            t = self.m.tensors[a]
            benv[p.id] = self.tensor(f"{bg.name}/{p.name}", t.dtype, t.dims, S.NODE_PARAMETER)
            inputs.append(benv[p.id])
        for v, a in zip(free, outer):
            t = self.m.tensors[a]
            benv[v.id] = self.tensor(f"{bg.name}/fv{v.id}", t.dtype, t.dims, S.NODE_PARAMETER)
            inputs.append(benv[v.id])
        self.subgraph_of[bg.id] = (len(self.m.subgraphs), free)
        return self.graph(bg, inputs, benv)

    def call(self, sub, name, target, node, env):
        args = [self.ref(i, env, name) for i in node.inputs[1:]]
        branches = target.branches if isinstance(target, _Switch) else [target]
        partials = []
        for k, bg in enumerate(branches):
            hit = self.subgraph_of.get(bg.id)
            if hit is None:
                free = self.needs[bg.id]
            else:
                index, free = hit
            outer = [self.ref(v, env, name) for v in free]
            if hit is None:
                index = self.branch(bg, args, free, outer, env)
            handle = self.tensor(f"{name}_partial{k}", np.int32, [])
            self.node(sub, f"{name}_partial{k}", "PartialFusion", {"sub_graph_index": index},
                      args + outer, [handle])
            partials.append(handle)
        callee = partials[0]
        if isinstance(target, _Switch):
            callee = self.tensor(f"{name}_switch", np.int32, [])
            self.node(sub, f"{name}_switch", "Switch", {}, [target.cond] + partials, [callee])
        outs = self.out_tensors(node.abstract, name)
        self.node(sub, f"{name}_call", "Call", {}, [callee], list(flat_refs(outs)))
        return outs


def outer_values(root):
    """{graph id: the values of other graphs each graph needs}: its own free variables and
    those of every graph it calls or branches to that it does not define itself (so a
    branch that calls a loop graph passes the loop's free variables along), weights left
    out (they are constants). A fixpoint, for recursive graphs; ordered by node id."""
    graphs = reachable_graphs(root)
    refs, needs = {}, {}
    for g in graphs:
        direct, callees = {}, []
        # the inputs of its nodes, and its output itself (a branch may return another
        # graph's node: that node is what it needs, not the node's own inputs)
        for i in [i for node in g.order for i in node.inputs] + [g.output]:
            if isinstance(i, ValueNode) and isinstance(i.value, FuncGraph):
                callees.append(i.value)
            elif i.graph is not None and i.graph is not g and not (
                    isinstance(i, ParameterNode) and i.default is not None):
                direct[i.id] = i
        refs[g.id], needs[g.id] = callees, direct
    changed = True
    while changed:
        changed = False
        for g in graphs:
            for f in refs[g.id]:
                for v in list(needs.get(f.id, {}).values()):
                    if v.graph is not g and v.id not in needs[g.id]:
                        needs[g.id][v.id] = v
                        changed = True
    return {k: [v[i] for i in sorted(v)] for k, v in needs.items()}


def _scalar_dtype(inputs):
    """The dtype a Python number input takes: the first tensor input's (as mindlite's
    scalar promotion for elementwise ops)."""
    for i in inputs:
        if isinstance(i.abstract, AbstractTensor):
            return np.dtype(i.abstract.np)
    return np.dtype(np.float32)


def _arg(node):
    """What an export rule sees: the node, or the Python value of a constant."""
    if isinstance(node, ValueNode) and not isinstance(node.value, (Tensor, FuncGraph)):
        return node.value
    return node


def export_graph(graph, fmk="MINDIR", input_format="NCHW"):
    """The MsModel of `graph` (after the converter's passes; input_format: the layout
    layout.input_format gave the 4-D inputs)."""
    ex = _Exporter(fmk)
    ex.needs = outer_values(graph)
    ex.m.name = graph.name
    env, inputs = {}, []
    for p in graph.parameters:
        if p.default is None:
            a = p.abstract
            if not isinstance(a, AbstractTensor):
                raise TypeError(f"converter: input {p.name} is not a tensor ({a!r})")
            env[p.id] = ex.tensor(p.name, a.np, [-1 if d is None else d for d in a.shape],
                                  S.NODE_PARAMETER)
            if input_format == "NHWC" and len(a.shape) == 4:
                ex.m.tensors[env[p.id]].format = S.FORMAT_NHWC
            inputs.append(env[p.id])
    ex.graph(graph, inputs, env)
    ex.m.inputs, ex.m.outputs = inputs, list(ex.m.subgraphs[0].outputs)
    return ex.m
