"""MindIR ModelProto -> FuncGraph (mindlite.ir.anf), for files MindSpore 2.x or mindlite wrote.

Every GraphProto (the entry `graph` and the `functions`) becomes a FuncGraph: `input`
ValueInfos become parameters (abstract from their tensor info), then the entry graph's
weights (GraphProto.parameter) become parameters whose `default` is a Parameter named by
`ref_key`; a weight used from another graph is a ValueNode holding that Parameter. Nodes
are rebuilt in file order (files are topologically sorted):
  "Constant"                 a constant (a ValueNode where it is used)
  "REF::<primitive>"         a mindlite Primitive found by op name (op_table.py), MakeTuple,
                             TupleGetItem, Switch; Depend(x, ...) and Load(p, monad) are x and
                             p, UpdateState is the monad (inference graphs need no ordering
                             tokens: monad inputs of ops, graphs and calls are dropped);
                             Partial(g, args...)
                             is a graph nested in the node's graph that calls g with args
                             (free variables) and its own parameters (as many as the
                             partial's call site passes)
  "REF::<graph>"             a call of that graph
  "REF::<node>"              a call of the function that node computed (a Switch's pick)
  "<op>" (no REF::)          an op of a MindSpore 1.x file: attributes on the node itself
Only the nodes the output depends on are kept. Any problem raises MindIRFormatError naming
the graph, the node and the op; the caller adds the file name.
"""
from ...common.abstract import AbstractTensor, abstract_tensor
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ir.anf import MAKE_TUPLE, SWITCH, TUPLE_GETITEM, CNode, FuncGraph, ValueNode
from . import mind_ir_pb2 as pb
from . import ms2_ops
from .custom import decode_custom
from .op_table import (DTYPE_INPUTS, IR_OPS, LOWERINGS, decode_lowered, decode_prim_function,
                       decode_primitive, is_prim_function, primitive_class, split_prim_function)
from .values import (DATA_TYPES, DTYPE_OF_ID, MindIRFormatError, Monad, U_MONAD, abstract_from_attr,
                     attr_to_value, tensor_from_proto)

_PRIM_FUNCTION = pb.PrimitiveProto.PRIMITIVE_FUNCTION
_MONADS = (pb.AttributeProto.UMONAD, pb.AttributeProto.IOMONAD)


def _what(gp, node):
    return f"graph '{gp.name}', node '{node.name or (node.output[0] if node.output else '?')}'"


class _Reader:
    def __init__(self, model, read_external):
        self.model = model
        self.read_external = read_external
        self.prims = {}
        for p in model.primitives:
            if p.name in self.prims:
                raise MindIRFormatError(f"primitive '{p.name}' is defined twice")
            self.prims[p.name] = p
        self.protos = [model.graph] + list(model.functions)
        self.graphs = {}
        for gp in self.protos:
            if not gp.name or gp.name in self.graphs:
                raise MindIRFormatError(f"graph name {gp.name!r} is empty or used twice")
            self.graphs[gp.name] = FuncGraph(gp.name)
        self.weights = {}
        self.prim_cache = {}
        # MindSpore writes each constant once, in the first graph that uses it, and other
        # graphs refer to it by name: every Constant of the file, by its output name
        self.constants = {}
        for gp in self.protos:
            for node in gp.node:
                if node.op_type == "Constant" and len(node.output) == 1:
                    self.constants.setdefault(node.output[0], (gp, node))

    def read(self):
        root = self.protos[0]
        self.add_inputs(root, self.graphs[root.name])
        self.add_weights(root, self.graphs[root.name])
        for gp in self.protos[1:]:
            self.add_inputs(gp, self.graphs[gp.name])
            self.add_weights(gp, None)
        for gp in self.protos:
            self.build(gp, self.graphs[gp.name])
        return self.graphs[root.name]

    def add_inputs(self, gp, g):
        g._mindir_names = names = {}
        for vi in gp.input:
            if vi.HasField("attr_info") and vi.attr_info.type in _MONADS:
                names[vi.name] = ValueNode(U_MONAD)      # an ordering token: not an input
                continue
            abstract = None
            if len(vi.tensor) == 1:
                t = vi.tensor[0]
                dtype = DATA_TYPES.get(t.data_type)
                shape = tuple(int(d) for d in t.dims)
                if dtype is not None and all(d >= -1 for d in shape):
                    abstract = abstract_tensor(dtype, shape) if -1 not in shape else \
                        AbstractTensor(dtype, shape)          # a dynamic dim: not interned
            elif vi.HasField("attr_info"):
                abstract = abstract_from_attr(vi.attr_info)
            short = vi.name.split(":", 1)[-1]
            names[vi.name] = g.add_parameter(short, abstract)

    def add_weights(self, gp, g):
        """The weights of `gp`: parameters (with a default) of the entry graph `g`; of another
        graph (g None), constants where they are used."""
        names = self.graphs[gp.name]._mindir_names
        for t in gp.parameter:
            what = f"graph '{gp.name}', parameter '{t.name}'"
            raw = self.read_external(t, what) if t.HasField("external_data") else None
            arr = tensor_from_proto(t, what, raw)
            pname = t.ref_key or t.name.split(":", 1)[-1]
            param = Parameter(Tensor(arr), name=pname)
            self.weights[t.name] = param
            if g is None:
                names[t.name] = ValueNode(param)
                continue
            names[t.name] = g.add_parameter(
                pname, abstract_tensor(param.dtype, tuple(arr.shape)), param)

    def lookup(self, gp, g, names, consts, name, node):
        if name in names:
            return names[name]
        if name in consts:
            return consts[name]
        if name in self.graphs:
            return ValueNode(self.graphs[name])
        if name in self.weights:
            return ValueNode(self.weights[name])
        if name in self.constants:                  # a constant another graph defined
            cgp, cnode = self.constants[name]
            return self.constant(cgp, cnode)
        raise MindIRFormatError(f"{_what(gp, node)}: input '{name}' is not defined before use")

    def build(self, gp, g):
        names, consts = g._mindir_names, {}
        self.call_arity = _call_arity(gp)
        for node in gp.node:
            what = _what(gp, node)
            if len(node.output) != 1:
                raise MindIRFormatError(f"{what}: a node must have one output, it has "
                                        f"{len(node.output)}")
            out = node.output[0]
            if node.op_type == "Constant":
                consts[out] = self.constant(gp, node)
                continue
            inputs = [self.lookup(gp, g, names, consts, i, node) for i in node.input]
            self.current_out = out
            names[out] = self.make_node(gp, g, node, inputs, what)
        out_names = [o.name for o in gp.output]
        if len(out_names) != 1:
            raise MindIRFormatError(f"graph '{gp.name}' must have one output, it has "
                                    f"{len(out_names)}")
        result = self.lookup(gp, g, names, consts, out_names[0], gp.output[0])
        g.set_output(result)
        _keep_reachable(g)
        del g._mindir_names

    @staticmethod
    def constant(gp, node):
        attrs = [a for a in node.attribute if a.name == "value"]
        if len(attrs) != 1:
            raise MindIRFormatError(f"{_what(gp, node)}: a Constant needs one 'value' "
                                    f"attribute")
        return ValueNode(attr_to_value(attrs[0], _what(gp, node)))

    def make_node(self, gp, g, node, inputs, what):
        op_type = node.op_type
        abstract = None
        for a in node.attribute:
            if a.name == "shape":
                abstract = abstract_from_attr(a)
        if not op_type.startswith("REF::"):
            attrs = {a.name: attr_to_value(a, what) for a in node.attribute
                     if a.name not in ("shape", "input_names", "output_names")}
            return self.apply(g, self.primitive(op_type, attrs, what), inputs, abstract)
        target = op_type[5:]
        if target in self.prims:
            return self.prim_node(g, self.prims[target], inputs, abstract, what)
        if target in self.graphs:
            return g.new_cnode([ValueNode(self.graphs[target])] + _values(inputs), abstract)
        callee = g._mindir_names.get(target)
        if callee is not None:
            return g.new_cnode([callee] + _values(inputs), abstract)
        raise MindIRFormatError(f"{what}: op_type '{op_type}' names no primitive, graph or "
                                f"node of the file")

    def primitive(self, op, attrs, what):
        try:
            return decode_primitive(op, attrs)
        except MindIRFormatError as e:
            raise MindIRFormatError(f"{what}: {e}") from None

    def prim_node(self, g, proto, inputs, abstract, what):
        op = proto.op_type
        if op in IR_OPS:
            return self.ir_node(g, op, inputs, abstract, what)
        node = self.ms2_node(g, op, inputs, abstract, what)
        if node is not None:
            return node
        if proto.prim_type == _PRIM_FUNCTION and is_prim_function(op):
            try:
                tensors, consts = split_prim_function(op, len(inputs))
                values = {}
                for name, (pos, family) in consts.items():
                    v = inputs[pos]
                    if not isinstance(v, ValueNode):
                        raise MindIRFormatError(f"op '{op}': argument '{name}' must be a "
                                                f"constant")
                    values[name] = (v.value, family)
                key = (proto.name, repr(sorted(values.items())))
                prim = self.prim_cache.get(key)
                if prim is None:
                    prim = self.prim_cache[key] = decode_prim_function(op, values)
            except MindIRFormatError as e:
                raise MindIRFormatError(f"{what}: {e}") from None
            args = [inputs[i] for i in tensors]
            pos = DTYPE_INPUTS.get(op)
            if pos is not None and pos < len(args):
                args[pos] = self.dtype_input(args[pos], op, what)
            return self.apply(g, prim, args, abstract)
        if op in LOWERINGS and primitive_class(op) is None:
            def const_of(i):
                v = inputs[i]
                return (True, v.value) if isinstance(v, ValueNode) else (False, None)
            try:
                prim, args = decode_lowered(op, inputs, const_of)
            except MindIRFormatError as e:
                raise MindIRFormatError(f"{what}: {e}") from None
            return self.apply(g, prim, [inputs[a] if isinstance(a, int) else ValueNode(a[0])
                                        for a in args], abstract)
        if proto.prim_type == _PRIM_FUNCTION:
            raise MindIRFormatError(f"{what}: unknown op '{op}' (a MindSpore primitive "
                                    f"function mindlite does not have)")
        if op == "Custom":
            attrs = {a.name: attr_to_value(a, f"{what}, attribute '{a.name}'")
                     for a in proto.attribute}
            try:
                prim = decode_custom(attrs, abstract)
            except MindIRFormatError as e:
                raise MindIRFormatError(f"{what}: {e}") from None
            return self.apply(g, prim, inputs, abstract)
        prim = self.prim_cache.get(proto.name)
        if prim is None:
            attrs = {a.name: attr_to_value(a, f"{what}, attribute '{a.name}'")
                     for a in proto.attribute if a.name not in ("input_names", "output_names")}
            prim = self.prim_cache[proto.name] = self.primitive(op, attrs, what)
        return self.apply(g, prim, inputs, abstract)

    def ms2_node(self, g, op, inputs, abstract, what):
        """A node for MindSpore 2.x's scalar / sequence / `*Ext` ops (ms2_ops.py), or None."""
        fn = ms2_ops.SCALAR_FNS.get(op)
        if fn is not None:
            return g.new_cnode([ValueNode(ms2_ops.ScalarFn(op, fn))] + _values(inputs),
                               abstract)
        if op == "MatMulExt":
            def apply(prim, args):
                return self.apply(g, prim, [a if isinstance(a, (CNode, ValueNode)) or
                                            hasattr(a, "abstract") else ValueNode(a)
                                            for a in args], None)
            out = ms2_ops.matmul_ext(apply, *_values(inputs), what)
            out.abstract = abstract
            return out
        if op in ms2_ops.LOWERINGS:
            def const_of(i):
                v = inputs[i]
                return (True, v.value) if isinstance(v, ValueNode) else (False, None)
            try:
                prim, args = decode_lowered(op, inputs, const_of, ms2_ops.LOWERINGS)
            except MindIRFormatError as e:
                raise MindIRFormatError(f"{what}: {e}") from None
            return self.apply(g, prim, [inputs[a] if isinstance(a, int) else ValueNode(a[0])
                                        for a in args], abstract)
        return None

    @staticmethod
    def dtype_input(node, op, what):
        value = node.value if isinstance(node, ValueNode) else None
        dtype = DTYPE_OF_ID.get(value) if isinstance(value, int) else None
        if dtype is None:
            raise MindIRFormatError(f"{what}: op '{op}' needs a constant dtype (a MindSpore "
                                    f"TypeId), got {value!r}")
        return ValueNode(dtype)

    def apply(self, g, prim, inputs, abstract):
        return g.new_cnode([ValueNode(prim)] + _values(inputs), abstract)

    def ir_node(self, g, op, inputs, abstract, what):
        def need(n):
            if len(inputs) < n:
                raise MindIRFormatError(f"{what}: {op} needs {n} inputs, got {len(inputs)}")
        if op == "MakeTuple":
            return g.new_cnode([ValueNode(MAKE_TUPLE)] + inputs, abstract)
        if op == "TupleGetItem":
            need(2)
            if not isinstance(inputs[1], ValueNode) or not isinstance(inputs[1].value, int):
                raise MindIRFormatError(f"{what}: TupleGetItem needs a constant int index")
            return g.new_cnode([ValueNode(TUPLE_GETITEM), inputs[0], inputs[1]], abstract)
        if op == "Switch":
            need(3)
            return g.new_cnode([ValueNode(SWITCH)] + inputs[:3], abstract)
        if op in ("Depend", "Load", "Return"):
            need(1)
            return inputs[0]
        if op == "UpdateState":
            return ValueNode(U_MONAD)
        need(1)                                   # Partial(graph, bound...)
        fn = inputs[0]
        if not isinstance(fn, ValueNode) or not isinstance(fn.value, FuncGraph):
            raise MindIRFormatError(f"{what}: Partial needs a graph as its first input")
        wrapper = FuncGraph(f"partial_{fn.value.name}", parent=g)
        extra = [wrapper.add_parameter(f"arg{k}", None)
                 for k in range(self.call_arity.get(self.current_out, 0))]
        wrapper.set_output(wrapper.new_cnode([fn] + _values(inputs[1:]) + extra))
        return ValueNode(wrapper)


def _monad_names(gp):
    """Names of the monads of `gp`: monad inputs and constants, nodes whose abstract is one."""
    out = {vi.name for vi in gp.input
           if vi.HasField("attr_info") and vi.attr_info.type in _MONADS}
    for node in gp.node:
        if any(a.name in ("shape", "value") and a.type in _MONADS for a in node.attribute):
            out.update(node.output)
    return out


def _call_arity(gp):
    """{node output name: how many (non-monad) arguments the function it computes is called
    with}, for the nodes whose value is called (REF::<node>) or picked by a called Switch."""
    arity, monads = {}, _monad_names(gp)
    for node in reversed(gp.node):
        if node.op_type.startswith("REF::") and len(node.output) == 1:
            target = node.op_type[5:]
            arity.setdefault(target, sum(1 for i in node.input if i not in monads))
            k = arity.get(node.output[0])
            if k is not None and len(node.input) == 3:
                for i in node.input[1:]:
                    arity.setdefault(i, k)
    return arity


def _is_monad(node):
    return isinstance(node, ValueNode) and isinstance(node.value, Monad)


def _values(inputs):
    """The inputs without monads (ordering tokens no mindlite op or graph takes)."""
    return [i for i in inputs if not _is_monad(i)]


def _keep_reachable(g):
    """Drop the CNodes of `g` the output does not depend on (monad chains, weight tuples);
    what a graph nested in `g` (a Partial's wrapper) uses of `g` is kept."""
    live, stack, seen = set(), [g.output], set()
    while stack:
        n = stack.pop()
        if isinstance(n, CNode) and n.id not in live:
            if n.graph is g:
                live.add(n.id)
            stack.extend(n.inputs)
        elif isinstance(n, ValueNode) and isinstance(n.value, FuncGraph) \
                and n.value.parent is g and n.value.id not in seen:
            seen.add(n.value.id)
            stack.extend(n.value.order)
    g.order = [n for n in g.order if n.id in live]


def model_to_graph(model, read_external):
    """The entry FuncGraph of ModelProto `model`; `read_external(tensor_proto, what)` returns
    the bytes of an externally stored weight."""
    if not model.HasField("graph"):
        raise MindIRFormatError("the model has no graph")
    return _Reader(model, read_external).read()
