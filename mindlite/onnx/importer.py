"""ONNX -> FuncGraph: `load_onnx(path_or_model)`.

Where it sits: the reverse of onnx/export.py. The file is parsed and checked with the
`onnx` package (onnx.checker), the default-domain opset must be 13-21 (7-12 are upgraded to
13 with onnx.version_converter: MindSpore's own exporter writes 11), then every node is
converted in order by the importer registered for its op type (onnx/import_ops*.py) into
mindlite primitive CNodes, with abstracts inferred exactly as the graph-mode parser does
(ir/infer.infer_call). The FuncGraph has the layout jit/export_graph gives: the model's
inputs first, then the weights (float initializers) as ParameterNodes whose `.default` is
a Parameter named like the initializer; it runs with nn.GraphCell / onnx.OnnxGraphCell.

Values while importing are AnfNodes or `Const`s (a numpy array known at import time:
integer initializers, Constant nodes, Shape of a static shape). A node whose inputs are all
non-weight Consts is evaluated at import time through the same primitive (constant
folding), so the shape arithmetic exporters emit (Shape -> Gather -> Concat -> Reshape)
becomes constants. `If` becomes Switch over two branch graphs (children of the current one,
reading its values as free variables).
"""
import numpy as np

from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..ir.anf import MAKE_TUPLE, SWITCH, TUPLE_GETITEM, AnfNode, FuncGraph, ValueNode
from ..ir.infer import Folded, infer_call
from ..ir.manager import lint
from . import _lib
from ._lib import CUSTOM_DOMAIN
from .import_ctx import (IMPORTERS, Const, Ctx, ImportError_, importer,  # noqa: F401 (named here too)
                         ms_type, np_type)
from .reader import read_model


MAX_FOLD_ELEMENTS = 1 << 26     # constant folding refuses larger results (damaged files)


class Scope:
    """The values of one graph being built (a branch sees its parents' values)."""

    def __init__(self, graph, parent=None):
        self.graph = graph
        self.parent = parent
        self.values = {}

    def get(self, name):
        s = self
        while s is not None:
            if name in s.values:
                return s.values[name]
            s = s.parent
        raise ImportError_(f"input '{name}' is not defined before it is used")


class Importer:
    def __init__(self, model, source, input_shapes=None):
        self.model = model
        self.source = source
        self.input_shapes = dict(input_shapes or {})
        self.opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
        self.root = None
        self.weights = {}          # initializer name -> ParameterNode
        self.n_graphs = 0

    # ---- values -----------------------------------------------------------------------
    def node_of(self, value, scope):
        """A value as a graph input node: Consts become weights or constant ValueNodes."""
        if isinstance(value, AnfNode):
            return value
        if isinstance(value, Const):
            if value.weight is not None:
                return self.weight(value)
            t = Tensor(_c_array(value.array))
            return ValueNode(t, t._abs)
        if isinstance(value, (tuple, list)) and any(
                isinstance(v, (AnfNode, Const)) for v in value):
            items = [self.node_of(v, scope) for v in value]
            return scope.graph.new_cnode([MAKE_TUPLE] + items, tuple(i.abstract for i in items))
        return ValueNode(value, value)

    def weight(self, const):
        p = self.weights.get(const.weight)
        if p is None:
            param = Parameter(Tensor(_c_array(const.array)), name=const.weight)
            p = self.root.add_parameter(_param_name(const.weight), param._abs, default=param)
            self.weights[const.weight] = p
        return p

    @staticmethod
    def abstract(value):
        if isinstance(value, Const):
            return Tensor(_c_array(value.array))._abs
        return value.abstract

    def call(self, scope, prim, *args):
        """prim(*args) as a value: folded when every tensor input is a non-weight Const
        (never a Custom op: it is a graph node with its own kernel, as graph mode keeps)."""
        custom = hasattr(prim, "custom_type")
        if not custom and not any(_dynamic(a) for a in args):
            ab = infer_call(prim, [_fold_abstract(a) for a in args])
            for a in (ab if isinstance(ab, tuple) else (ab,)):
                size = getattr(a, "size", 0)
                if size < 0 or size > MAX_FOLD_ELEMENTS:
                    raise ImportError_(f"a constant of {list(a.shape)} is too large to compute "
                                       f"at import time")
            out = prim(*[_eager(a) for a in args])
            if isinstance(out, tuple):
                return tuple(Const(o.asnumpy()) for o in out)
            return Const(out.asnumpy())
        nodes = [self.node_of(a, scope) for a in args]
        infer_args = [_infer_arg(n) for n in nodes]
        ab = infer_call(prim, infer_args)
        if isinstance(ab, Folded):
            return Const(np.asarray(ab.value.asnumpy() if isinstance(ab.value, Tensor)
                                    else ab.value))
        node = scope.graph.new_cnode([ValueNode(prim)] + nodes, ab, side_effect=custom)
        if isinstance(ab, tuple):
            return tuple(scope.graph.new_cnode([TUPLE_GETITEM, node, ValueNode(i, i)], a)
                         for i, a in enumerate(ab))
        return node

    # ---- graphs -----------------------------------------------------------------------
    def run(self):
        g = self.model.graph
        self.root = FuncGraph(_safe(g.name or "onnx_model"))
        scope = Scope(self.root)
        inits = {i.name for i in g.initializer}
        names = [vi.name for vi in g.input if vi.name not in inits]
        unknown = set(self.input_shapes) - set(names)
        if unknown:
            raise ValueError(f"input_shapes names {sorted(unknown)}, which are not inputs of "
                             f"the model ({names})")
        for vi in g.input:
            if vi.name in inits:
                continue
            ab = _abstract_of_info(vi, self.input_shapes.get(vi.name))
            scope.values[vi.name] = self.root.add_parameter(_param_name(vi.name), ab)
        numpy_helper = _lib.onnx().numpy_helper
        for init in g.initializer:
            arr = numpy_helper.to_array(init)
            weight = init.name if arr.dtype.kind == "f" else None
            scope.values[init.name] = Const(arr, weight)
        self.import_nodes(g, scope)
        self.root.set_output(self.outputs(g, scope))
        # weights were added as they were first used: inputs stay first, weights follow
        lint(self.root)
        return self.root

    def value_info(self, name):
        """The declared ValueInfo of `name` anywhere in the model (custom op outputs)."""
        if not hasattr(self, "_infos"):
            self._infos = {}
            todo = [self.model.graph]
            while todo:
                g = todo.pop()
                for vi in list(g.value_info) + list(g.output):
                    self._infos.setdefault(vi.name, vi)
                for node in g.node:
                    todo += [a.g for a in node.attribute if a.HasField("g")]
        return self._infos.get(name)

    def outputs(self, g, scope):
        outs = [self.node_of(scope.get(o.name), scope) for o in g.output]
        if len(outs) == 1:
            return outs[0]
        return scope.graph.new_cnode([MAKE_TUPLE] + outs, tuple(o.abstract for o in outs))

    def import_nodes(self, g, scope):
        for node in g.node:
            fn = IMPORTERS.get(node.op_type)
            where = f"node '{node.name or '?'}' (op {node.op_type})"
            if node.domain == CUSTOM_DOMAIN:
                fn = IMPORTERS[CUSTOM_DOMAIN]
            elif node.domain not in ("", "ai.onnx"):
                raise ValueError(f"load_onnx: {self.source}: {where} is in domain "
                                 f"'{node.domain}', which mindlite does not support")
            if fn is None:
                raise ValueError(f"load_onnx: {self.source}: {where}: op type "
                                 f"'{node.op_type}' is not supported (supported: "
                                 f"{', '.join(sorted(IMPORTERS))})")
            ctx = Ctx(self, node, scope)
            try:
                outs = fn(ctx)
            except ValueError as e:
                if str(e).startswith("load_onnx:"):       # from a branch graph: as it is
                    raise
                raise ValueError(f"load_onnx: {self.source}: {where}: {e}") from e
            except Exception as e:        # a kernel refusing folded inputs, bad arrays...
                raise ValueError(f"load_onnx: {self.source}: {where}: "
                                 f"{type(e).__name__}: {e}") from e
            outs = outs if isinstance(outs, (tuple, list)) else [outs]
            for i, name in enumerate(node.output):
                if not name:
                    continue
                if i >= len(outs) or outs[i] is None:
                    raise ValueError(f"load_onnx: {self.source}: {where}: output {i} "
                                     f"('{name}') is not supported")
                scope.values[name] = outs[i]

    def branch(self, scope, graph_proto, tag):
        self.n_graphs += 1
        fg = FuncGraph(f"{self.n_graphs}_{tag}_{self.root.name}", parent=scope.graph)
        sub = Scope(fg, scope)
        self.import_nodes(graph_proto, sub)
        fg.set_output(self.outputs(graph_proto, sub))
        return fg

    def if_node(self, scope, cond, then_g, else_g):
        tg = self.branch(scope, then_g, "if_true")
        fg = self.branch(scope, else_g, "if_false")
        ta, fa = tg.output.abstract, fg.output.abstract
        if _sig(ta) != _sig(fa):
            raise ImportError_(f"the branches give different outputs: {ta} vs {fa}")
        g = scope.graph
        cond_node = self.node_of(cond, scope)
        sw = g.new_cnode([SWITCH, cond_node, ValueNode(tg), ValueNode(fg)], _func())
        out = g.new_cnode([sw], ta)
        if isinstance(ta, tuple):
            return [g.new_cnode([TUPLE_GETITEM, out, ValueNode(i, i)], a)
                    for i, a in enumerate(ta)]
        return [out]


def _func():
    from ..ir.anf import FUNC
    return FUNC


def _sig(ab):
    if isinstance(ab, tuple):
        return tuple(_sig(a) for a in ab)
    return (ab.dtype, tuple(ab.shape))


def _dynamic(a):
    if isinstance(a, AnfNode):
        return True
    if isinstance(a, Const):
        return a.weight is not None
    if isinstance(a, (tuple, list)):
        return any(_dynamic(x) for x in a)
    return False


def _eager(a):
    if isinstance(a, Const):
        return Tensor(_c_array(a.array))
    if isinstance(a, (tuple, list)) and any(isinstance(x, Const) for x in a):
        return type(a)(_eager(x) for x in a)
    return a


def _fold_abstract(a):
    if isinstance(a, Const):
        return Tensor(_c_array(a.array))._abs
    if isinstance(a, (tuple, list)) and any(isinstance(x, Const) for x in a):
        return tuple(_fold_abstract(x) for x in a)
    return a


def _infer_arg(node):
    if isinstance(node, ValueNode):
        return node.abstract if isinstance(node.value, Tensor) else node.value
    return node.abstract


def _safe(name):
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "onnx"


def _param_name(name):
    return _safe(name)


def _abstract_of_info(vi, shape=None):
    """The abstract of a graph input; `shape` (from load_onnx's input_shapes) fixes the
    dimensions the file leaves open (dim_param) and must agree with the fixed ones."""
    from ..common.abstract import abstract_tensor
    tt = vi.type.tensor_type
    if not vi.type.HasField("tensor_type") or not tt.HasField("elem_type"):
        raise ValueError(f"input '{vi.name}' is not a tensor")
    dims = tuple(d.dim_value if d.HasField("dim_value") else -1 for d in tt.shape.dim)
    if shape is not None:
        shape = tuple(shape)
        if len(shape) != len(dims) or any(
                not isinstance(s, int) or s < 0 or (d >= 0 and d != s)
                for s, d in zip(shape, dims)):
            raise ValueError(f"input_shapes['{vi.name}'] = {list(shape)} does not fit the "
                             f"model's shape {[d if d >= 0 else '?' for d in dims]}")
        dims = shape
    return abstract_tensor(ms_type(tt.elem_type), dims)


def load_onnx(path_or_model, input_shapes=None):
    """Read an ONNX model (a file path or an onnx.ModelProto) into a FuncGraph: inputs
    first, then the weights (ParameterNodes with a Parameter default). `input_shapes`
    ({input name: shape}) fixes dimensions the file leaves dynamic, so shape-dependent ops
    import. Raises ValueError naming the file, node and op type for what mindlite cannot
    import."""
    from . import import_loop, import_ops, import_ops_activation, import_ops_array  # noqa: F401
    if input_shapes is not None and not isinstance(input_shapes, dict):
        raise TypeError(f"load_onnx: input_shapes must be a dict of input name -> shape, got "
                        f"{type(input_shapes).__name__}")
    model, source = read_model(path_or_model)
    try:
        return Importer(model, source, input_shapes).run()
    except ValueError as e:
        if str(e).startswith("load_onnx:"):
            raise
        raise ValueError(f"load_onnx: {source}: {e}") from e
    except Exception as e:        # graph inputs of unsupported types, lint errors
        raise ValueError(f"load_onnx: {source}: {type(e).__name__}: {e}") from e


def _c_array(a):
    """A C-contiguous copy keeping 0-d arrays 0-d (np.ascontiguousarray makes them 1-d)."""
    return np.array(a, order="C")
