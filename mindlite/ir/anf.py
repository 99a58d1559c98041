"""MindIR's node types: AnfNode, ValueNode, ParameterNode, CNode, and FuncGraph.

    <ANode>   ::= <ValueNode> | <ParameterNode>
    <CNode>   ::= (<AnfNode> ...)            input 0 is the callee: a Primitive, a FuncGraph,
                                             an IR primitive (MakeTuple, Switch, ...) or a
                                             CNode whose value is a FuncGraph (a Switch's pick)
    <AnfNode> ::= <CNode> | <ANode>

A FuncGraph is a function: parameters, CNodes in `order` (the order they were parsed in,
inputs before users: the order side effects keep), and an `output`. A nested graph (an
`if` branch, a loop) is a ValueNode of its parent and may use the parent's nodes directly:
those are its free variables. Every node carries `abstract` (what inference knows: an
AbstractTensor, a constant, a tuple of those, or FUNC) and `debug` (the source locations
that produced it, outermost call first). Later stages (passes, the compiled runner, graph
autodiff) read and rewrite these objects through ir/manager.py.
"""
import itertools
import linecache

_IDS = itertools.count(1)


class Location:
    """A source span: file, first/last line, first/last column (as MindSpore's
    `file:line, col~col` or `file:line~line, col~col`), and the first line's text."""
    __slots__ = ("file", "line", "col", "end_line", "end_col")

    def __init__(self, file, line, col=0, end_line=None, end_col=None):
        self.file = file
        self.line = line
        self.col = col
        self.end_line = line if end_line is None else end_line
        self.end_col = end_col

    @classmethod
    def of(cls, file, node):
        """The span of an ast node (a def's span starts at its first decorator)."""
        decorators = getattr(node, "decorator_list", None)
        line = decorators[0].lineno if decorators else node.lineno
        return cls(file, line, getattr(node, "col_offset", 0),
                   getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None))

    @property
    def text(self):
        return linecache.getline(self.file, self.line).rstrip("\n")

    @property
    def span(self):
        lines = f"{self.line}" if self.end_line == self.line else f"{self.line}~{self.end_line}"
        return lines if self.end_col is None else f"{lines}, {self.col}~{self.end_col}"

    def __repr__(self):
        return f"{self.file}:{self.line}"


class FuncAbstract:
    """The abstract of a value that is a function (a FuncGraph, a Switch's pick)."""
    __repr__ = __str__ = (lambda self: "Func")


FUNC = FuncAbstract()


class AnfNode:
    """Base of every node: `abstract`, `debug` (tuple of Locations), a unique id."""
    __slots__ = ("abstract", "debug", "id", "graph", "__weakref__")

    def __init__(self, graph=None, abstract=None, debug=()):
        self.graph = graph
        self.abstract = abstract
        self.debug = debug
        self.id = next(_IDS)


class ValueNode(AnfNode):
    """A constant: scalar, string, None, Tensor, Type, tuple, Primitive or FuncGraph."""
    __slots__ = ("value",)

    def __init__(self, value, abstract=None):
        super().__init__(None, abstract)
        self.value = value

    def __repr__(self):
        return f"ValueNode({self.value!r})"


class ParameterNode(AnfNode):
    """A graph input; `default` is the live Parameter for weights (read at every run)."""
    __slots__ = ("name", "default")

    def __init__(self, graph, name, abstract, default=None, debug=()):
        super().__init__(graph, abstract, debug)
        self.name = name
        self.default = default

    def __repr__(self):
        return f"ParameterNode({self.name})"


class CNode(AnfNode):
    """An application: inputs[0] called with inputs[1:]; `name` is the variable it was bound
    to in the source, if any (printed as CNode_<id>$name)."""
    __slots__ = ("inputs", "name", "side_effect")

    def __init__(self, graph, inputs, abstract=None, debug=(), name=None, side_effect=False):
        super().__init__(graph, abstract, debug)
        self.inputs = list(inputs)
        self.name = name
        self.side_effect = side_effect

    @property
    def callee(self):
        return self.inputs[0]

    @property
    def args(self):
        return self.inputs[1:]

    def __repr__(self):
        return f"CNode_{self.id}({self.inputs[0]!r}, ...)"


class IRPrim:
    """A primitive of the IR itself (not an op with a kernel): its meaning is structural."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


MAKE_TUPLE = IRPrim("MakeTuple")
TUPLE_GETITEM = IRPrim("TupleGetItem")
SWITCH = IRPrim("Switch")
PRINT = IRPrim("Print")
IR_PRIMS = (MAKE_TUPLE, TUPLE_GETITEM, SWITCH, PRINT)


class FuncGraph:
    """A function: parameters, CNodes in parse order, an output; `parent` for nested graphs."""

    def __init__(self, name, parent=None, location=None):
        self.id = next(_IDS)
        self.name = name
        self.parent = parent
        self.location = location
        self.parameters = []
        self.order = []
        self.output = None
        self.return_loc = None
        self.children = []
        if parent is not None:
            parent.children.append(self)

    def add_parameter(self, name, abstract, default=None, debug=()):
        p = ParameterNode(self, name, abstract, default, debug)
        self.parameters.append(p)
        return p

    def new_cnode(self, inputs, abstract=None, debug=(), name=None, side_effect=False):
        node = CNode(self, [i if isinstance(i, AnfNode) else ValueNode(i) for i in inputs],
                     abstract, debug, name, side_effect)
        self.order.append(node)
        return node

    def set_output(self, node):
        self.output = node if isinstance(node, AnfNode) else ValueNode(node)

    def ancestors(self):
        g = self.parent
        while g is not None:
            yield g
            g = g.parent

    @property
    def free_variables(self):
        """Nodes of enclosing graphs used by this graph's CNodes or output (in first-use order)."""
        own = {self} | set(self.children_all())
        seen, out = set(), []
        used = [i for node in self.order for i in node.inputs]   # and the output itself
        for i in used + ([self.output] if self.output is not None else []):
            if i.graph is not None and i.graph not in own and i.id not in seen:
                seen.add(i.id)
                out.append(i)
        return out

    def children_all(self):
        for c in self.children:
            yield c
            yield from c.children_all()

    def __repr__(self):
        return f"FuncGraph(@{self.name})"
