"""FuncGraph -> MindIR ModelProto, the way MindSpore 2.x's exporter lays a model out.

Input: the graph of jit/export_graph.graph_for_export (inputs, then weights whose `default`
is the Parameter). Output layout:
  - the entry graph in `graph`, every other reachable graph in `functions`; a graph is named
    "<k>_<name>", its nodes "<graph>:<node>:<k>", its parameters "<graph>:<param>";
  - weights are TensorProtos in GraphProto.parameter (raw_data, ref_key = the Parameter's
    name), the other parameters are `input` ValueInfos; `output` names the result node;
  - a CNode is a NodeProto with op_type "REF::<primitive>" (the primitive in
    ModelProto.primitives, PRIMITIVE with attributes or PRIMITIVE_FUNCTION with its
    arguments as Constant-node inputs, see op_table.py), "REF::<graph>" for a call of a
    graph, "REF::<node>" for a call of a computed function (a Switch's pick); its abstract
    is its "shape" attribute; a constant is a NodeProto of op_type "Constant";
  - closures are converted as MindSpore does: a nested graph's free variables (nodes of
    enclosing graphs it or its own nested graphs use) become its first parameters, and a
    reference to it becomes Partial(graph, free variables...).
Large tensors go to external data files (external.py) when the caller asks.
"""
import numpy as np

from ...common.abstract import AbstractTensor
from ...common.tensor import Tensor
from ...ir.anf import MAKE_TUPLE, SWITCH, TUPLE_GETITEM, CNode, FuncGraph, IRPrim, ValueNode
from . import mind_ir_pb2 as pb
from .op_table import encode_primitive
from .values import MindIRFormatError, abstract_to_attr, tensor_to_proto, value_to_attr

IR_VERSION = "1.1"
MIND_IR_VERSION = 3            # Version.IR_VERSION_WITH_SCALAR_GRAPH_HOLDER, as MindSpore 2.10
PRODUCER = "MindSpore"
MODEL_VERSION = "2.10.0"       # the MindSpore API version mindlite's graphs follow
_IR_NAMES = {MAKE_TUPLE: "MakeTuple", TUPLE_GETITEM: "TupleGetItem", SWITCH: "Switch"}


def reachable_graphs(root):
    """Every FuncGraph reachable from `root` through ValueNodes, root first."""
    out, seen, stack = [], {root.id}, [root]
    while stack:
        g = stack.pop()
        out.append(g)
        for node in g.order + [g.output]:
            for i in (node.inputs if isinstance(node, CNode) else [node]):
                if isinstance(i, ValueNode) and isinstance(i.value, FuncGraph) \
                        and i.value.id not in seen:
                    seen.add(i.value.id)
                    stack.append(i.value)
    return out


def _inside(g, top):
    while g is not None:
        if g is top:
            return True
        g = g.parent
    return False


def free_variables(graphs):
    """{graph id: [nodes of enclosing graphs it uses]}: the nodes its own CNodes and output
    use from outside it, plus the free variables of every graph it references (those must
    be passed along where it builds the Partial or makes the call), minus its own nodes and
    those of graphs nested in it; a fixpoint, as loops reference each other."""
    direct, refs = {}, {}
    for g in graphs:
        used, called = [], []
        # the output is a value the graph uses (a node of an enclosing graph when a branch
        # returns a variable it did not change), not a call whose inputs it uses
        for i in [i for node in g.order for i in node.inputs] + [g.output]:
            if i.graph is not None:
                used.append(i)
            elif isinstance(i, ValueNode) and isinstance(i.value, FuncGraph):
                called.append(i.value)
        direct[g.id], refs[g.id] = used, called
    out = {g.id: [] for g in graphs}
    changed = True
    while changed:
        changed = False
        for g in graphs:
            seen = {n.id for n in out[g.id]}
            for n in direct[g.id] + [v for h in refs[g.id] for v in out.get(h.id, ())]:
                if n.id not in seen and not _inside(n.graph, g):
                    seen.add(n.id)
                    out[g.id].append(n)
                    changed = True
    return out


class _Writer:
    def __init__(self, model, graphs):
        self.model = model
        self.graphs = graphs
        self.fvs = free_variables(graphs)
        self.names = {g.id: f"{k}_{g.name}" for k, g in enumerate(graphs, 1)}
        self.prims = {}
        self.counter = 0

    def next_id(self):
        self.counter += 1
        return self.counter

    def prim_ref(self, prim):
        """'REF::<name>' of `prim` (an IRPrim or Primitive), added to model.primitives once."""
        key = id(prim)
        entry = self.prims.get(key)
        if entry is None:
            proto = self.model.primitives.add()
            if isinstance(prim, IRPrim):
                if prim not in _IR_NAMES:
                    raise MindIRFormatError(f"IR primitive {prim!r} cannot be written to MINDIR")
                op, kind, attrs, plan = _IR_NAMES[prim], "PRIMITIVE", {}, None
            else:
                op = type(prim).__name__
                kind, attrs, plan = encode_primitive(prim)
            proto.name = f"{op}:{self.next_id()}"
            proto.op_type = op
            proto.instance_name = ""
            proto.prim_type = pb.PrimitiveProto.PrimType.Value(kind)
            for name, value in attrs.items():
                value_to_attr(value, proto.attribute.add(), name)
            entry = self.prims[key] = (proto.name, plan, prim)
        return entry

    def write_graph(self, g, gp, external):
        gname = self.names[g.id]
        gp.name = gname
        names = {}                       # node id -> name inside this graph
        consts = {}

        def const(value):
            # a tensor is written once per object; the entry holds the object, so the id of
            # a temporary (a scalar made a 0-d tensor) is never reused by the next one
            key = (type(value).__name__, repr(value)) if not hasattr(value, "shape") \
                else id(value)
            hit = consts.get(key)
            if hit is not None and (hit[1] is value or not hasattr(value, "shape")):
                return hit[0]
            name = f"ValueNode_{self.next_id()}"
            n = gp.node.add(output=[name], name=name, op_type="Constant")
            try:
                value_to_attr(value, n.attribute.add(), "value")
            except MindIRFormatError as e:
                raise MindIRFormatError(f"graph {gname}: {e}") from None
            consts[key] = (name, value)
            return name

        def ref(node):
            if node.id in names:
                return names[node.id]
            if isinstance(node, ValueNode):
                if isinstance(node.value, FuncGraph):
                    return graph_ref(node.value)
                return const(node.value)
            raise MindIRFormatError(f"graph {gname}: node {node!r} is used before it is "
                                    f"defined (not in the graph's order)")

        def graph_ref(h):
            hname = self.names[h.id]
            fvs = self.fvs[h.id]
            if not fvs:
                return hname
            pname, _, _ = self.prim_ref(_PARTIAL)
            out = f"{gname}:Partial_{self.next_id()}"
            gp.node.add(input=[hname] + [ref(v) for v in fvs], output=[out], name=out,
                        op_type=f"REF::{pname}", domain="Default/Partial-op0")
            return out

        for k, v in enumerate(self.fvs[g.id]):
            pn = f"{gname}:fv{k}_{getattr(v, 'name', None) or v.id}"
            names[v.id] = pn
            _value_info(gp.input.add(name=pn), v.abstract)
        taken = set(names.values())
        for p in g.parameters:
            pn = f"{gname}:{p.name}"
            if pn in taken:                   # two parameters of one name: keep both
                pn = f"{gname}:{p.name}_{p.id}"
            taken.add(pn)
            names[p.id] = pn
            if p.default is None:
                _value_info(gp.input.add(name=pn), p.abstract)
                continue
            t = tensor_to_proto(p.default, gp.parameter.add(), name=pn, with_data=False)
            t.ref_key = p.default.name
            external.add(t, p.default)
        for node in g.order:
            self.write_node(g, gp, node, names, ref, gname)
        out = g.output
        _value_info(gp.output.add(name=ref(out)), out.abstract)

    def write_node(self, g, gp, node, names, ref, gname):
        callee = node.inputs[0]
        name = f"{gname}:{node.name or 'CNode'}_{node.id}:{self.next_id()}"
        args = node.inputs[1:]
        if isinstance(callee, ValueNode) and isinstance(callee.value, FuncGraph):
            h = callee.value
            inputs = [ref(v) for v in self.fvs[h.id]] + [ref(a) for a in args]
            op_type, domain = f"REF::{self.names[h.id]}", "0"
        elif isinstance(callee, ValueNode):
            pname, plan, prim = self.prim_ref(callee.value)
            op = pname.split(":")[0]
            if not isinstance(prim, IRPrim):
                args = _scalars_as_tensors(prim, args)
            if plan is None:
                inputs = [ref(a) for a in args]
            else:
                it, inputs = iter(args), []
                for entry in plan:
                    if entry is None or len(entry) == 2:
                        a = next(it, None)
                        if a is None and entry is None:
                            raise MindIRFormatError(f"graph {gname}: op '{op}' has too few "
                                                    f"inputs")
                        inputs.append(ref(a if a is not None else ValueNode(entry[1])))
                    else:
                        inputs.append(ref(ValueNode(entry[0])))
                if next(it, None) is not None:
                    raise MindIRFormatError(f"graph {gname}: op '{op}' has too many inputs")
            op_type, domain = f"REF::{pname}", f"Default/{op}-op{node.id}"
        else:
            inputs = [ref(a) for a in args]
            op_type, domain = f"REF::{ref(callee)}", "0"
        n = gp.node.add(input=inputs, output=[name], name=name, op_type=op_type, domain=domain)
        attr = n.attribute.add()
        if not abstract_to_attr(node.abstract, attr):
            del n.attribute[:]
        names[node.id] = name


def _scalars_as_tensors(prim, args):
    """A Python scalar in a tensor input of `prim` becomes a 0-d tensor constant, as in
    MindSpore's graphs (whose kernels take tensors there): of the dtype of the tensors it is
    promoted with (same_type_inputs), else int64 / float32 / bool."""
    const = set(getattr(prim, "const_inputs", ()) or ())
    same = tuple(getattr(prim, "same_type_inputs", ()) or ())
    out = list(args)
    for i, a in enumerate(args):
        if i in const or not isinstance(a, ValueNode) or \
                not isinstance(a.value, (bool, int, float)):
            continue
        dtype = None
        if i in same:
            dtype = next((args[j].abstract.np for j in same if j < len(args) and j != i
                          and isinstance(args[j].abstract, AbstractTensor)), None)
            dtype = _promoted(dtype, a.value)
        if dtype is None:
            dtype = np.bool_ if isinstance(a.value, bool) else \
                np.int64 if isinstance(a.value, int) else np.float32
        out[i] = ValueNode(Tensor(np.array(a.value, dtype)))
    return out


def _promoted(dtype, scalar):
    """The dtype eager computes `tensor op scalar` in (docs/mindspore_api.md): a float
    scalar with an int or bool tensor is float32 (-0.25 as int32 would be 0), an int scalar
    with a bool tensor int64; otherwise the tensor's dtype."""
    if dtype is None:
        return None
    kind = np.dtype(dtype).kind
    if isinstance(scalar, float) and kind in "biu":
        return np.float32
    if isinstance(scalar, int) and not isinstance(scalar, bool) and kind == "b":
        return np.int64
    return dtype


class _PartialPrim(IRPrim):
    __slots__ = ()


_PARTIAL = _PartialPrim("Partial")
_IR_NAMES[_PARTIAL] = "Partial"


def _value_info(vi, abstract):
    attr = pb.AttributeProto()
    if abstract_to_attr(abstract, attr) and attr.type == pb.AttributeProto.TENSORS:
        vi.tensor.extend(attr.tensors)
    elif attr.type:
        vi.attr_info.CopyFrom(attr)


def _refuse_writes(graphs):
    """A graph that writes a Parameter in place (Assign, AssignAdd, an optimizer update) needs
    MindSpore's ordering tokens in the file (UpdateState / Load monads), which this writer
    does not write: without them a loader may drop or reorder the write. Refused, naming
    the primitive, rather than written wrong."""
    for g in graphs:
        for n in g.order:
            callee = n.inputs[0]
            prim = callee.value if isinstance(callee, ValueNode) else None
            if n.side_effect and not isinstance(prim, (IRPrim, FuncGraph)) and prim is not None \
                    and getattr(prim, "inplace_inputs", None):
                raise MindIRFormatError(
                    f"graph {g.name}: '{prim.name}' writes a Parameter in place; writing its "
                    f"ordering (MindSpore's UpdateState/Load monads) to MINDIR is not supported "
                    f"yet")


def graph_to_model(graph, external):
    """The ModelProto of `graph` (weights' data written through `external`)."""
    model = pb.ModelProto(ir_version=IR_VERSION, producer_name=PRODUCER,
                          model_version=MODEL_VERSION, little_endian=True,
                          mind_ir_version=MIND_IR_VERSION)
    graphs = reachable_graphs(graph)
    _refuse_writes(graphs)
    w = _Writer(model, graphs)
    if w.fvs[graph.id]:
        raise MindIRFormatError(f"graph {graph.name} uses nodes of an enclosing graph: only "
                                f"a top-level graph can be exported")
    w.write_graph(graph, model.graph, external)
    for g in graphs[1:]:
        w.write_graph(g, model.functions.add(), external)
    return model
