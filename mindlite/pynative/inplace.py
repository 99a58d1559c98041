"""In-place writes: copy-on-write for every writer, and what the grad recorder makes of them.

In-place writers call, for the tensor t they write:
  - `own_buffer(t)` before writing (common/buffers.py: when a live view shares t's memory,
    t moves to a private copy first, so results returned earlier never change);
  - `log_write(t, op)` after writing (Assign, AssignAdd, the optimizers, assign_value /
    set_data / set_dtype): while the grad recorder is open, the write is logged on every
    open tape. A tape's nodes hold their inputs and outputs by reference and bprops read
    their values at backward, so a tensor written after a node used it would give a
    silently wrong gradient: `check_writes` (called by GradExecutor.backward) raises a
    RuntimeError naming the tensor, the op that used it and the op that wrote it
    (PyTorch's version-counter check, kept off the no-grad path: nothing is counted while
    no tape is open). NOTE: conservative: any recorded use counts, also by a bprop that
    would not read the value (e.g. Add's).

Tensor.__setitem__ under the recorder is not an opaque write but recorded ops
(ops/function/setitem_func.py), as MindSpore records it: `snapshot` gives the tapes' earlier
references to the target a tensor of its old values (`retarget`), and the new value is a
Select of the written positions over that snapshot, which the tapes then know as the
target itself. A watched input written this way keeps the gradient of its original
values (`renamed`, applied by `apply_renames` after backward).
"""
from .. import _C
from ..common.buffers import own_buffer, own_buffers  # noqa: F401  (named here too: old path)
from ..common.tensor import Tensor
from .grad import GRAD_EXECUTOR


def log_write(t, op):
    """Log an in-place write of `t` by `op` on every open tape (no-op when none is open)."""
    if GRAD_EXECUTOR.recording:
        for tape in GRAD_EXECUTOR.tapes:
            tape.writes.append((t, op, len(tape.nodes)))


def _uses(inputs, out):
    """The tensors a node references (its bprop may read any of them)."""
    for a in inputs:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (tuple, list)):
            yield from (x for x in a if isinstance(x, Tensor))
    if type(out) is tuple:
        yield from out
    else:
        yield out


def check_writes(tape):
    """RuntimeError if a tensor a node of `tape` uses was written in place after that node
    was recorded (its bprop would read the new values)."""
    first = {}                   # id(tensor) -> (tensor, op, node count at its first write)
    for t, op, n in tape.writes:
        if id(t) not in first:
            first[id(t)] = (t, op, n)
    for i, (prim, inputs, out) in enumerate(tape.nodes):
        for a in _uses(inputs, out):
            hit = first.get(id(a))
            if hit is not None and hit[0] is a and i < hit[2]:
                role = "the output" if a is out or (
                    type(out) is tuple and any(o is a for o in out)) else "an input"
                raise RuntimeError(
                    f"A tensor needed for the gradient (shape {list(a.shape)}, {a.dtype}; "
                    f"{role} of '{prim.name}') was modified in place by '{hit[1]}' after "
                    f"'{prim.name}' used it, so its gradient would be computed from the new "
                    f"values. Write into a copy (t = t.copy()) or before the tensor is used.")


def _swap(items, src, dst):
    return type(items)(dst if a is src else a for a in items)


def retarget(tape, src, dst):
    """Every reference `tape`'s nodes hold to the tensor `src` now names `dst`.
    NOTE: a scan of the tape, paid only by a setitem while the recorder is open."""
    nodes = tape.nodes
    for i, (prim, inputs, out) in enumerate(nodes):
        hit_in = any(a is src or (type(a) in (tuple, list) and any(x is src for x in a))
                     for a in inputs)
        hit_out = out is src or (type(out) is tuple and any(o is src for o in out))
        if not (hit_in or hit_out):
            continue
        if hit_in:
            inputs = type(inputs)(_swap(a, src, dst) if type(a) in (tuple, list) else
                                  (dst if a is src else a) for a in inputs)
        if hit_out:
            out = dst if out is src else _swap(out, src, dst)
        nodes[i] = (prim, inputs, out)


def snapshot(t):
    """Before a recorded setitem writes t: a tensor holding t's current array takes over
    every open tape's references to t (tracked id, nodes, watched role), and t gets a
    private copy of its array to be written. Returns the snapshot."""
    old = _C.wrap(t._data(), t._abs)
    t._arr = old._arr.copy()
    for tape in GRAD_EXECUTOR.tapes:
        retarget(tape, t, old)
        if id(t) in tape.tracked:
            tape.tracked.discard(id(t))
            tape.tracked.add(id(old))
        if any(k is t for k in tape.keep):
            tape.renamed.setdefault(id(t), old)
            tape.keep.append(old)
    return old


def adopt(t, result):
    """The recorded setitem's result becomes t: t takes its array, and the tapes' references
    to `result` name t."""
    t._arr = result._arr
    for tape in GRAD_EXECUTOR.tapes:
        if id(result) in tape.tracked:
            retarget(tape, result, t)
            tape.tracked.add(id(t))


def apply_renames(tape, grads):
    """A watched tensor written by a recorded setitem: its gradient is its snapshot's (the
    gradient w.r.t. the values it had when the grad call began)."""
    for key, old in tape.renamed.items():
        g = grads.get(id(old))
        if g is None:
            grads.pop(key, None)
        else:
            grads[key] = g
