"""Buffer planning for a KernelGraph (MindSpore's SOMAS, made small), and the arenas.

    plan(kg) -> MemoryPlan          slot per planned value, slot sizes, escaping slots
    check_plan(kg, plan)            raises AssertionError if a live buffer could be overwritten
    Arena(kg, plan)                 one run's buffers (program.py's GraphProgram pools them)

Lifetimes: a planned value (a KERNEL step's output) is a buffer; it lives from its step to
the last step that reads it or any value that may alias it (ALLOC views such as Reshape,
PRIM results: kernel_graph.Value.aliases). Walking the steps in order, a buffer whose last
use was an earlier step frees its slot; each new output takes the best-fitting free slot
(the smallest one large enough; else the largest free one grows; else a new slot). In
place: a KERNEL step whose kernel allows out aliasing an input (kernel_graph._aliasing_ok),
whose input of the output's shape and dtype dies at this step, writes into that input's slot.
Graph inputs, Parameters and constants are never planned.

Outputs: a buffer a graph output may use (the output itself, or what an output view
aliases) lives to the end and its slot "escapes": after each run the arena hands that buffer
off to the returned Tensor and takes a fresh one before its next run, so a result never
changes afterwards and the next run never writes into it. Arenas (every slot's buffer,
every value's array view, constants) are reused across runs from a pool; a call takes one
for itself, so two threads, or a graph run re-entered from a PRIM step, never share buffers.
"""
import numpy as np

from .lowering import CONST, KERNEL, PLANNED

POOL_ARENAS = 4             # arenas kept per program for reuse (more threads make new ones)


class MemoryPlan:
    """slot_of: planned value -> slot; slot_bytes; members: the values per slot; escaping:
    slots handed off after each run; inplace: (step, input value, output value) reuses;
    lifetime: planned value -> (first step, last step)."""

    def __init__(self):
        self.slot_of = {}
        self.slot_bytes = []
        self.members = []
        self.escaping = set()
        self.inplace = []
        self.lifetime = {}

    @property
    def total_bytes(self):
        return sum(self.slot_bytes)

    def __repr__(self):
        return (f"MemoryPlan({len(self.slot_of)} buffers in {len(self.slot_bytes)} slots, "
                f"{self.total_bytes} bytes, {len(self.inplace)} in place, escaping "
                f"{sorted(self.escaping)})")


def flat_refs(ref):
    """The leaves of `ref`, a value or nested tuples of values, in order."""
    if isinstance(ref, tuple):
        for r in ref:
            yield from flat_refs(r)
    else:
        yield ref


def lifetimes(kg):
    """{planned value: [first step, last step]}; escaping roots last to len(kg.steps)."""
    life = {}
    for s, step in enumerate(kg.steps):
        for v in flat_refs(step.ins):
            for r in kg.roots(v):
                life[r][1] = s
        for v in step.outs:
            if kg.values[v].kind == PLANNED:
                life[v] = [s, s]
    escaping = kg.roots(kg.output)
    for r in escaping:
        life[r][1] = len(kg.steps)
    return life, escaping


def plan(kg):
    p = MemoryPlan()
    life, escaping = lifetimes(kg)
    p.lifetime = {v: tuple(t) for v, t in life.items()}
    ending = {}                              # step -> planned values last used there
    occupant = []                            # slot -> the value now in it
    free = []
    for s, step in enumerate(kg.steps):
        for r in ending.pop(s - 1, ()):
            sl = p.slot_of[r]
            if occupant[sl] == r:
                free.append(sl)
        for v in step.outs:
            if kg.values[v].kind != PLANNED:
                continue
            need = kg.values[v].nbytes
            sl = _inplace_slot(p, life, occupant, s, step, v)
            if sl is None:
                sl = _best_fit(p, free, need)
            p.slot_of[v] = sl
            p.members[sl].append(v)
            occupant.extend([None] * (sl + 1 - len(occupant)))
            occupant[sl] = v
            ending.setdefault(life[v][1], []).append(v)
    p.escaping = {p.slot_of[r] for r in escaping}
    return p


def _inplace_slot(p, life, occupant, s, step, v):
    if step.kind != KERNEL or not step.inplace:
        return None
    for c in step.inplace:
        sl = p.slot_of.get(c)
        if sl is not None and life[c][1] == s and occupant[sl] == c:
            p.inplace.append((s, c, v))
            return sl
    return None


def _best_fit(p, free, need):
    fits = [sl for sl in free if p.slot_bytes[sl] >= need]
    if fits:
        sl = min(fits, key=lambda k: (p.slot_bytes[k], k))
    elif free:
        sl = max(free, key=lambda k: (p.slot_bytes[k], -k))
        p.slot_bytes[sl] = need
    else:
        p.slot_bytes.append(need)
        p.members.append([])
        return len(p.slot_bytes) - 1
    free.remove(sl)
    return sl


def check_plan(kg, p):
    """Independent check of the plan's one rule: no two buffers that are live at once share a
    slot, except an in-place step's input (dying there) and output."""
    life, _ = lifetimes(kg)
    inplace = {(c, v) for _, c, v in p.inplace}
    for sl, vals in enumerate(p.members):
        for i, a in enumerate(vals):
            assert kg.values[a].nbytes <= p.slot_bytes[sl], f"%{a} does not fit slot {sl}"
            for b in vals[i + 1:]:
                (fa, la), (fb, lb) = life[a], life[b]
                if fa > fb:
                    (a, fa, la), (b, fb, lb) = (b, fb, lb), (a, fa, la)
                ok = la < fb or (la == fb and (a, b) in inplace)
                assert ok, (f"slot {sl}: %{a} live {fa}..{la} and %{b} live {fb}..{lb} "
                            f"overlap in {kg.name}")




class Arena:
    """One run's memory: a buffer per slot, each planned value's array view into its slot,
    the constants; `values` is the list the C runner reads and writes."""

    def __init__(self, kg, p):
        self.kg, self.plan = kg, p
        self.values = [v.const if v.kind == CONST else None for v in kg.values]
        self.buffers = [None] * len(p.slot_bytes)
        self.stale = False
        for sl in range(len(p.slot_bytes)):
            self._fill(sl)

    def _fill(self, sl):
        buf = self.buffers[sl] = np.empty(self.plan.slot_bytes[sl], np.uint8)
        values, kv = self.values, self.kg.values
        for v in self.plan.members[sl]:
            a = kv[v].abstract
            values[v] = np.ndarray(a.shape, a.np, buf)

    def handoff(self):
        """The escaping slots' buffers now belong to the returned Tensors; fresh ones are
        taken when the arena is next used (not now: the peak of a run stays one set of
        slots, and an arena parked in the pool holds no second copy of the outputs)."""
        for sl in self.plan.escaping:
            self.buffers[sl] = None
            for v in self.plan.members[sl]:
                self.values[v] = None
        self.stale = True

    def ready(self):
        if self.stale:
            for sl in self.plan.escaping:
                self._fill(sl)
            self.stale = False
