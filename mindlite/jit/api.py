"""`mindlite.jit` and GRAPH_MODE Cells: compile per input signature, cache, run.

    @jit                         (or jit(fn), jit(input_signature=...)(fn), on methods too)
    def f(x, y): ...
    f(x, y)      signature = (dtype, shape) of every Tensor argument, the value of every
                 constant (ints, tuples, None...), the identity of objects (Cells)
                 -> cached compiled graph (bounded LRU, CACHE_SIZE per function) or a new
                 compile: parse (jit/parse/parser.py) -> DCE -> lint -> cache; a compile that fails
                 leaves nothing in the cache.
    f.graph(x, y)                the compiled FuncGraph (print it with ir.dump_ir)
Under set_context(mode=GRAPH_MODE), Cell.__call__ runs `construct` this way (the
cell's Parameters are graph parameters read at every run, so updates are seen); a
construct the parser cannot compile yet runs eagerly with a warning (jit/cell_graph.py).
"""
import functools
import itertools
import re
import types
from collections import OrderedDict

from .._C import guards_hold
from ..common.tensor import Tensor
from ..context import CONTEXT
from .passes.device import device_passes
from ..ir.anf import MAKE_TUPLE, Location
from ..ir.manager import lint
from ..ir.primitive import _hashable
from .dynamic import apply_signature, is_placeholder
from .dyn_check import Specializations, has_placeholder, specialized
from ..backend.interpreter import run_graph
from .guards import fast_guards
from ..backend.program import program_for
from .passes.pipeline import compile_passes
from .errors import UnsupportedSyntaxError
from .parse.parser import Parser, function_ast, is_dyn, signature
from .parse.values import is_transform
from ..ir.anf import AnfNode

CACHE_SIZE = 64
_COUNTER = itertools.count(1)


class Compiled:
    """One specialized graph and how to feed it."""

    def __init__(self, graph, weights, holds, template, guards=(), dyn_guards=()):
        self.graph = graph
        self.dyn_guards = dyn_guards      # (graph, guard): what a hint decided (dyn_check.py)
        self.guards = guards              # (obj, attr, value): attributes the graph baked in
        self.template = template          # the output's structure (see _pack)
        self.weights = weights            # ParameterNodes read from live Parameters
        self.holds = holds                # objects whose identity is in the key
        self.fast = fast_guards(guards, weights, _GONE)    # the C check's form (guards.py)

    def valid(self):
        """False when the graph is stale: an attribute it read as a constant changed
        (e.g. `training` after set_train) or a weight's dtype/shape changed."""
        fast = self.fast
        if fast is not None and guards_hold(*fast):
            return True
        if not self._valid():
            return False
        self.fast = fast_guards([(o, n, getattr(o, n, _GONE), s) for o, n, _, s in self.guards],
                                self.weights, _GONE)
        return True

    def _valid(self):
        for obj, name, value, snap in self.guards:
            cur = getattr(obj, name, _GONE)
            if cur is not value and not _same_value(cur, value):
                return False
            if snap is not None and _snapshot(cur) != snap:
                return False
        for node in self.weights:
            p = node.default
            if p._arr is None:
                p.init_data()
            if p._abs is not node.abstract:
                return False
        return True

    def run(self, leaves):
        args = list(leaves)
        values = []
        it = iter(args)
        for p in self.graph.parameters:
            values.append(p.default if p.default is not None else next(it))
        prog = program_for(self)          # the lowered C runner (backend/program.py), or None
        out = prog(values) if prog is not None else run_graph(self.graph, values)
        if self.template == ("leaf", 0):
            return out
        return _unpack(self.template, out)


def _pack(value, leaves, consts=False):
    """The structure of a graph's result; values computed in the graph become leaves (with
    `consts`, constants too: a model file's outputs are all graph outputs)."""
    if isinstance(value, AnfNode):
        leaves.append(value)
        return ("leaf", len(leaves) - 1)
    if isinstance(value, (tuple, list)) and (consts or is_dyn(value)):
        return (type(value), [_pack(v, leaves, consts) for v in value])
    if isinstance(value, dict) and (consts or is_dyn(value)):
        return ("dict", [(k, _pack(v, leaves, consts)) for k, v in value.items()])
    if consts:
        leaves.append(value)
        return ("leaf", len(leaves) - 1)
    return ("const", value)


def _unpack(template, out):
    kind, body = template
    if kind == "leaf":
        return out[body]
    if kind == "const":
        return body
    if kind == "dict":
        return {k: _unpack(t, out) for k, t in body}
    return kind(_unpack(t, out) for t in body)


_GONE = object()


def _snapshot(value):
    """What a mutable container held (identities), so appending a Cell is seen."""
    if isinstance(value, dict):
        return tuple((k, id(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(id(v) for v in value)
    return None


def _same_value(a, b):
    if a is b:
        return True
    if type(a) is not type(b) or not isinstance(a, (int, float, str, tuple, types.MethodType,
                                                     types.BuiltinMethodType)):
        return False
    try:
        if isinstance(a, (float, tuple)):
            return _hashable(a) == _hashable(b)     # -0.0 is not 0.0 (1 / -0.0 is -inf)
        return bool(a == b)
    except Exception:
        return False


def _key(value, holds):
    if isinstance(value, Tensor):
        if value._arr is None and not is_placeholder(value):
            value.init_data()
        return ("T", value._abs)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__,) + tuple(_key(v, holds) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple((k, _key(v, holds)) for k, v in sorted(value.items()))
    h = _hashable(value)
    if isinstance(h, tuple) and h[:1] == ("id",) or not _is_value(value):
        holds.append(value)
        return ("id", id(value))
    return (type(value), h)


def _identity_signature(args):
    """Per argument its abstract (a Tensor holding data) or itself (an object _key keys by
    identity: a Cell...); None when an argument is keyed by value or structure."""
    sig = []
    for a in args:
        if isinstance(a, Tensor):
            if a._arr is None:
                return None
            sig.append(a._abs)
        elif isinstance(a, (tuple, list, dict)) or _is_value(a):
            return None
        else:
            sig.append(a)
    return sig


def _is_value(v):
    return v is None or isinstance(v, (int, float, bool, str, bytes, slice, type(Ellipsis))) \
        or type(v).__module__.startswith("mindlite.common.dtype")


def _flatten(value, out):
    if isinstance(value, Tensor):
        out.append(value)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _flatten(v, out)
    elif isinstance(value, dict):
        for k in sorted(value):
            _flatten(value[k], out)


class JitFunction:
    """A function compiled to graphs, one per input signature (see the module docstring)."""

    def __init__(self, fn, input_signature=None, const_outputs=False):
        # a bound method (`jit(net.construct)`): compiled as its function with the object
        # as the first argument, as a method decorated in its class is
        self.bound = fn.__self__ if isinstance(fn, types.MethodType) else None
        self.fn = fn.__func__ if self.bound is not None else fn
        self.input_signature = input_signature
        self.const_outputs = const_outputs   # export: constant results are graph outputs too
        self.cache = OrderedDict()
        self._last = None      # (identity signature, device, entry) of the last plain call
        functools.update_wrapper(self, fn)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    def __call__(self, *args, **kwargs):
        if self.bound is not None:
            args = (self.bound,) + args
        device = CONTEXT.values["device_target"]
        sig = None if kwargs or self.input_signature is not None else \
            _identity_signature(args)
        last = self._last
        # the last call's entry when every argument is the same object or a Tensor of the
        # same abstract (what _key would say, at a fraction of its cost)
        if sig is not None and last is not None and last[1] == device \
                and len(sig) == len(last[0]) and all(a is b for a, b in zip(sig, last[0])) \
                and last[2].valid():
            return last[2].run([a for a in args if isinstance(a, Tensor)])
        spec = args if self.input_signature is None else \
            apply_signature(self.fn, self.input_signature, args)
        entry = self.compiled(spec, kwargs, args)
        if sig is not None:
            self._last = (sig, device, entry)
        leaves = []
        _flatten(list(args) + [kwargs[k] for k in sorted(kwargs)], leaves)
        return entry.run(leaves)

    def graph(self, *args, **kwargs):
        """The FuncGraph compiled for this call's signature."""
        if self.bound is not None:
            args = (self.bound,) + args
        actual = args
        if self.input_signature is not None:
            args = apply_signature(self.fn, self.input_signature, args)
        return self.compiled(args, kwargs, actual).graph

    def compiled(self, args, kwargs, actual=None):
        """The graph for a call (`args` as keyed: placeholders where the signature has
        dynamic dimensions; `actual`: the call's own arguments, their sizes the hint)."""
        holds = []
        key = (_key((args, kwargs), holds), CONTEXT.values["device_target"])
        entry = self.cache.get(key)
        if isinstance(entry, Specializations) or (entry is None and has_placeholder(args)):
            leaves = []
            _flatten(list(actual if actual is not None else args)
                     + [kwargs[k] for k in sorted(kwargs)], leaves)
            return specialized(self, key, entry, (args, kwargs, holds), actual, leaves,
                               CACHE_SIZE)
        if entry is not None and entry.valid():
            try:
                self.cache.move_to_end(key)
            except KeyError:              # evicted by another thread's compile meanwhile
                pass
            return entry
        try:
            entry = self._compile(args, kwargs, holds)
        except UnsupportedSyntaxError as err:
            # a stale graph (an attribute changed, e.g. to_float) no longer compiles
            err.recompiling = self.cache.pop(key, None) is not None
            raise
        self.cache[key] = entry
        try:
            while len(self.cache) > CACHE_SIZE:
                self.cache.popitem(last=False)
        except KeyError:                  # another thread emptied it meanwhile
            pass
        return entry

    def _compile(self, args, kwargs, holds, hints=None):
        fn = self.fn
        _, file = function_ast(fn)
        name = re.sub(r"\W", "_", f"{next(_COUNTER)}_{fn.__module__}_{fn.__qualname__}")
        parser = Parser(name, Location(file, fn.__code__.co_firstlineno))
        names = list(signature(fn).parameters)
        hints = hints if hints is not None else [None] * len(args)
        pargs = [_as_params(parser, a, names[i] if i < len(names) else f"arg{i}", h)
                 for i, (a, h) in enumerate(zip(args, hints))]
        pkw = {k: _as_params(parser, kwargs[k], k, kwargs[k] if hints[0:1] != [None] else None)
               for k in sorted(kwargs)}
        result = parser.parse_transform(fn, pargs, pkw, file) if is_transform(fn) else \
            parser.parse_entry(fn, pargs, pkw, names)
        parser.fg = parser.root
        leaves = []
        template = _pack(result, leaves, self.const_outputs)
        if template == ("leaf", 0):
            parser.root.set_output(parser.as_input(leaves[0]))
        elif not self.const_outputs:
            parser.root.set_output(parser.as_input(tuple(leaves)))
        else:                                 # a MakeTuple even when every item is constant
            items = [parser.as_input(v) for v in leaves]
            parser.root.set_output(parser.fg.new_cnode(
                [MAKE_TUPLE] + items, tuple(parser.abstract_of(v) for v in items),
                parser.debug()))
        with device_passes():                          # the target device's pass set
            pass_guard = compile_passes(parser.root)  # jit/passes: pipeline, save_graphs
        lint(parser.root)
        weights = [p for p in parser.root.parameters if p.default is not None]
        guards = [(o, n, v, _snapshot(v)) for o, n, v in parser.guards.values()] + [pass_guard]
        return Compiled(parser.root, weights, holds, template, guards,
                        tuple(getattr(parser, "dyn_guards", ())))


def _as_params(parser, value, name, hint=None):
    """Graph parameters for an argument's Tensors (`hint`: the call's own argument, whose
    sizes a placeholder's dynamic dimensions are compiled for; None: no hint)."""
    if isinstance(value, Tensor):
        node = parser.root.add_parameter(name, value._abs, debug=(parser.root.location,)
                                         if parser.root.location else ())
        if value._abs.is_dynamic:
            parser.hint_param(node, hint._abs if isinstance(hint, Tensor)
                              and hint._arr is not None else None)
        return node
    if isinstance(value, (tuple, list)):
        hints = hint if isinstance(hint, (tuple, list)) and len(hint) == len(value) \
            else [None] * len(value)
        return type(value)(_as_params(parser, v, f"{name}_{i}", h)
                           for i, (v, h) in enumerate(zip(value, hints)))
    if isinstance(value, dict):
        return {k: _as_params(parser, value[k], f"{name}_{k}",
                              hint.get(k) if isinstance(hint, dict) else None)
                for k in sorted(value)}
    return value
