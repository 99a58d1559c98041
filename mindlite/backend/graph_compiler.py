"""GraphCompiler: a graph-mode FuncGraph -> a CompiledGraph for the context's device.

    compile_graph(graph, parallel=False) -> CompiledGraph   (None: control flow, interpreted)

Stages, as MindSpore's GraphCompiler:
  1. lowering + kernel selection   backend/lowering.lower under the context's device_target:
                                   each node's kernel comes from the device's session
                                   (backend/device_session.py), so a node the device has no kernel
                                   for already carries a CPU kernel (heterogeneous split)
  2. split                         kernel mode: the device's steps go through its
                                   KernelExecutor.split_graph / optimize_graph hooks; graph
                                   mode: maximal runs of supported nodes become sub-FuncGraphs
                                   compiled as SuperKernels (backend/segments.py)
  3. copies                        a value used on another device than its producer's gets a
                                   copy step (h2d / d2h) at the boundary, once per value
  4. streams                       per device, its res_manager.num_streams: a step continues
                                   its producer's stream when it is that stream's last step,
                                   else takes the next stream (round robin)
  5. memory                        memory_plan.plan on each device's view of the steps
                                   (values planned where produced; graph outputs escape on CPU);
                                   plans reported per device by memory_report()
  6. arrows                        data arrows (producer -> reader), control arrows: stream
                                   order, slot reuse (the next occupant's writer waits for the
                                   last readers of the previous one), side effects in order
The CompiledGraph runs sequentially or on the GraphScheduler (backend/graph_scheduler.py).
"""
from ..context import CONTEXT
from ..device.registry import get_device_context
from .device_session import DeviceKernelDef
from .lowering import ALLOC, CONST, EXTERNAL, KERNEL, PARAM, PLANNED, PRIM, \
    NotLowerable, Value, lower
from .memory_plan import flat_refs, plan

CPU = "CPU"


class Step:
    """One launch. kind: "kernel" / "alloc" / "prim" (CPU, as the jit runner's KERNEL/ALLOC/
    PRIM), "device" (a kernel-mode device kernel on device addresses), "super" (a graph-mode
    SuperKernel: host arrays in and out), "h2d" / "d2h" (copies). `own`: the graph inputs
    an "alloc" step writes in place (owned first, as the jit runner does; a side effect
    ordered as "prim" steps are). `ctx`: the DeviceContext of `device` (None on CPU), resolved
    once by compile_graph so that running a step looks nothing up."""
    __slots__ = ("index", "kind", "device", "fn", "ins", "outs", "params", "kwnames", "prim",
                 "kernel", "stream", "inplace", "on_error", "own", "ctx")

    def __init__(self, kind, device, fn, ins, outs, prim=None, kernel=None, params=(),
                 kwnames=None, inplace=(), on_error=None, own=()):
        self.kind, self.device, self.fn, self.ins, self.outs = kind, device, fn, ins, outs
        self.prim, self.kernel, self.params, self.kwnames = prim, kernel, params, kwnames
        self.inplace, self.on_error, self.own = inplace, on_error, own
        self.index = self.stream = 0
        self.ctx = None

    @property
    def name(self):
        if self.kind in ("h2d", "d2h"):
            return self.kind
        return getattr(self.prim, "name", None) or getattr(self.kernel, "name", self.kind)

    def __repr__(self):
        return (f"{list(self.outs)} = {self.name}[{self.kind}@{self.device}:{self.stream}]"
                f"{self.ins}")


class CompiledGraph:
    """steps (execution order), values (jit kernel_graph.Value), loc (value -> device),
    args (graph inputs' values), output (value index or nested tuples), plans (device ->
    MemoryPlan), num_streams (device -> count), preds (step -> steps it waits for: data and
    control arrows), data_preds (data arrows only)."""

    def __init__(self, name, target, steps, values, loc, args, output):
        self.name, self.target, self.steps, self.values = name, target, steps, values
        self.loc, self.args, self.output = loc, args, output
        self.plans, self.num_streams, self.preds, self.data_preds = {}, {}, [], []

    def devices(self):
        return sorted({s.device for s in self.steps} | {CPU})

    def copies(self):
        return [s for s in self.steps if s.kind in ("h2d", "d2h")]

    def memory_report(self):
        """{device: {"buffers", "slots", "bytes", "unplanned_bytes"}}: planned buffers, the
        slots they share and the bytes those hold; bytes a plan without reuse would take."""
        out = {}
        for dev, p in self.plans.items():
            naive = sum(self.values[v].nbytes for v in p.slot_of)
            out[dev] = {"buffers": len(p.slot_of), "slots": len(p.slot_bytes),
                        "bytes": p.total_bytes, "unplanned_bytes": naive}
        return out

    def run(self, args):
        from .graph_scheduler import run_sequential
        return run_sequential(self, args)

    def __repr__(self):
        lines = [f"CompiledGraph {self.name} on {self.target.name}: args {self.args}"]
        lines += [f"  {s!r}" for s in self.steps]
        lines.append(f"  return {self.output}")
        return "\n".join(lines)


def compile_graph(graph, parallel=False):
    """The CompiledGraph of a FuncGraph for the context's device (None: not lowerable)."""
    target = get_device_context(CONTEXT.values["device_target"])
    try:
        kg = lower(graph)
    except NotLowerable:
        return None
    steps = _device_steps(kg, target, graph)
    values = list(kg.values)
    loc = [CPU] * len(values)
    for s in steps:
        for v in s.outs:
            loc[v] = s.device if s.kind == "device" else CPU     # super: host arrays out
    steps, output = _insert_copies(steps, values, loc, kg.output, target)
    for i, s in enumerate(steps):
        s.index = i
        s.ctx = target if s.device != CPU else None
    cg = CompiledGraph(kg.name, target, steps, values, loc, tuple(kg.args), output)
    _assign_streams(cg)
    _plan_memory(cg)
    _arrows(cg, parallel)
    return cg


PARALLEL = None     # graph mode on a plugin device: None sequential, else a GraphScheduler


def device_program(compiled, epoch):
    """What jit's Compiled.run calls on a plugin device (backend/program.program_for): the
    CompiledGraph's runner, compiled once per kernel-selection epoch; None when the graph
    stays on the interpreter (control flow), whose eager ops then run on the device."""
    target = CONTEXT.values["device_target"]
    cached = getattr(compiled, "_device_program", None)
    if cached is not None and cached[0] == epoch and cached[1] == target:
        return cached[2]
    cg = compile_graph(compiled.graph, parallel=PARALLEL is not None)
    run = None
    if cg is not None:
        sched = PARALLEL

        def run(values):
            return cg.run(values) if sched is None else sched.run(cg, values)
        run.compiled_graph = cg
    compiled._device_program = (epoch, target, run)
    return run


def _device_steps(kg, target, graph):
    """kg's steps as Steps with their devices; the device's part through its hooks."""
    steps = []
    for ks in kg.steps:
        on_dev = isinstance(ks.kernel, DeviceKernelDef) and ks.kind != PRIM
        if on_dev and target.kernel_executor is not None:
            steps.append(Step("device", target.name, ks.kernel.device_kernel, ks.ins, ks.outs,
                              ks.prim, ks.kernel))
        elif on_dev:                            # graph mode: grouped into SuperKernels below
            steps.append(Step("super", target.name, None, ks.ins, ks.outs, ks.prim, ks.kernel))
        else:
            kind = {KERNEL: "kernel", ALLOC: "alloc", PRIM: "prim"}[ks.kind]
            steps.append(Step(kind, CPU, ks.fn, ks.ins, ks.outs, ks.prim, ks.kernel,
                              tuple(ks.params), ks.kwnames, ks.inplace, ks.on_error, ks.own))
    if target.kernel_executor is not None and target.name != CPU:
        ke = target.kernel_executor
        mine = [s for s in steps if s.kind == "device"]
        keep = {id(s) for s in ke.split_graph(mine)}
        for s in mine:
            if id(s) not in keep:                # the device gave it back: its CPU kernel
                cpu = s.kernel.cpu_graph
                s.kind, s.device, s.fn, s.kernel = "kernel", CPU, cpu.launch, cpu.kernel
        mine = [s for s in steps if s.kind == "device"]
        optimized = ke.optimize_graph(mine)
        if optimized is not None:
            if len(optimized) != len(mine):
                from ..device.base import PluginError
                raise PluginError(f"Device plugin '{target.plugin}': optimize_graph returned "
                                  f"{len(optimized)} steps for {len(mine)}; it may replace "
                                  f"steps (kernels) but not add or drop them")
            rest = iter(optimized)
            steps = [next(rest) if s.kind == "device" else s for s in steps]
    elif target.graph_executor is not None:
        from .segments import super_kernels
        steps = super_kernels(kg, steps, graph, target)
    return steps


def _insert_copies(steps, values, loc, output, target):
    """Copy steps where a value is read on another device than where it lives (graph inputs,
    constants and CPU steps' values live on CPU; "super" steps take host arrays)."""
    copies = {}
    out_steps = []

    def on(v, dev):
        if isinstance(v, tuple):
            return tuple(on(x, dev) for x in v)
        if loc[v] == dev:
            return v
        hit = copies.get((v, dev))
        if hit is None:
            a = values[v].abstract or _const_abstract(values[v].const)
            hit = copies[(v, dev)] = len(values)
            values.append(Value(hit, PLANNED, a))
            loc.append(dev)
            kind = "h2d" if dev != CPU else "d2h"
            where = dev if dev != CPU else loc[v]
            out_steps.append(Step(kind, where, None, (v,), (hit,)))
            if kind == "d2h":
                out_steps[-1].device = loc[v]
        return hit

    for s in steps:
        if s.kind == "prim" or s.own:  # it may write a Parameter in place: copy afresh after
            copies.clear()
        need = s.device if s.kind == "device" else CPU
        ins = tuple(on(v, need) for v in s.ins)
        if ins != s.ins:
            s.inplace = ()
        s.ins = ins
        out_steps.append(s)
    output = on(output, CPU) if output is not None else None
    for v in range(len(values)):
        if values[v].kind == EXTERNAL and loc[v] == CPU:
            values[v].aliases = frozenset()
    _recompute_aliases(out_steps, values, loc)
    return out_steps, output


def _const_abstract(value):
    import numpy as np
    from ..common.abstract import abstract_of_array
    return value._abs if hasattr(value, "_abs") else abstract_of_array(np.asarray(value))


def _recompute_aliases(steps, values, loc):
    """CPU views (alloc / prim results) alias the CPU-planned buffers their inputs use."""
    def roots(ref):
        if isinstance(ref, tuple):
            return frozenset().union(*(roots(r) for r in ref)) if ref else frozenset()
        v = values[ref]
        if v.kind == PLANNED and loc[ref] == CPU:
            return frozenset((ref,))
        return v.aliases if loc[ref] == CPU else frozenset()
    for s in steps:
        if s.kind in ("alloc", "prim"):
            al = roots(s.ins)
            for v in s.outs:
                values[v].aliases = al
        elif s.kind == "super":
            for v in s.outs:
                values[v].kind, values[v].aliases = EXTERNAL, frozenset()


def _assign_streams(cg):
    last_on_stream = {}                          # (device, stream) -> last step index
    next_stream = {}
    producer = {v: s for s in cg.steps for v in s.outs}
    for s in cg.steps:
        rm = get_device_context(s.device).res_manager
        n = max(1, int(getattr(rm, "num_streams", 1)))
        cg.num_streams[s.device] = n
        stream = None
        for v in flat_refs(s.ins):
            p = producer.get(v)
            if p is not None and p.device == s.device \
                    and last_on_stream.get((s.device, p.stream)) == p.index:
                stream = p.stream
                break
        if stream is None:
            stream = next_stream.get(s.device, 0)
            next_stream[s.device] = (stream + 1) % n
        s.stream = stream
        last_on_stream[(s.device, stream)] = s.index


class _View:
    """One device's view of the steps for memory_plan.plan: values planned on the device
    keep kind PLANNED, the others become unplanned inputs."""

    class _V:
        __slots__ = ("kind", "nbytes", "aliases")

    class _S:
        __slots__ = ("kind", "ins", "outs", "inplace")

    def __init__(self, cg, device):
        self.name = f"{cg.name}@{device}"
        self.values = []
        for i, v in enumerate(cg.values):
            x = self._V()
            x.kind = PLANNED if (v.kind == PLANNED and cg.loc[i] == device) else PARAM
            if v.kind == CONST:
                x.kind = CONST
            x.nbytes = v.nbytes if v.abstract is not None else 0
            x.aliases = v.aliases if device == CPU and cg.loc[i] == CPU else frozenset()
            self.values.append(x)
        self.steps = []
        for s in cg.steps:
            x = self._S()
            x.kind = KERNEL if s.kind != "alloc" and s.kind != "prim" else ALLOC
            x.ins, x.outs = s.ins, s.outs
            x.inplace = s.inplace if s.kind == "kernel" else ()
            self.steps.append(x)
        self.output = cg.output if device == CPU else ()

    def roots(self, ref):
        if isinstance(ref, tuple):
            return frozenset().union(*(self.roots(r) for r in ref)) if ref else frozenset()
        v = self.values[ref]
        return frozenset((ref,)) if v.kind == PLANNED else frozenset(v.aliases)


def _plan_memory(cg):
    for dev in sorted({cg.loc[v] for v, x in enumerate(cg.values) if x.kind == PLANNED}):
        view = _View(cg, dev)
        cg.plans[dev] = plan(view)
        cg.plans[dev].view = view


def _arrows(cg, parallel):
    """preds[i]: the steps step i waits for (data arrows, then control arrows)."""
    producer = {v: s.index for s in cg.steps for v in s.outs}
    n = len(cg.steps)
    data = [set() for _ in range(n)]
    for s in cg.steps:
        for v in flat_refs(s.ins):
            p = producer.get(v)
            if p is not None:
                data[s.index].add(p)
    control = [set() for _ in range(n)]
    last = {}
    barrier = None
    for s in cg.steps:
        key = (s.device, s.stream)
        if key in last:
            control[s.index].add(last[key])
        last[key] = s.index
        if s.kind == "prim" or s.own:            # side effects and eager calls: in order
            control[s.index].update(range(barrier or 0, s.index))
            barrier = s.index
        elif barrier is not None:
            control[s.index].add(barrier)
    for dev, p in cg.plans.items():
        readers = _readers(cg, p.view)
        for members in p.members:
            for prev, nxt in zip(members, members[1:]):
                w = producer[nxt]
                waits = readers.get(prev, set()) | {producer[prev]}
                control[w].update(r for r in waits if r != w)
    cg.data_preds = [sorted(d) for d in data]
    cg.preds = [sorted(d | c) for d, c in zip(data, control)]


def _readers(cg, view):
    """planned value -> the steps reading it or a view of it (its buffer's users)."""
    out = {}
    for s in cg.steps:
        for v in flat_refs(s.ins):
            for r in view.roots(v):
                out.setdefault(r, set()).add(s.index)
    return out
