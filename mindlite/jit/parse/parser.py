"""The graph-mode parser: Python source (ast) -> a FuncGraph specialized to one signature.

Like MindSpore's parser followed by its abstract specializer, but in one walk: the
parser evaluates the function's statements over *values* that are either Python
constants (ints, shapes, Cells, Primitives, constant Tensors) or graph nodes (tensors
computed in the graph, each with its abstract). Constants are computed at compile time
(shape arithmetic, `if` on a constant, `for` over a range or a CellList: unrolled);
every op on a node becomes a CNode whose abstract comes from the primitive's own infer
(ir/infer.py). Python functions called with graph values (functional ops, Tensor
methods, Cell.construct, user helpers, nested functions and lambdas) are parsed too and
inlined, so `x - 1` becomes the same `Sub` primitive call eager makes. Control flow on a
tensor value builds nested graphs: `if` -> Switch over two branch graphs, `while` -> a
loop graph that calls itself. Statements: jit/parse/stmt.py; graphs for tensor control
flow: jit/parse/control.py (imported at its first use); expressions, conditions and calls:
jit/parse/expr.py, cond.py, call.py; item assignment: setitem.py.
"""
import ast
import inspect
import linecache
import textwrap
import types
import weakref

from ... import cache_limits
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ir.anf import AnfNode, FuncGraph, Location, MAKE_TUPLE, TUPLE_GETITEM, ValueNode
from ..errors import located, unsupported
from .call import CallMixin
from .cond import ConditionMixin
from ..dynamic import DynamicMixin
from ..dyn_check import GuardMixin
from .expr import ExprMixin
from .stmt import StmtMixin, Return, parse_source
from .values import Frame, GraphClosure, GraphMethod, is_dyn, is_tensor  # noqa: F401

MAX_INLINE_DEPTH = 60
_SOURCES = {}


def function_ast(fn):
    """(FunctionDef or Lambda node with real line numbers, file) of a Python function."""
    code = fn.__code__
    hit = _SOURCES.get(code)
    if hit is None:
        if len(_SOURCES) >= cache_limits.JIT_SOURCE_CAP:
            cache_limits.drop_oldest_half(_SOURCES, cache_limits.JIT_SOURCE_CAP)
        hit = _from_code_lines(fn, code)
        if hit is not None:
            _SOURCES[code] = hit
            return hit
        try:
            lines, first = inspect.getsourcelines(fn)
            file = inspect.getsourcefile(fn) or code.co_filename
        except (OSError, TypeError):
            raise unsupported(f"calling '{fn.__qualname__}': its source is not available",
                              ()) from None
        node = None
        if code.co_name != "<lambda>":
            try:
                tree = parse_source(textwrap.dedent("".join(lines)))
                ast.increment_lineno(tree, first - 1)
                node = tree.body[0]
            except SyntaxError:
                node = None
        if not isinstance(node, (ast.FunctionDef, ast.Lambda)):
            node = _find_in_file(fn, file)
        hit = _SOURCES[code] = (node, file)
    return hit


_SIGNATURES = weakref.WeakKeyDictionary()


def signature(fn):
    """inspect.signature(fn), kept per function while its defaults are the same objects."""
    try:
        hit = _SIGNATURES.get(fn)
    except TypeError:                          # not weakly referenceable
        return inspect.signature(fn)
    defaults = (getattr(fn, "__defaults__", None), getattr(fn, "__kwdefaults__", None))
    if hit is None or hit[0] is not defaults[0] or hit[1] is not defaults[1]:
        hit = _SIGNATURES[fn] = defaults + (inspect.signature(fn),)
    return hit[2]


def _last_line(code):
    """The last source line any instruction of `code` (nested code included) comes from."""
    last = code.co_firstlineno
    for _, end, _, _ in code.co_positions():
        if end is not None and end > last:
            last = end
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            last = max(last, _last_line(c))
    return last


def _from_code_lines(fn, code):
    """The fast path of function_ast: a def's lines are known from its code object (first
    line, the last line its instructions cover), so only they are parsed: no tokenizing
    (inspect.getsourcelines), no line renumbering. None when that does not give the def
    (a lambda, a wrapper, source not found, lines that do not parse alone): the general path
    runs."""
    file = code.co_filename
    if code.co_name == "<lambda>" or not file.endswith(".py") or hasattr(fn, "__wrapped__"):
        return None                       # (a functools.wraps wrapper: inspect unwraps it)
    lines = linecache.getlines(file, fn.__globals__ if hasattr(fn, "__globals__") else None)
    first, last = code.co_firstlineno, _last_line(code)
    if not lines or last > len(lines):
        return None
    try:
        tree = parse_source("\n" * (first - 1) + textwrap.dedent("".join(lines[first - 1:last])))
    except (SyntaxError, ValueError):
        return None
    node = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(node, ast.FunctionDef) or node.name != code.co_name:
        return None
    return node, file


_FILE_TREES = {}


def _find_in_file(fn, file):
    """The def or lambda starting on the code's first line, from the whole file's ast (a
    lambda's own source lines need not parse on their own; each file is parsed once while
    its lines are unchanged)."""
    code = fn.__code__
    lines = linecache.getlines(file)
    hit = _FILE_TREES.get(file)
    if hit is None or hit[0] is not lines:
        try:
            tree = parse_source("".join(lines))
        except SyntaxError:
            tree = None
        if len(_FILE_TREES) >= cache_limits.JIT_FILE_TREE_CAP:
            cache_limits.drop_oldest_half(_FILE_TREES, cache_limits.JIT_FILE_TREE_CAP)
        hit = _FILE_TREES[file] = (lines, tree)
    tree = hit[1]
    kind = ast.Lambda if code.co_name == "<lambda>" else ast.FunctionDef
    found = [] if tree is None else [
        n for n in ast.walk(tree) if isinstance(n, kind) and code.co_firstlineno in (
            n.lineno, getattr(n, "decorator_list", [n])[0].lineno if
            getattr(n, "decorator_list", None) else n.lineno)
        and (kind is ast.Lambda or n.name == code.co_name)
        and len(n.args.posonlyargs) + len(n.args.args) == code.co_argcount]
    if len(found) != 1:
        raise unsupported(f"'{fn.__qualname__}': its source cannot be located unambiguously "
                          f"({len(found)} candidates on line {code.co_firstlineno})", ())
    return found[0]


def _first_arg(node):
    """The name of a def's or lambda's first positional parameter, or None."""
    params = node.args.posonlyargs + node.args.args
    return params[0].arg if params else None


class Parser(StmtMixin, ExprMixin, ConditionMixin, CallMixin, DynamicMixin, GuardMixin):
    """Builds the specialized graph of one call (see the module docstring)."""

    def __init__(self, name, location):
        self.root = FuncGraph(name, location=location)
        self.fg = self.root
        self.stack = []              # Locations of the inlined call chain (outermost first)
        self.loc = location
        self.params = {}             # id(Parameter) -> ParameterNode of the root graph
        self.branch_depth = 0        # > 0 inside a graph built for a tensor condition
        self.guards = {}             # (id(obj), attr) -> (obj, attr, value) read as constants
        self.locals = {}             # id -> list/dict/set created by the graph code itself
        self.frames = []             # the active Frames (the inlined call chain)
        self.graph_count = 0

    # ---- locations and errors --------------------------------------------------------------
    def debug(self):
        return tuple(self.stack) + ((self.loc,) if self.loc is not None else ())

    def error(self, exc):
        return located(exc, self.debug())

    def unsupported(self, what):
        return unsupported(what, self.debug())

    def at(self, frame, node):
        if hasattr(node, "lineno"):
            self.loc = Location.of(frame.file, node)

    # ---- graph building ----------------------------------------------------------------------
    def new_graph(self, kind):
        self.graph_count += 1
        return FuncGraph(f"{self.graph_count}_{kind}_{self.root.name}", parent=self.fg,
                         location=self.loc)

    def emit(self, inputs, abstract, name=None, side_effect=False):
        return self.fg.new_cnode([self.as_input(i) for i in inputs], abstract, self.debug(),
                                 name, side_effect)

    def as_input(self, v):
        """A value as a node input: nodes as they are, tuples holding nodes via MakeTuple."""
        if isinstance(v, AnfNode):
            return v
        if isinstance(v, (tuple, list)) and is_dyn(v):
            items = [self.as_input(x) for x in v]
            return self.fg.new_cnode([MAKE_TUPLE] + items,
                                     tuple(self.abstract_of(x) for x in items), self.debug())
        return ValueNode(v, self.abstract_of(v))

    def abstract_of(self, v):
        if isinstance(v, AnfNode):
            if isinstance(v, ValueNode) and v.abstract is None:
                return self.abstract_of(v.value)
            return v.abstract
        if isinstance(v, Tensor):
            if v._arr is None:
                v.init_data()
            return v._abs
        if isinstance(v, (tuple, list)):
            return tuple(self.abstract_of(x) for x in v)
        return v

    def unpack(self, node):
        """A node with a tuple abstract as a tuple of TupleGetItem nodes."""
        return tuple(self.emit([TUPLE_GETITEM, node, i], a) for i, a in enumerate(node.abstract))

    def param_node(self, p):
        node = self.params.get(id(p))
        if node is None:
            if p._arr is None:
                p.init_data()
            node = self.root.add_parameter(p.name.replace(".", "_"), p._abs, default=p,
                                           debug=self.debug())
            self.params[id(p)] = node
        return node

    def lift(self, v):
        """Parameters read from attributes or globals become graph parameters."""
        if isinstance(v, Parameter):
            return self.param_node(v)
        if type(v) is tuple and v and any(isinstance(x, Parameter) for x in v):
            return tuple(self.lift(x) for x in v)
        return v

    # ---- functions -----------------------------------------------------------------------------
    def call_function(self, fn, args, kwargs):
        """Parse and inline a Python function called with graph values."""
        node, file = function_ast(fn)
        closure = {}
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    closure[name] = cell.cell_contents
                except ValueError:
                    pass
        frame = Frame(file, fn.__globals__, closure, name=fn.__qualname__)
        frame.first_arg = _first_arg(node)
        try:
            bound = signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            raise self.error(TypeError(f"For '{fn.__qualname__}', {e}")) from None
        bound.apply_defaults()
        frame.vars.update(bound.arguments)
        return self.run_body(node, frame)

    def call_closure(self, clo, args, kwargs):
        """Call a def or lambda that was defined inside graph code (its frame is the closure)."""
        node = clo.node
        a = node.args
        names = [p.arg for p in a.posonlyargs + a.args]
        frame = Frame(clo.frame.file, clo.frame.globals, clo.frame.closure,
                      enclosing=clo.frame, name=clo.__name__)
        frame.first_arg = _first_arg(node)
        if len(args) > len(names) and a.vararg is None:
            raise self.error(TypeError(f"For '{clo.__name__}', expected at most {len(names)} "
                                       f"positional arguments, but got {len(args)}"))
        frame.vars.update(zip(names, args))
        if a.vararg is not None:
            frame.vars[a.vararg.arg] = tuple(args[len(names):])
        for k, v in kwargs.items():
            frame.vars[k] = v
        for name, d in zip(names[len(names) - len(clo.defaults):], clo.defaults):
            frame.vars.setdefault(name, d)
        for p, d in zip(a.kwonlyargs, clo.kw_defaults):
            if d is not None:
                frame.vars.setdefault(p.arg, d)
        missing = [n for n in names + [p.arg for p in a.kwonlyargs] if n not in frame.vars]
        if missing:
            raise self.error(TypeError(f"For '{clo.__name__}', missing arguments {missing}"))
        return self.run_body(node, frame)

    def run_body(self, node, frame):
        if len(self.stack) >= MAX_INLINE_DEPTH:
            raise self.error(RecursionError(
                f"Graph mode inlines calls; '{frame.name}' nests deeper than "
                f"{MAX_INLINE_DEPTH} calls (recursion on a tensor value is not supported)"))
        if self.loc is not None:
            self.stack.append(self.loc)
        saved = self.loc
        self.frames.append(frame)
        try:
            if isinstance(node, ast.Lambda):
                self.at(frame, node)
                return self.expr(node.body, frame)
            status = self.block(node.body, frame, [])
            return status.value if isinstance(status, Return) else None
        finally:
            self.frames.pop()
            self.loc = saved
            if saved is not None:
                self.stack.pop()

    # ---- the entry -------------------------------------------------------------------------
    def parse_transform(self, fn, args, kwargs, file):
        """Compile a function made by grad/value_and_grad/GradOperation/vmap (jit(grad(f))):
        its graph is the transform's (grad.special_call), not its Python source."""
        self.loc = Location(file, fn.__code__.co_firstlineno)
        self.root.location = self.loc
        return self.call_value(fn, tuple(args), kwargs)

    def parse_entry(self, fn, args, kwargs, arg_names):
        """Parse `fn` called with `args` (graph parameters for tensors, constants otherwise)."""
        node, file = function_ast(fn)
        frame = Frame(file, fn.__globals__, {}, name=fn.__qualname__)
        frame.first_arg = _first_arg(node)
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    frame.closure[name] = cell.cell_contents
                except ValueError:
                    pass
        bound = signature(fn).bind(*args, **kwargs)
        bound.apply_defaults()
        frame.vars.update(bound.arguments)
        self.loc = Location.of(file, node)
        span = self.loc
        self.root.location = Location(file, span.line, end_line=span.end_line)
        self.frames.append(frame)
        if isinstance(node, ast.Lambda):
            self.root.return_loc = self.loc
            return self.expr(node.body, frame)
        status = self.block(node.body, frame, [])
        return status.value if isinstance(status, Return) else None

