"""FuncGraph -> ONNX ModelProto: `export_onnx_model(graph)` and `export_onnx(graph, file_name)`.

Where it sits: `mindlite.export(net, *inputs, file_format="ONNX")` compiles the net with
jit/export_graph.graph_for_export (inputs first, then weights as ParameterNodes whose
`.default` is the live Parameter; no mindlite fusions) and hands the FuncGraph here. The
delegates of mindlite.lite use `export_onnx_model` to get the proto in memory.

The walk: graph inputs become ONNX graph inputs, weights become initializers (named by
the Parameter's checkpoint name), every CNode is converted by the converter registered for
its primitive's name (onnx/export_ops*.py), MakeTuple / TupleGetItem are resolved at export
time, and `Switch(cond, @t, @f)(args)` becomes an `If` node whose two branches are ONNX
subgraphs (they read outer-scope values directly, as the FuncGraph's free variables do);
a `while` loop's graph becomes a `Loop` node (export_loop.py).
The proto is built with onnx.helper / numpy_helper and checked with onnx.checker; weights
over 2 GiB go to an external data file `<file_name>.data` next to the model (ONNX's own
external-data form, read back by onnx.load / onnxruntime / load_onnx).
"""
import os

import numpy as np

from ..common.abstract import AbstractTensor, abstract_tensor
from ..common.dtype import from_numpy_dtype
from ..common.tensor import Tensor
from ..ir.anf import MAKE_TUPLE, SWITCH, TUPLE_GETITEM, CNode, FuncGraph, IRPrim, ValueNode
from . import _lib
from ._lib import CUSTOM_DOMAIN, onnx_dtype  # noqa: F401 (re-exported)
from .export_loop import emit_loop, loop_form
from .export_op import CONVERTERS, Op, converter  # noqa: F401 (the registry; named here too)

DEFAULT_OPSET = 13
EXTERNAL_DATA_BYTES = (1 << 31) - (1 << 26)
MIN_OPSET, MAX_OPSET = 13, 21
PRODUCER = "mindlite"

class Model:
    """State shared by the main graph and its subgraphs: unique names, initializers."""

    def __init__(self, opset, graph):
        self.opset = opset
        self.initializers = []
        self.used = set()
        self.counter = 0
        self.uses = _count_uses(graph)      # AnfNode id -> number of uses (fusion checks)
        self.inlining = []                  # graphs being inlined (recursion check)
        self.value_infos = {}               # id(node list) -> (the list, its ValueInfos)
        self.domains = set()                # custom op domains used

    def infos_of(self, nodes):
        """The ValueInfos declared in the graph whose node list is `nodes` (the entry holds
        the list: a finished subgraph's freed list must not pass its id to the next one)."""
        hit = self.value_infos.get(id(nodes))
        if hit is None or hit[0] is not nodes:
            hit = self.value_infos[id(nodes)] = (nodes, [])
        return hit[1]

    def fresh(self, hint):
        self.counter += 1
        name = f"{hint}_{self.counter}"
        while name in self.used:
            self.counter += 1
            name = f"{hint}_{self.counter}"
        self.used.add(name)
        return name

    def claim(self, name):
        """Reserve a user-visible name (an input or weight name): as it is, or with a
        suffix when two graph parameters share it."""
        name = name or "input"
        if name in self.used:
            return self.fresh(name)
        self.used.add(name)
        return name


class Emitter:
    """Builds the node list of one ONNX graph (the main graph or an If branch)."""

    def __init__(self, model, graph, parent=None):
        self.model = model
        self.graph = graph
        self.parent = parent
        self.nodes = []
        self.names = {}             # AnfNode id -> ONNX name (str) or tuple (a tuple value)

    @property
    def opset(self):
        return self.model.opset

    def node(self, op_type, inputs, n_out=1, hint=None, **attrs):
        """Append an ONNX node; returns its output name (or tuple of names if n_out > 1)."""
        helper = _lib.onnx().helper
        outs = [self.model.fresh(hint or op_type) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op_type, list(inputs), outs,
                                           name=self.model.fresh(f"node_{op_type}"), **attrs))
        return outs[0] if n_out == 1 else tuple(outs)

    def declare(self, name, abstract):
        """Record `name`'s dtype and shape in this graph's value_info (for custom ops, whose
        outputs no ONNX schema describes)."""
        helper = _lib.onnx().helper
        infos = self.model.infos_of(self.nodes)
        infos.append(helper.make_tensor_value_info(name, onnx_dtype(abstract.dtype),
                                                   [d if d >= 0 else None
                                                    for d in abstract.shape]))

    def const(self, value, dtype=None, hint="const"):
        """A `Constant` node holding `value` (initializers are for weights only, so an
        importer can tell the two apart)."""
        numpy_helper = _lib.onnx().numpy_helper
        arr = np.asarray(value.asnumpy() if isinstance(value, Tensor) else value,
                         dtype=None if dtype is None else np.dtype(dtype))
        return self.node("Constant", [], hint=hint, value=numpy_helper.from_array(arr))

    def ints(self, values, hint="ints"):
        return self.const(np.asarray(values, np.int64).reshape(-1), hint=hint)

    def output_names(self, names, hint):
        """The names this graph's outputs are written under. A value a node of this graph
        makes is an output under its own name: an Identity between it and the output would
        be removed again by onnxruntime's EliminateIdentity, whose rewrite of a value that
        also feeds later nodes breaks some graphs. An Identity is kept where an output needs
        a name of its own: a graph input, initializer or outer-scope value, or a value
        already written as an earlier output."""
        made = {o for n in self.nodes for o in n.output}
        finals = []
        for i, name in enumerate(names):
            if name in made and name not in finals:
                finals.append(name)
            else:
                finals.append(self.node("Identity", [name], hint=f"{hint}{i}"))
        return finals

    def producer(self, name):
        """The ONNX node of this graph whose only output is `name`, or None."""
        for n in reversed(self.nodes):
            if list(n.output) == [name]:
                return n
        return None

    def lookup(self, node):
        e = self
        while e is not None:
            if node.id in e.names:
                return e.names[node.id]
            e = e.parent
        raise ValueError(f"export_onnx: value {node!r} of @{self.graph.name} is used before "
                         f"it is defined")

    def value(self, node, dtype=None):
        """The ONNX name (or tuple) of an AnfNode input; constants become initializers."""
        if isinstance(node, ValueNode):
            v = node.value
            if isinstance(v, (tuple, list)) and not all(isinstance(x, (int, float, bool))
                                                        for x in v):
                return tuple(self.value(ValueNode(x), dtype) for x in v)
            if isinstance(v, (FuncGraph, IRPrim)) or v is None:
                raise ValueError(f"export_onnx: @{self.graph.name} uses {v!r} as a tensor")
            if dtype is None and isinstance(v, Tensor):
                dtype = v.dtype.np
            return self.const(v, dtype)
        return self.lookup(node)

    def emit_graph(self, params_as):
        """Convert every CNode of self.graph; `params_as` maps its parameters to names."""
        for p, name in zip(self.graph.parameters, params_as):
            self.names[p.id] = name
        for cnode in self.graph.order:
            self.names[cnode.id] = self.emit(cnode)
        return self.value(self.graph.output)

    def emit(self, cnode):
        callee = cnode.inputs[0]
        if isinstance(callee, CNode):                  # Switch(...)(args): an If
            return self.emit_if(callee, cnode)
        fn = callee.value if isinstance(callee, ValueNode) else None
        if fn is MAKE_TUPLE:
            return tuple(self.value(a) for a in cnode.args)
        if fn is TUPLE_GETITEM:
            whole = self.value(cnode.args[0])
            item = whole[cnode.args[1].value]
            if item is None:
                raise ValueError(f"export_onnx: output {cnode.args[1].value} of "
                                 f"{_describe(cnode.args[0])} has no ONNX equivalent")
            return item
        if fn is SWITCH:
            return None                                # consumed by the call that follows
        if isinstance(fn, FuncGraph):
            args = [self.value(a) for a in cnode.args]
            form = loop_form(fn)
            if form is not None:
                return emit_loop(self, fn, form, args)
            return self.inline(fn, args)
        name = getattr(fn, "name", None)
        conv = CONVERTERS.get(name)
        if conv is None and hasattr(fn, "custom_type"):
            from .export_ops_activation import export_custom
            conv = export_custom
        if conv is None:
            label = name if isinstance(name, str) else repr(fn)
            raise ValueError(f"export_onnx: primitive '{label}' in @{self.graph.name} "
                             f"has no ONNX converter (supported: "
                             f"{', '.join(sorted(CONVERTERS))})")
        return conv(Op(self, cnode, fn))

    def inline(self, graph, args):
        stack = self.model.inlining
        if graph in stack:
            raise ValueError(f"export_onnx: @{graph.name} calls itself in a form other than "
                             f"a while loop; it cannot be exported to ONNX")
        stack.append(graph)
        sub = Emitter(self.model, graph, self)
        sub.nodes = self.nodes
        try:
            return sub.emit_graph(args)
        finally:
            stack.pop()

    def emit_if(self, switch, call):
        if not (isinstance(switch.inputs[0], ValueNode) and switch.inputs[0].value is SWITCH):
            raise ValueError(f"export_onnx: @{self.graph.name} calls a computed function "
                             f"that is not a Switch's pick")
        cond, tb, fb = switch.args
        cond_name = self.value(cond)
        args = [self.value(a) for a in call.args]
        out_abs = call.abstract
        n_out = len(out_abs) if isinstance(out_abs, tuple) else 1
        branches = [self.branch(b.value, args, out_abs, tag)
                    for b, tag in ((tb, "then"), (fb, "else"))]
        cond_bool = self.node("Cast", [cond_name], to=onnx_dtype_bool())
        outs = self.node("If", [cond_bool], n_out=n_out, hint="if_out",
                         then_branch=branches[0], else_branch=branches[1])
        return outs

    def branch(self, graph, args, out_abs, tag):
        helper = _lib.onnx().helper
        if not isinstance(graph, FuncGraph):
            raise ValueError(f"export_onnx: a Switch in @{self.graph.name} picks {graph!r}, "
                             f"not a graph")
        sub = Emitter(self.model, graph, self)
        out = sub.emit_graph(args)
        outs = out if isinstance(out, tuple) else (out,)
        abstracts = out_abs if isinstance(out_abs, tuple) else (out_abs,)
        infos = []
        for i, (final, ab) in enumerate(zip(sub.output_names(outs, tag + "_out"), abstracts)):
            infos.append(helper.make_tensor_value_info(final, onnx_dtype(ab.dtype), None))
        return helper.make_graph(sub.nodes, self.model.fresh(f"{tag}_{graph.name}"), [], infos,
                                 value_info=self.model.infos_of(sub.nodes))


def _count_uses(root):
    """How often each node is an input or output, over `root` and every nested graph."""
    uses, todo, seen = {}, [root], set()
    while todo:
        g = todo.pop()
        if g.id in seen:
            continue
        seen.add(g.id)
        for node in g.order:
            for i in node.inputs:
                uses[i.id] = uses.get(i.id, 0) + 1
                if isinstance(i, ValueNode) and isinstance(i.value, FuncGraph):
                    todo.append(i.value)
        uses[g.output.id] = uses.get(g.output.id, 0) + 1
    return uses


def onnx_dtype_bool():
    return _lib.onnx().TensorProto.BOOL


def _describe(node):
    if isinstance(node, CNode) and isinstance(node.inputs[0], ValueNode):
        return f"'{getattr(node.inputs[0].value, 'name', node.inputs[0].value)}'"
    return repr(node)


def exportable_primitives():
    """The names of the primitives the exporter converts to standard ONNX ops, which
    onnxruntime runs (a delegate claims kernels of these; a converter may still refuse an
    attribute value, e.g. NHWC data, with a ValueError). Custom ops also export, to the
    ai.mindlite.custom domain, but are not listed: onnxruntime has no kernel for them."""
    from . import export_ops, export_ops_activation, export_ops_array  # noqa: F401
    return frozenset(CONVERTERS)


def export_onnx_model(graph, opset_version=DEFAULT_OPSET):
    """The ONNX ModelProto of `graph` (a FuncGraph from graph_for_export), checked with
    onnx.checker. Raises ValueError naming the primitive that has no ONNX form."""
    onnx = _lib.onnx()
    helper = onnx.helper
    from . import export_ops, export_ops_activation, export_ops_array  # noqa: F401  (converters)
    if not isinstance(graph, FuncGraph):
        raise TypeError(f"export_onnx: graph must be a FuncGraph, got {type(graph).__name__}")
    if not isinstance(opset_version, int) or not MIN_OPSET <= opset_version <= MAX_OPSET:
        raise ValueError(f"export_onnx: opset_version must be an int in [{MIN_OPSET}, "
                         f"{MAX_OPSET}], got {opset_version!r}")
    model = Model(opset_version, graph)
    em = Emitter(model, graph)
    inputs, names = [], []
    for p in graph.parameters:
        name = model.claim(p.name if p.default is None else p.default.name)
        names.append(name)
        if p.default is None:
            inputs.append(helper.make_tensor_value_info(
                name, onnx_dtype(p.abstract.dtype), [d if d >= 0 else f"{name}_dim{i}"
                                                     for i, d in enumerate(p.abstract.shape)]))
        else:
            model.initializers.append(onnx.numpy_helper.from_array(
                np.array(p.default.asnumpy(), order="C"), name))
    out = em.emit_graph(names)
    outs = out if isinstance(out, tuple) else (out,)
    abstracts = graph.output.abstract
    abstracts = abstracts if isinstance(abstracts, tuple) else (abstracts,)
    if any(isinstance(o, tuple) for o in outs):
        raise ValueError("export_onnx: nested tuple outputs cannot be exported")
    outputs = []
    for i, (final, ab) in enumerate(zip(em.output_names(outs, "output_"), abstracts)):
        if not isinstance(ab, AbstractTensor):     # a constant output (5): its Constant's
            arr = np.asarray(ab)                   # tensor (MindSpore refuses these)
            ab = abstract_tensor(from_numpy_dtype(arr.dtype), arr.shape)
        outputs.append(helper.make_tensor_value_info(final, onnx_dtype(ab.dtype), [
            d if d >= 0 else f"output_{i}_dim{j}" for j, d in enumerate(ab.shape)]))
    g = helper.make_graph(em.nodes, graph.name, inputs, outputs, model.initializers,
                          value_info=model.infos_of(em.nodes))
    opsets = [helper.make_opsetid("", opset_version)]
    opsets += [helper.make_opsetid(d, 1) for d in sorted(model.domains)]
    proto = helper.make_model(g, producer_name=PRODUCER, opset_imports=opsets)
    proto.ir_version = min(proto.ir_version, _ir_version_for(opset_version))
    if not is_large(proto):       # a > 2 GiB proto can only be checked once saved
        onnx.checker.check_model(proto)
    return proto


def is_large(proto):
    """Whether the weights pass protobuf's 2 GiB message limit (less a margin for the graph):
    such a model is saved with its weights as external data, as MindSpore does for MINDIR."""
    return sum(len(t.raw_data) for t in proto.graph.initializer) > EXTERNAL_DATA_BYTES


def _ir_version_for(opset):
    """The IR version onnxruntime accepts for the opset (onnx.helper.VERSION_TABLE)."""
    table = _lib.onnx().helper.VERSION_TABLE
    versions = [row[1] for row in table if row[2] == opset]
    return min(versions) if versions else 8


def export_onnx(graph, file_name, opset_version=DEFAULT_OPSET):
    """Write `graph` as the ONNX file `file_name` ('.onnx' appended when missing, as
    MindSpore's export does; mindlite.export(file_format="ONNX") calls this). Returns the
    file name written."""
    if not isinstance(file_name, str) or not file_name:
        raise TypeError(f"export_onnx: file_name must be a non-empty str, got {file_name!r}")
    if not file_name.endswith(".onnx"):
        file_name += ".onnx"
    onnx = _lib.onnx()
    proto = export_onnx_model(graph, opset_version)
    if is_large(proto):
        location = os.path.basename(file_name) + ".data"
        onnx.save_model(proto, file_name, save_as_external_data=True,
                        all_tensors_to_one_file=True, location=location, size_threshold=1024)
        onnx.checker.check_model(file_name)
    else:
        with open(file_name, "wb") as f:
            f.write(proto.SerializeToString())
    return file_name


__all__ = ["export_onnx", "export_onnx_model", "converter"]
