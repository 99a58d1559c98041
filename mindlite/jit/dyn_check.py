"""Is a graph compiled for dynamic dimensions right for this call's sizes? (guards that
re-specialize on failure)

GuardMixin (the parser's part): where Python needs a dynamic value, the hint decides and a
guard records it. A graph compiled from a dynamic input_signature was specialized to the
sizes of the call that compiled it (the hint, jit/dynamic.py): a shape rule gave a static
dimension for all three probe sizes, the hint decided `if n % 2 == 0`, a primitive's infer
folded a constant.
Before the graph runs for other sizes, `holds(compiled, abstracts)` checks all of it for
those sizes, without running a kernel: it walks the graphs as the executor would, giving
every node the abstract its primitive's own infer gives for the real input abstracts
(Switch: both branches; a loop: its body, until the carried abstracts repeat), checks that
every static dimension of every node is the one inferred, and evaluates every guard the
parser recorded (a decision, a folded constant) on the real sizes. Any difference, or an
infer that fails, is a failure: the call gets a graph of its own (Specializations).

    Specializations       the graphs of one dynamic signature: per call, the first whose
                          check held for these sizes (remembered, bounded), else a new
                          compile with this call as the hint
"""
import operator
import threading
from collections import OrderedDict

from ..common.abstract import AbstractTensor
from ..common.tensor import Tensor
from ..ir.anf import (MAKE_TUPLE, PRINT, SWITCH, TUPLE_GETITEM, AnfNode, CNode, FuncGraph,
                      ValueNode)
from ..ir.infer import Folded, infer_call
from ..ir.primitive import Primitive
from .dynamic import UNKNOWN, AbstractDynInt, ScalarOp, is_dyn_int

MAX_GRAPHS = 8           # specializations kept per dynamic signature
MAX_SIZES = 256          # sizes remembered per specialization (checked ones and failed ones)
MAX_REENTRY = 16         # a loop whose carried abstracts keep changing: not checked


class GuardMixin:
    """The parser's part that takes decisions on dynamic values for the hint's sizes and
    records them as guards (checked per call by `holds`)."""

    def dyn_equal(self, fn, left, right):
        """`==` / `!=` on dynamic dimensions or shapes holding them (`y.shape != (n,)` in an
        op's argument check): one value is always equal to itself; anything else is decided
        by the hint and guarded (dyn_decide)."""
        def same(a, b):
            if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
                return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
            return a is b or (not is_dyn_int(a) and not is_dyn_int(b) and _same(a, b))
        if same(left, right):
            return fn is operator.eq
        return self.dyn_decide(fn, left, right, "comparing a dynamic dimension")

    def dyn_decide(self, fn, left, right, what):
        """fn(left, right) where Python needs the answer now and an operand is a value known
        only at run time: the hint's answer, recorded as a guard (jit/dyn_check.py checks it
        for every other size before the graph runs there). Without a hint: an error."""
        a, b = self.hint_value(left), self.hint_value(right)
        if a is UNKNOWN or b is UNKNOWN or not getattr(self, "hinted", False):
            raise self.error(ValueError(
                f"{what} (a value known only at run time) where Python needs its value: graph "
                f"mode needs a constant here (a model file is one graph for every size)"))
        try:
            out = fn(a, b)
        except Exception as err:
            raise self.error(err) from None
        self.dyn_guard(("cmp", fn, left, right, out))
        return out

    def hint_value(self, v):
        """The value `v` has for the hint's sizes (UNKNOWN where that is not known)."""
        if is_dyn_int(v):
            return v.abstract.probes[2]
        if isinstance(v, (tuple, list)):
            items = [self.hint_value(x) for x in v]
            return UNKNOWN if any(x is UNKNOWN for x in items) else type(v)(items)
        if isinstance(v, AnfNode):
            return UNKNOWN
        return v

    def same_probes(self, node, values, what):
        """`node` stands for one of `values` (the branches of an `if` on a tensor, a loop's
        entry and iteration values): its probe shapes are theirs, which must agree for the
        hint's sizes (a size that depends on the branch taken is known only at run time)."""
        probes = self.__dict__.setdefault("dyn_probes", {})
        found = [probes.get(v) for v in values if isinstance(v, AnfNode)]
        if not found or found[0] is None or not getattr(self, "hinted", False):
            if found and found[0] is not None:
                probes[node] = found[0]
            return
        if any(f is None or f[2] is not found[0][2] for f in found[1:]):
            shapes = [list(f[2].shape) if f is not None else "unknown" for f in found]
            raise self.error(TypeError(
                f"{what} give shapes {shapes} for this call: graph mode needs them equal"))
        probes[node] = found[0]

    def dyn_guard(self, guard):
        self.__dict__.setdefault("dyn_guards", []).append((self.fg, guard))

    def dyn_int_value(self, v, what):
        """A dynamic dimension where Python needs an int (range(n), int(n)): the hint's
        value, guarded to be the value (a graph per size)."""
        return self.dyn_decide(lambda a, b: a, v, None, what)


class _Fail(Exception):
    pass


_PENDING = object()      # the value of a loop's call while its body is being walked


class Specializations:
    """The compiled graphs of one dynamic signature (see the module docstring)."""

    def __init__(self):
        self.entries = []                  # [Compiled, OrderedDict(sizes -> bool)]
        self.lock = threading.Lock()       # (a check runs outside it: two threads may both
                                           # check one size; both find the same answer)

    def pick(self, abstracts):
        """The first graph right for these input abstracts, or None."""
        key = tuple(abstracts)
        for compiled, seen in list(self.entries):
            ok = seen.get(key)
            if ok is None:
                ok = holds(compiled, abstracts)
                with self.lock:
                    seen[key] = ok
                    while len(seen) > MAX_SIZES:
                        seen.popitem(last=False)
            if ok and compiled.valid():
                return compiled
        return None

    def add(self, compiled, abstracts):
        with self.lock:
            self.entries.append((compiled, OrderedDict(((tuple(abstracts), True),))))
            del self.entries[:-MAX_GRAPHS]

    def valid(self):
        return True


def specialized(jf, key, entry, call, actual, leaves, cache_size):
    """A dynamic signature's graph for this call's sizes: the first compiled one that holds
    for them, else a new one with this call as the hint (`jf`: the JitFunction, `entry`:
    its Specializations for `key` or None, `call`: (args as keyed, kwargs, holds), `leaves`:
    the call's Tensors in graph parameter order)."""
    args, kwargs, holds = call
    hinted = actual is not None and all(t._arr is not None for t in leaves)
    abstracts = [t._abs for t in leaves] if hinted else None
    if entry is not None and hinted:
        found = entry.pick(abstracts)
        if found is not None:
            return found
    compiled = jf._compile(args, kwargs, holds, actual if hinted else None)
    if entry is None or jf.cache.get(key) is not entry:
        entry = jf.cache[key] = Specializations()
        while len(jf.cache) > cache_size:
            jf.cache.popitem(last=False)
    if hinted:
        entry.add(compiled, abstracts)
    return compiled


def has_placeholder(value):
    """Whether an argument (as keyed) holds a placeholder with dynamic dimensions."""
    if isinstance(value, Tensor):
        return value._arr is None and value._abs.is_dynamic
    if isinstance(value, (tuple, list)):
        return any(has_placeholder(v) for v in value)
    if isinstance(value, dict):
        return any(has_placeholder(v) for v in value.values())
    return False


def holds(compiled, abstracts):
    """Whether `compiled` (a graph compiled with a hint) is right for inputs of these
    abstracts (the Tensor arguments' abstracts, in the graph's parameter order)."""
    graph = compiled.graph
    env = {}
    it = iter(abstracts)
    try:
        for p in graph.parameters:
            env[p.id] = p.default._abs if p.default is not None else next(it)
        walker = _Walker(compiled.dyn_guards)
        walker.walk(graph, env, ())
        walker.leftover_guards(env)
    except (_Fail, StopIteration):
        return False
    return True


class _Walker:
    def __init__(self, guards):
        self.guards = {}
        for graph, guard in guards:
            self.guards.setdefault(graph.id, []).append(guard)
        self.checked = set()
        self.active = {}

    def walk(self, graph, env, parents):
        """Abstract values of `graph`'s nodes in `env` (its parameters bound); returns the
        output's. `parents`: the enclosing graphs' envs (free variables)."""
        chain = (env,) + parents
        for node in graph.order:
            env[node.id] = self.node(node, chain)
        for guard in self.guards.get(graph.id, ()):
            self.guard(guard, chain)
        self.checked.add(graph.id)
        return self.value(graph.output, chain)

    def leftover_guards(self, env):
        """Guards of graphs no walk reached (inlined or dropped by a pass): their values are
        computed from the root's."""
        for gid, guards in self.guards.items():
            if gid not in self.checked:
                for guard in guards:
                    self.guard(guard, (env,))

    def value(self, node, chain):
        if isinstance(node, ValueNode):
            return node.value
        for env in chain:
            if node.id in env:
                return env[node.id]
        if isinstance(node, CNode):               # removed by a pass, read by a guard
            value = self.node(node, chain)
            chain[0][node.id] = value
            return value
        raise _Fail()

    def node(self, node, chain):
        callee = node.inputs[0]
        fn = callee.value if isinstance(callee, ValueNode) else self.value(callee, chain)
        args = [self.value(i, chain) for i in node.inputs[1:]]
        if fn is MAKE_TUPLE:
            return tuple(args)
        if fn is TUPLE_GETITEM:
            base = args[0]
            return _PENDING if base is _PENDING else base[args[1]]
        if fn is SWITCH:
            return ("switch", args[1], args[2])
        if fn is PRINT:
            return None
        if isinstance(fn, ScalarOp):
            try:
                return fn(*args)
            except ZeroDivisionError:
                raise _Fail() from None
        if isinstance(fn, tuple) and fn[:1] == ("switch",):
            outs = [self.call(g, args, chain) for g in fn[1:]]
            outs = [o for o in outs if o is not _PENDING]
            if not outs:
                return _PENDING
            if any(not _equal(o, outs[0]) for o in outs[1:]):
                raise _Fail()                    # a shape that depends on the branch taken
            return outs[0]
        if isinstance(fn, FuncGraph):
            return self.call(fn, args, chain)
        if isinstance(fn, Primitive):
            return self.prim(node, fn, args)
        raise _Fail()

    def call(self, graph, args, chain):
        if not isinstance(graph, FuncGraph) or len(graph.parameters) != len(args):
            raise _Fail()
        key = (graph.id, _key(args))
        if key in self.active:
            return _PENDING
        count = self.active.setdefault(("n", graph.id), 0)
        if count > MAX_REENTRY:
            raise _Fail()
        self.active[("n", graph.id)] = count + 1
        self.active[key] = True
        try:
            env = {p.id: a for p, a in zip(graph.parameters, args)}
            return self.walk(graph, env, chain)   # (called inside its parent: free vars)
        finally:
            del self.active[key]

    def prim(self, node, prim, args):
        if any(a is _PENDING for a in args):
            raise _Fail()
        ins = tuple(a if i in prim.const_inputs else _abstract(a) for i, a in enumerate(args))
        try:
            out = infer_call(prim, ins)
        except Exception:
            raise _Fail() from None
        value = out.value if isinstance(out, Folded) else out
        if not _fits(node.abstract, value):
            raise _Fail()
        return value

    def guard(self, guard, chain):
        kind = guard[0]
        if kind == "node":
            self.value(guard[1], chain)            # (node() checks its abstract)
            return
        if kind == "cmp":
            _, fn, left, right, outcome = guard
            a, b = self.operand(left, chain), self.operand(right, chain)
            try:
                ok = fn(a, b) == outcome
            except Exception:
                ok = False
        else:                                     # ("fold", prim, args, value)
            _, prim, args, value = guard
            vals = [self.operand(a, chain) for a in args]
            ins = tuple(v if i in prim.const_inputs else _abstract(v)
                        for i, v in enumerate(vals))
            try:
                out = infer_call(prim, ins)
                ok = isinstance(out, Folded) and _same(out.value, value)
            except Exception:
                ok = False
        if not ok:
            raise _Fail()

    def operand(self, v, chain):
        if isinstance(v, AnfNode):
            return self.value(v, chain)
        if isinstance(v, (tuple, list)):
            return type(v)(self.operand(x, chain) for x in v)
        return v


def _abstract(v):
    if isinstance(v, Tensor):
        return v._abs
    if isinstance(v, (tuple, list)):
        return tuple(_abstract(x) for x in v)
    return v


def _key(args):
    out = []
    for a in args:
        if isinstance(a, AbstractTensor):
            out.append(a)
        elif isinstance(a, (tuple, list)):
            out.append(_key(a))
        else:
            try:
                hash(a)
                out.append(a)
            except TypeError:
                out.append(id(a))
    return tuple(out)


def _fits(expected, got):
    """The node's compiled abstract allows the abstract inferred for the real sizes."""
    if isinstance(expected, AbstractTensor):
        if not isinstance(got, AbstractTensor) or got.dtype is not expected.dtype \
                or len(got.shape) != len(expected.shape):
            return False
        return all(d < 0 or d == e for d, e in zip(expected.shape, got.shape))
    if isinstance(expected, AbstractDynInt):
        return isinstance(got, int)
    if isinstance(expected, tuple):
        return isinstance(got, tuple) and len(got) == len(expected) and all(
            _fits(x, y) for x, y in zip(expected, got))
    if isinstance(expected, (int, float, str)) or expected is None:
        return _same(expected, got)
    return True


def _equal(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return a is b or _same(a, b)


def _same(x, y):
    try:
        return type(x) is type(y) and bool(x == y)
    except Exception:
        return False

