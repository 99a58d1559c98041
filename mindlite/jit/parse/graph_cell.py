"""The parser's call of an `nn.GraphCell` (a loaded model, mindlite.load): its FuncGraph is
inlined into the graph being built, so a Cell holding a loaded model compiles as one graph.

    inline_graph_cell(parser, cell, args, kwargs) -> the call's value (nodes, constants)

The loaded graph's parameters are its inputs (bound to the call's arguments, checked as
GraphCell checks a call: count, Tensor, dtype, static dims) followed by its weights (read as
the holder's graph parameters, as any Parameter the construct reads: Parser.lift). Its
CNodes are copied into the current graph in their order, keeping abstracts, names and source
lines; the graphs it calls (Switch branches, loop graphs, also self-calling ones: a file's
graphs are all top-level) are copied as children of the current graph, each once; nodes the
file gave no abstract get one inferred from their copied inputs. The loaded graph itself is
never changed: the passes that then run over the holder's graph edit the copies only.
"""
from ...common.abstract import AbstractTensor
from ...ir.anf import FUNC, MAKE_TUPLE, SWITCH, TUPLE_GETITEM, CNode, FuncGraph, ValueNode
from ...ir.infer import Folded, infer_call
from ...ir.manager import reachable_graphs
from ...ir.primitive import Primitive


def inline_graph_cell(parser, cell, args, kwargs):
    g = cell.graph
    if kwargs:
        raise parser.error(TypeError(f"For 'GraphCell', inputs are positional, but got keyword "
                                     f"arguments {sorted(kwargs)}"))
    inputs = cell._inputs
    if len(args) != len(inputs):
        raise parser.error(ValueError(f"For 'GraphCell', the graph '{g.name}' takes "
                                      f"{len(inputs)} inputs, but got {len(args)}"))
    mapping = {}
    for i, (a, p) in enumerate(zip(args, inputs)):
        _check_input(parser, i, a, p)
        mapping[p] = parser.as_input(a)
    for p in g.parameters[len(inputs):]:
        mapping[p] = parser.lift(p.default)
    cloner = _Cloner(parser, g, mapping)
    cloner.nodes_into(g, parser.fg)
    return _value(parser, cloner.map(g.output, parser.fg))


def _check_input(parser, i, a, p):
    ab = parser.abstract_of(a)
    if not isinstance(ab, AbstractTensor):
        raise parser.error(TypeError(f"For 'GraphCell', input {i} ('{p.name}') must be a "
                                     f"Tensor, but got {type(a).__name__}"))
    want = p.abstract
    if not isinstance(want, AbstractTensor):
        return
    if ab.dtype != want.dtype:
        raise parser.error(TypeError(f"For 'GraphCell', input {i} ('{p.name}') must have dtype "
                                     f"{want.dtype}, but got {ab.dtype}"))
    shape = tuple(ab.shape)
    if len(shape) != len(want.shape) or any(d >= 0 and d != s
                                            for d, s in zip(want.shape, shape)):
        raise parser.error(ValueError(f"For 'GraphCell', input {i} ('{p.name}') must have "
                                      f"shape {list(want.shape)} (-1: any), but got "
                                      f"{list(shape)}"))


class _Cloner:
    """Copies g's nodes and nested graphs; `mapping`: old node -> new node, `graphs`: old
    nested graph -> its copy (made before its body, so a loop graph's call of itself maps)."""

    def __init__(self, parser, g, mapping):
        self.parser, self.mapping = parser, mapping
        self.own = (set(reachable_graphs(g)) | set(g.children_all())) - {g}
        self.graphs = {}

    def map(self, node, into):
        hit = self.mapping.get(node)
        if hit is not None:
            return hit
        if isinstance(node, ValueNode) and isinstance(node.value, FuncGraph) \
                and node.value in self.own:
            return ValueNode(self.graph(node.value, into), FUNC)
        return node

    def graph(self, old, into):
        new = self.graphs.get(old)
        if new is not None:
            return new
        parent = self.graphs.get(old.parent, self.parser.fg)
        self.parser.graph_count += 1
        new = self.graphs[old] = FuncGraph(f"{self.parser.graph_count}_{old.name}",
                                           parent=parent, location=old.location)
        new.return_loc = old.return_loc
        for p in old.parameters:
            self.mapping[p] = new.add_parameter(p.name, p.abstract, p.default, p.debug)
        self.nodes_into(old, new)
        new.set_output(self.map(old.output, new))
        return new

    def nodes_into(self, old, new):
        for n in old.order:
            ins = [self.map(i, new) for i in n.inputs]
            abstract = n.abstract if n.abstract is not None else self.abstract(n, ins)
            self.mapping[n] = new.new_cnode(ins, abstract, n.debug, n.name, n.side_effect)

    def abstract(self, old, ins):
        """A node the file gave no abstract (graph calls, Switch, some primitives): inferred
        from its copied inputs, as the parser infers the nodes it emits."""
        callee = ins[0]
        fn = callee.value if isinstance(callee, ValueNode) else None
        if fn is SWITCH:
            return FUNC
        if isinstance(fn, FuncGraph):
            return _output_abstract(fn, self.graphs)
        if fn is MAKE_TUPLE:
            return tuple(self.parser.abstract_of(i) for i in ins[1:])
        if fn is TUPLE_GETITEM and isinstance(ins[2], ValueNode):
            return self.parser.abstract_of(ins[1])[ins[2].value]
        if isinstance(callee, CNode) and _ir(callee.inputs[0]) is SWITCH:
            return _output_abstract(callee.inputs[2].value, self.graphs)
        if isinstance(fn, Primitive):
            args = tuple(i.value if isinstance(i, ValueNode) and k in fn.const_inputs
                         else self.parser.abstract_of(i) for k, i in enumerate(ins[1:]))
            try:
                out = infer_call(fn, args)
            except (TypeError, ValueError) as err:
                raise self.parser.error(err) from None
            return self.parser.abstract_of(out.value) if isinstance(out, Folded) else out
        return None


def _ir(node):
    return node.value if isinstance(node, ValueNode) else None


def _output_abstract(g, graphs):
    """A called graph's output abstract (a loop graph still being copied: its original's)."""
    if g.output is not None and g.output.abstract is not None:
        return g.output.abstract
    old = next((o for o, n in graphs.items() if n is g), None)
    out = old.output if old is not None else None
    return out.abstract if out is not None else None


def _value(parser, node):
    """The call's value as the parser holds values: a MakeTuple's items as a tuple, a
    constant as itself, a node as itself."""
    if isinstance(node, ValueNode) and not isinstance(node.value, FuncGraph):
        return node.value
    if isinstance(node, CNode) and isinstance(node.inputs[0], ValueNode) and \
            node.inputs[0].value is MAKE_TUPLE:
        return tuple(_value(parser, i) for i in node.inputs[1:])
    if isinstance(node.abstract, tuple):
        return parser.unpack(node)
    return node
