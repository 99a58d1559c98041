"""GradExecutor: the grad recorder the forward executor reports every op to, and backward.

While a grad API (ops/composite.py) runs the user's function it opens a Tape
that tracks the inputs being differentiated. Every op that runs while
`recording` is True is offered to each open tape; a tape keeps it as a node
(prim, inputs, output) only if one of its inputs is tracked, and then tracks the
output. Nothing is kept for ops whose inputs are untracked, for
non-differentiable primitives, or under stop_gradient.

Backward walks a tape's nodes in reverse (record order is a topological order),
calls each primitive's bprop `bprop(prim, *inputs, out, dout) -> input grads`
and accumulates with the Add primitive (fan-out just works). bprops are built
from primitives, so while an outer tape is open the backward pass is itself
recorded: grad(grad(f)) works. A tape lives only for one grad call; it holds
plain references (no cycles through tensors) and is dropped when the call returns.

Threads: all grad state is per thread. GRAD_EXECUTOR is a threading.local, so each
thread has its own open tapes, recording flag and backward tracked-id stack, and the
C fast runners read the calling thread's tapes (a C thread_local set through
_C.set_grad_tapes). An op recorded in one thread never reaches another thread's tape,
and one thread's backward pass never decides which gradients another computes.

Final-gradient hooks (FINAL_HOOKS, used by nn.DistributedGradReducer to overlap the
gradient reduction with backward): an object in FINAL_HOOKS is asked by each outermost
backward pass `hook.start(tape)` -> None, or `(ids, on_final)`: then on_final(leaf_ids,
grads) is called during the walk as soon as the tracked leaves in `ids` are final (the
earliest node that uses them has been walked; grads[id] is then their full gradient). A
leaf no node uses is never reported. With no hook registered backward does nothing more.
"""
import threading
import weakref

from .. import _C
from ..common.tensor import Tensor
from ..common import tensor_hooks
# the rule registries live below the executors (ir/rules.py); named here too (old path)
from ..ir.rules import BPROPS, NON_DIFFERENTIABLE, bprop_for, non_differentiable  # noqa: F401


class Tape:
    __slots__ = ("nodes", "tracked", "keep", "writes", "renamed")

    def __init__(self):
        self.nodes = []
        self.tracked = set()      # ids of tensors whose gradient flows to the watched inputs
        self.keep = []            # the watched tensors themselves (ids stay valid)
        self.writes = []          # in-place writes while open: (tensor, op, len(nodes) then)
        self.renamed = {}         # id(watched tensor) -> snapshot of it before a setitem

    def watch(self, tensor):
        self.tracked.add(id(tensor))
        self.keep.append(tensor)


def _tensors(args):
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (tuple, list)):
            yield from (x for x in a if isinstance(x, Tensor))


FINAL_HOOKS = weakref.WeakSet()     # final-gradient hooks (see the module docstring)
# (Add, accumulate, zeros_like_tensor, ReduceSum(keep_dims=False)), imported at first use
_GRAD_FUNCS = []
_LEAD_AXES = [tuple(range(n)) for n in range(9)]     # the axes a leading-axes sum reduces


def _grad_funcs():
    """ops.function.grad_func's helpers (ops imports this module: imported late, once)."""
    from ..ops.function.grad_func import _add, _reduce_sum_flat, accumulate, zeros_like_tensor
    _GRAD_FUNCS[:] = [_add, accumulate, zeros_like_tensor, _reduce_sum_flat]
    return _GRAD_FUNCS


class GradExecutor(threading.local):
    """The grad recorder of the calling thread (a threading.local: __init__ runs once in each
    thread that touches it, and every attribute below is that thread's own).

    tapes: the open tapes, innermost last. backward_tracked: the tracked-id sets of the
    backward passes running now (innermost last); bprops skip the gradients of inputs the
    running pass does not follow (ops.operations._base.needs_grad)."""

    def __init__(self):
        self.tapes = []
        self.backward_tracked = []

    # ---- recording ---------------------------------------------------------------------
    def open_tape(self):
        tape = Tape()
        self.tapes.append(tape)
        self.recording = True
        return tape

    def close_tape(self, tape):
        self.tapes.remove(tape)
        self.recording = bool(self.tapes)

    # The flag lives in C, per thread, where the fast runners (csrc/bind/fast_runner.cc) read
    # it: the thread's tapes list while it records, else nothing.
    recording = property(lambda self: _C.grad_recording(),
                         lambda self, flag: _C.set_grad_tapes(self.tapes if flag else None))

    def record(self, prim, inputs, output):
        """Called by every runner after its kernel ran, while `recording` is True.
        NOTE: a _C.FastRunner applies the same rule in C (record() in csrc/bind/fast_path.cc)."""
        if type(prim) in NON_DIFFERENTIABLE:
            return
        for tape in self.tapes:
            tracked = tape.tracked
            for a in inputs:
                if id(a) in tracked or (type(a) in (tuple, list)
                                        and any(id(x) in tracked for x in a)):
                    break
            else:
                continue
            tape.nodes.append((prim, inputs, output))
            if type(output) is tuple:
                tracked.update(id(o) for o in output)
            else:
                tracked.add(id(output))

    # ---- backward ----------------------------------------------------------------------
    def backward(self, tape, outputs, sens):
        """Gradients of sum(sens_i * outputs_i) w.r.t. every tracked tensor: {id: Tensor}."""
        if tape.writes:
            from .inplace import check_writes
            check_writes(tape)
        stack = self.backward_tracked
        stack.append(tape.tracked)
        try:
            grads = self._backward(tape, outputs, sens)
        finally:
            stack.pop()
        if tape.renamed:
            from .inplace import apply_renames
            apply_renames(tape, grads)
        return grads

    def _backward(self, tape, outputs, sens):
        add, accumulate, zeros_like_tensor, reduce_sum = _GRAD_FUNCS or _grad_funcs()
        grads = {}
        tracked = tape.tracked
        for out, s in zip(outputs, sens):
            if id(out) in tape.tracked:
                accumulate(grads, out, s)
        nodes = reversed(tape.nodes)
        if FINAL_HOOKS and not self.tapes and not tape.renamed:
            nodes = _final_walk(tape, grads, nodes)
        hooked = set() if tensor_hooks.HOOKS else None
        for prim, inputs, out in nodes:
            if hooked is not None:
                _run_tensor_hooks(grads, out, hooked)
            if type(out) is tuple:
                douts = [grads.get(id(o)) for o in out]
                if all(d is None for d in douts):
                    continue
                unused = getattr(prim, "unused_douts", ())     # outputs its bprop never reads
                dout = tuple(d if d is not None or i in unused else zeros_like_tensor(o)
                             for i, (o, d) in enumerate(zip(out, douts)))
            else:
                dout = grads.get(id(out))
                if dout is None:
                    continue
            bprop = BPROPS.get(type(prim))
            if bprop is None:
                raise NotImplementedError(f"For '{prim.name}', no bprop is registered: it cannot "
                                          "be differentiated")
            dins = bprop(prim, *inputs, out, dout)
            if len(dins) != len(inputs):
                raise RuntimeError(f"The bprop of '{prim.name}' returned {len(dins)} gradients "
                                   f"for {len(inputs)} inputs")
            for x, dx in zip(inputs, dins):
                if dx is None:
                    continue
                if isinstance(x, Tensor):
                    k = id(x)
                    if k not in tracked:
                        continue
                    # NOTE: the common cases inline (dx of x's float dtype, of x's shape or
                    # broadcast over leading axes only: a bias) save accumulate's and sum_to's
                    # Python calls, and sum exactly as sum_to does; the rest goes to accumulate
                    xa = x._abs
                    da = dx._abs if isinstance(dx, Tensor) else None
                    if da is None or da.dtype is not xa.dtype or xa.dtype.kind != "f":
                        accumulate(grads, x, dx)
                        continue
                    if da is not xa and da.shape != xa.shape:
                        lead = len(da.shape) - len(xa.shape)
                        if lead <= 0 or lead > 8 or da.shape[lead:] != xa.shape:
                            accumulate(grads, x, dx)
                            continue
                        dx = reduce_sum(dx, _LEAD_AXES[lead])
                    prev = grads.get(k)
                    grads[k] = dx if prev is None else add(prev, dx)
                elif isinstance(x, (tuple, list)):
                    for xi, dxi in zip(x, dx):
                        if isinstance(xi, Tensor) and dxi is not None and id(xi) in tracked:
                            accumulate(grads, xi, dxi)
        if hooked is not None:
            for x in list(tensor_hooks.HOOKS):
                entry = tensor_hooks.HOOKS.get(x)
                if entry is not None and x in grads and x not in hooked and entry[0]():
                    _run_tensor_hooks(grads, entry[0](), hooked)
        return grads


def _run_tensor_hooks(grads, out, hooked):
    """Tensor.register_hook: the complete gradient of `out` (or of each of a tuple's tensors)
    passes through its hooks once (common/tensor_hooks.py)."""
    for o in (out if type(out) is tuple else (out,)):
        k = id(o)
        if k in grads and k not in hooked and k in tensor_hooks.HOOKS:
            hooked.add(k)
            grads[k] = tensor_hooks.apply(o, grads[k])


def _final_walk(tape, grads, nodes):
    """The tape's nodes in reverse, calling each started hook's on_final once the walk is
    past the earliest node using some of its leaves (the generator resumes after each node's
    backward step)."""
    started = [h.start(tape) for h in list(FINAL_HOOKS)]
    started = [s for s in started if s is not None]
    if not started:
        yield from nodes
        return
    firsts = {}                     # node index -> [(on_final, [leaf ids first used there])]
    for ids, on_final in started:
        seen = set()
        for i, (_, inputs, _) in enumerate(tape.nodes):
            for x in _tensors(inputs):
                k = id(x)
                if k in ids and k not in seen:
                    seen.add(k)
                    firsts.setdefault(i, {}).setdefault(on_final, []).append(k)
    all_nodes = tape.nodes
    for i in range(len(all_nodes) - 1, -1, -1):
        yield all_nodes[i]
        done = firsts.get(i)
        if done:
            for on_final, leaf_ids in done.items():
                on_final(leaf_ids, grads)


GRAD_EXECUTOR = GradExecutor()
