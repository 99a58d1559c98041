"""Lowering a compiled FuncGraph to a KernelGraph, and running it with `_C.GraphRunner`.

    lower(graph) -> KernelGraph      raises NotLowerable(reason) for what stays interpreted
(program.py turns a KernelGraph into the GraphProgram that Compiled.run uses.)

What lowers: a graph without control flow, i.e. no child graphs (no Switch, loop or graph
calls) and no Print; every CNode a Primitive call, MakeTuple or TupleGetItem (those two
vanish: they only route values). Everything else runs on the interpreter (interpreter.py),
which also stays the oracle, and always runs while the grad recorder records (the tape
needs each primitive call).

Each Primitive node is lowered as eager lowers its first call (pynative/forward.py): an
OpRunInfo over stand-in inputs of the node's input abstracts -> cast_inputs,
make_input_abstracts, infer_output_abstract (a provider's InferShape included) ->
CPUSession.compile_op, so the kernel is the one eager selects (provider and Custom kernels,
`when=` predicates, the context's policy and provider) with its params bound once. A node
becomes one step (see csrc/bind/graph_runner.cc):
  KERNEL   runtime-allocated outputs: fn(inputs, outputs, params), outputs planned
           (memory_plan.py); scalar inputs become constant arrays converted once
  ALLOC    kernels returning their outputs (views such as Reshape): the result may alias
           its inputs' buffers. In-place writers of graph inputs (Assign, AssignAdd, the
           optimizers: _written) are ALLOC steps with `own`: the runner gives the written
           Parameters private arrays first where a view shares them (copy-on-write, as
           their eager __call__; no write log is needed: graphs run here only while the
           grad recorder is off)
  PRIM     the eager call prim(*Tensors) for what a kernel step cannot express: primitives
           with their own __call__, side effects (Dropout, BatchNorm), check_elim, dynamic
           shapes, list inputs, input casts, constant results. Its result may alias its
           inputs too.
Parameters are graph inputs read live at each step (in-place updates by earlier steps are
seen). Lowered graphs are dropped when kernels are (un)registered or the context changes
(the runner caches' listeners).

For benchmarks (benchmarks/jit_forward.py): `program.ENABLED = False` runs every graph on the
interpreter (the @jit baseline); after a first call, `jf.compiled(args, {})._program` is the
GraphProgram (`.kg` the steps, `.plan` the MemoryPlan, `.reason` why a graph was not
lowered, `.held_bytes()` the arena memory kept between runs). Measured here (2 shared
cores, noisy): LeNet batch 1 about eager's time (its ~135 us are the kernels'), the
10-layer 1024-wide MLP at batch 512 4 MiB at peak vs eager's 6 MiB and the interpreter's 60.
"""
import numpy as np

from .. import _C
from ..common.abstract import AbstractTensor
from ..common.api import PYNATIVE
from .session import session_factory
from ..context import CONTEXT
from ..ir.anf import MAKE_TUPLE, TUPLE_GETITEM, ValueNode
from ..kernels import registry
from ..kernels.kernel_def import KernelDef
from ..ir.primitive import Primitive
from ..common.signature import K, L, T
from ..ir.rules import has_side_effect

KERNEL, ALLOC, PRIM = 0, 1, 2
PARAM, CONST, PLANNED, EXTERNAL = "param", "const", "planned", "external"
_EPOCH = [0]                # bumped when cached kernel selections go stale


def _stale():
    _EPOCH[0] += 1


registry.LISTENERS.append(_stale)
CONTEXT.listeners.append(_stale)


class NotLowerable(Exception):
    """The graph (or one of its nodes) stays on the interpreter; the message says why."""


class Value:
    """One value of a KernelGraph: a graph input, a constant, a planned buffer (a KERNEL
    step's output) or an external result (ALLOC / PRIM: `aliases` = the planned buffers it
    may share memory with)."""
    __slots__ = ("index", "kind", "abstract", "const", "aliases")

    def __init__(self, index, kind, abstract, const=None, aliases=()):
        self.index, self.kind, self.abstract = index, kind, abstract
        self.const, self.aliases = const, aliases

    @property
    def nbytes(self):
        return self.abstract.size * self.abstract.np.itemsize

    def __repr__(self):
        return f"%{self.index}:{self.kind}"


class KernelStep:
    """One launch: kind, callable, input refs (value indexes; PRIM: nested tuples too),
    output value indexes, bound params (passed after the arrays; the last len(kwnames) by
    keyword), error hook; `inplace`: inputs the output may share a buffer with (the kernel
    allows out aliasing them); `own`: graph inputs the kernel writes in place (ALLOC),
    given private arrays first where a view shares them (common/buffers.own_buffers)."""
    __slots__ = ("kind", "fn", "ins", "outs", "params", "on_error", "prim", "kernel",
                 "inplace", "kwnames", "own")

    def __init__(self, kind, fn, ins, outs, prim, kernel=None, params=(), on_error=None,
                 inplace=(), kwnames=None, own=()):
        self.kind, self.fn, self.ins, self.outs = kind, fn, ins, outs
        self.prim, self.kernel, self.params, self.on_error = prim, kernel, params, on_error
        self.inplace, self.kwnames, self.own = inplace, kwnames, own

    def __repr__(self):
        name = "PRIM" if self.kind == PRIM else getattr(self.kernel, "name", "?")
        return f"{list(self.outs)} = {self.prim.name}[{name}]{self.ins}"


class KernelGraph:
    """Execution order (steps), values, the graph inputs' value indexes (`args`), the outputs
    (`output`: a value index, or nested tuples of them as the graph returns them)."""

    def __init__(self, name):
        self.name = name
        self.steps = []
        self.values = []
        self.args = []
        self.output = None
        self._consts = {}

    def new_value(self, kind, abstract, const=None, aliases=()):
        v = Value(len(self.values), kind, abstract, const, aliases)
        self.values.append(v)
        return v.index

    def const(self, value):
        key = id(value)
        hit = self._consts.get(key)
        if hit is None or self.values[hit].const is not value:
            hit = self._consts[key] = self.new_value(CONST, None, value)
        return hit

    def roots(self, ref):
        """The planned buffers a ref (value index or nested tuple) may use."""
        if isinstance(ref, tuple):
            return frozenset().union(*(self.roots(r) for r in ref))
        v = self.values[ref]
        return frozenset((ref,)) if v.kind == PLANNED else frozenset(v.aliases)

    def __repr__(self):
        lines = [f"KernelGraph {self.name}: args {self.args}"]
        lines += [f"  {s!r}" for s in self.steps]
        lines.append(f"  return {self.output}")
        return "\n".join(lines)


class _Const:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def lower(graph):
    """The KernelGraph of `graph` (see the module docstring); NotLowerable otherwise."""
    if graph.children:
        raise NotLowerable(f"@{graph.name} has control flow (child graphs)")
    kg = KernelGraph(graph.name)
    env = {}
    dummies = {}
    for p in graph.parameters:
        if not isinstance(p.abstract, AbstractTensor) or p.abstract.is_dynamic:
            raise NotLowerable(f"parameter {p.name} is not a tensor of static shape")
        env[p.id] = kg.new_value(PARAM, p.abstract)
        kg.args.append(env[p.id])
        if p.default is not None:
            dummies[env[p.id]] = p.default

    def ref(node):
        if isinstance(node, ValueNode):
            return _Const(node.value)
        if node.id not in env:
            raise NotLowerable(f"{node!r} is not defined in @{graph.name}")
        return env[node.id]

    for node in graph.order:
        callee = node.inputs[0]
        fn = callee.value if isinstance(callee, ValueNode) else None
        refs = [ref(i) for i in node.inputs[1:]]
        if fn is MAKE_TUPLE:
            env[node.id] = tuple(kg.const(r.value) if isinstance(r, _Const) else r for r in refs)
        elif fn is TUPLE_GETITEM:
            base, index = refs
            if not isinstance(base, tuple) or not isinstance(index, _Const):
                raise NotLowerable(f"TupleGetItem on {node.inputs[1]!r}")
            env[node.id] = base[index.value]
        elif isinstance(fn, Primitive):
            env[node.id] = _lower_prim(kg, node, fn, refs, dummies)
        else:
            raise NotLowerable(f"{node!r} calls {fn!r}")
    out = ref(graph.output)
    kg.output = kg.const(out.value) if isinstance(out, _Const) else out
    return kg


def _dummy(kg, r, dummies):
    """A stand-in call argument for ref `r` (inference and selection read abstracts only)."""
    if isinstance(r, _Const):
        return r.value
    if isinstance(r, tuple):
        return tuple(_dummy(kg, x, dummies) for x in r)
    d = dummies.get(r)
    if d is None:
        v = kg.values[r]
        if v.kind == CONST:
            return v.const
        a = v.abstract
        if not isinstance(a, AbstractTensor) or a.is_dynamic:
            raise NotLowerable(f"value {r} is not a static tensor ({a!r})")
        d = dummies[r] = _C.wrap(np.empty(a.shape, a.np), a)
    return d


def _eager_only(prim):
    return (type(prim).__call__ is not Primitive.__call__ or prim.dynamic_shape
            or (has_side_effect(prim) and prim.name != "Custom"
                and type(prim).__name__ != "Custom"))


def _written(kg, prim, refs):
    """The graph inputs an in-place primitive writes (Assign, AssignAdd, the optimizers:
    their __call__ is copy-on-write around Primitive.__call__, which a step with `own`
    does too), with refs as that __call__ passes them on; None where the eager call must
    run (a written value that is not a graph input, a subclass with its own __call__)."""
    from ..ops.operations.creation_ops import _AssignBase
    from ..ops.operations.optim_ops import _ApplyBase
    pos = getattr(prim, "inplace_inputs", None)
    if not pos or prim.dynamic_shape or type(prim).__call__ not in (_ApplyBase.__call__,
                                                                    _AssignBase.__call__):
        return None
    written = tuple(refs[i] for i in pos if i < len(refs))
    if not all(type(r) is int and kg.values[r].kind == PARAM for r in written):
        return None
    if isinstance(prim, _AssignBase) and isinstance(refs[1], _Const):
        try:
            refs[1] = _Const(prim.scalar_value(kg.values[refs[0]].abstract.dtype,
                                               refs[1].value))
        except ValueError:
            return None
    return written


def _lower_prim(kg, node, prim, refs, dummies):
    written = _written(kg, prim, refs)
    args = tuple(_dummy(kg, r, dummies) for r in refs)
    if written is None and _eager_only(prim):
        return _prim_step(kg, node, prim, refs)
    try:
        if prim.check_elim(*args)[0]:
            return _prim_step(kg, node, prim, refs)
        info = PYNATIVE.prepare(prim, args)        # the eager executor's, through its slot
    except Exception as err:          # the interpreter runs it (and reports any real error)
        raise NotLowerable(f"{prim.name}: {type(err).__name__}: {err}") from None
    out = info.output_abstract
    outs_abs = out if isinstance(out, tuple) else (out,)
    if (not all(isinstance(a, AbstractTensor) and a.value is None and not a.is_dynamic
                for a in outs_abs) or L in info.kinds or all(k == K for k in info.kinds)
            or any(k == T and isinstance(a, _C.TensorBase) and a._abs.dtype is not t
                   for k, a, t in zip(info.kinds, args, info.types))):
        return _prim_step(kg, node, prim, refs)
    values = CONTEXT.values
    session = session_factory(values["device_target"])
    compiled = session.compile_op(info, values["backend_policy"], values["kernel_provider"])
    kernel, launch = compiled.kernel, compiled.launch
    ins = []
    for kind, r, value in zip(info.kinds, refs, info.values):
        if kind == K:
            continue
        if kind == T:
            ins.append(kg.const(r.value) if isinstance(r, _Const) else r)
        else:                                   # a Python scalar: converted once
            ins.append(kg.const(value))
    ins = tuple(ins)
    fn, params, kwnames = _callable(kernel, launch, prim, info)
    if written is not None and kernel.alloc != "kernel":    # it would not write in place
        return _prim_step(kg, node, prim, refs)
    if kernel.alloc == "kernel":
        outs = tuple(kg.new_value(EXTERNAL, a, aliases=kg.roots(ins)) for a in outs_abs)
        kg.steps.append(KernelStep(ALLOC, fn, ins, outs, prim, kernel, params,
                                   getattr(launch, "c_error", None), kwnames=kwnames,
                                   own=written or ()))
    else:
        outs = tuple(kg.new_value(PLANNED, a) for a in outs_abs)
        inplace = ()
        if len(outs) == 1 and _aliasing_ok(kernel):
            inplace = tuple(i for i in ins if kg.values[i].kind == PLANNED
                            and _same(kg.values[i].abstract, outs_abs[0]))
        kg.steps.append(KernelStep(KERNEL, fn, ins, outs, prim, kernel, params,
                                   getattr(launch, "c_error", None), inplace, kwnames))
    return outs[0] if isinstance(out, AbstractTensor) else outs


def _callable(kernel, launch, prim, info):
    """(fn, params, kwnames) calling what `launch` calls without its Python frame: a C
    kernel with its positional params, a built-in Python kernel with its params by keyword
    (KernelDef.bind: fn(*arrays, **params)), else the launch itself. A KernelDef subclass
    with its own bind (the generic Custom kernels: kernels/custom.py) builds its launch from
    the primitive, not from `fn` (None there): its launch is called."""
    c_kernel = getattr(launch, "c_kernel", None)
    if c_kernel is not None:
        return c_kernel, tuple(getattr(launch, "c_params", ())), None
    if (kernel.builtin and kernel.kind == "function" and launch is not kernel.fn
            and callable(kernel.fn) and type(kernel).bind is KernelDef.bind):
        params = prim.kernel_params(*info.input_abstracts)
        if params:
            return kernel.fn, tuple(params.values()), tuple(params)
    return launch, (), None


def _prim_step(kg, node, prim, refs):
    ins = tuple(_prim_ref(kg, r) for r in refs)
    outs_abs = node.abstract if isinstance(node.abstract, tuple) else (node.abstract,)
    if not all(isinstance(a, AbstractTensor) for a in outs_abs):
        raise NotLowerable(f"{prim.name} gives {node.abstract!r}, not tensors")
    aliases = kg.roots(ins)
    outs = tuple(kg.new_value(EXTERNAL, a, aliases=aliases) for a in outs_abs)
    kg.steps.append(KernelStep(PRIM, prim, ins, outs, prim))
    return outs if isinstance(node.abstract, tuple) else outs[0]


def _prim_ref(kg, r):
    if isinstance(r, _Const):
        return kg.const(r.value)
    if isinstance(r, tuple):
        return tuple(_prim_ref(kg, x) for x in r)
    return r


def _same(a, b):
    return a is b or (a.dtype is b.dtype and tuple(a.shape) == tuple(b.shape))


_ALIASING = []


def _aliasing_ok(kernel):
    """Kernels whose output may be one of their same-shape inputs, element for element: the
    C elementwise builtins and the C BiasAdd (they check overlap: csrc/bind/array_args.cc
    readable(same_ok)) and numpy's BiasAdd (np.add with out= handles overlap). Anything else:
    no."""
    if not _ALIASING:
        from ..kernels.cpu.nn_numpy import bias_add_numpy
        _ALIASING.append(frozenset(map(id, list(_C.UNARY_KERNELS.values())
                                       + list(_C.BINARY_KERNELS.values())
                                       + [bias_add_numpy, _C.bias_add])))
    return kernel.builtin and id(kernel.fn) in _ALIASING[0]
