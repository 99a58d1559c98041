"""The compiled program of a graph: what jit's Compiled.run (and nn.GraphCell) runs.

    program_for(compiled)        the GraphProgram Compiled.run uses, or None (the interpreter
                                 runs it); on a plugin device the graph compiler's program
    GraphProgram(kg, epoch)      a lowered KernelGraph (lowering.py) with its buffer plan
                                 (memory_plan.py), the C runner and a pool of arenas
    ENABLED = False              every graph runs on the interpreter (the @jit baseline of
                                 benchmarks/jit_forward.py)

A program is built once per kernel-selection epoch (lowering._EPOCH, bumped when kernels are
(un)registered or the context changes).
"""
from .. import _C
from ..common.buffers import own_buffers
from ..context import CONTEXT
from . import lowering
from .graph_compiler import device_program
from .lowering import NotLowerable, lower
from .memory_plan import POOL_ARENAS, Arena, flat_refs, plan
# the old module jit/kernel_graph.py held these too (its path names this module: _moved.py)
from .lowering import (ALLOC, CONST, EXTERNAL, KERNEL, PARAM, PLANNED, PRIM,  # noqa: F401
                       KernelGraph, KernelStep, Value)

ENABLED = True              # False: every graph runs on the interpreter (benchmarks compare)


class GraphProgram:
    """A lowered graph ready to run (runner None: not lowerable, `reason` says why)."""

    def __init__(self, kg, epoch, reason=None):
        self.kg, self.epoch, self.reason = kg, epoch, reason
        self.runner = self.plan = None
        self.pool = []
        if kg is None:
            return
        if not hasattr(_C, "GraphRunner"):
            self.reason = "mindlite._C has no GraphRunner (rebuild the extension)"
            return
        self.plan = plan(kg)
        outputs = list(flat_refs(kg.output))
        transient = [v.index for v in kg.values if v.kind not in (PLANNED, CONST)]
        steps = tuple((s.kind, s.fn, s.ins, s.outs, tuple(s.params), s.on_error, s.kwnames,
                       getattr(s.prim, "name", None),          # the name the profiler shows
                       (own_buffers, s.own) if s.own else None)
                      for s in kg.steps)
        try:
            self.runner = _C.GraphRunner(steps, len(kg.values), tuple(kg.args),
                                         tuple(outputs), tuple(v.abstract for v in kg.values),
                                         tuple(transient))
        except (TypeError, ValueError) as err:    # a step the C runner refuses: interpreted
            self.reason = f"the C runner refused @{kg.name}: {err}"
            return
        self.template = _template(kg.output, iter(range(len(outputs))))

    def held_bytes(self):
        """Bytes the pooled arenas hold between runs (escaping slots are handed off)."""
        return sum(b.nbytes for a in list(self.pool) for b in a.buffers if b is not None)

    def __call__(self, args):
        pool = self.pool
        try:
            arena = pool.pop()
            arena.ready()
        except IndexError:
            arena = Arena(self.kg, self.plan)
        try:
            outs = self.runner(tuple(args), arena.values)
            arena.handoff()
        finally:
            if len(pool) < POOL_ARENAS:
                pool.append(arena)
        return _build(self.template, outs)


def _template(ref, counter):
    if isinstance(ref, tuple):
        return tuple(_template(r, counter) for r in ref)
    return next(counter)


def _build(template, outs):
    if isinstance(template, tuple):
        return tuple(_build(t, outs) for t in template)
    return outs[template]


def program_for(compiled):
    """The GraphProgram for a Compiled entry (lowered once per kernel-selection epoch), or None
    when the interpreter must run it: not lowerable, the runner disabled or unbuilt, or the
    calling thread's grad recorder recording."""
    if not ENABLED or _C.grad_recording():
        return None
    if CONTEXT.values["device_target"] != "CPU":    # a plugin device: backend/graph_compiler
        return device_program(compiled, lowering._EPOCH[0])
    prog = getattr(compiled, "_program", None)
    if prog is not None and prog.epoch == lowering._EPOCH[0]:
        return prog if prog.runner is not None else None
    epoch = lowering._EPOCH[0]
    try:
        prog = GraphProgram(lower(compiled.graph), epoch)
    except NotLowerable as err:
        prog = GraphProgram(None, epoch, str(err))
    compiled._program = prog
    return prog if prog.runner is not None else None
