"""nn.DistributedGradReducer (mindspore.nn.DistributedGradReducer): the gradient reduction
of data-parallel training, used by TrainOneStepCell and train.Model when
set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL) is on
(reducer_for), or directly in a custom loop: grads = reducer(grads).

Each gradient is summed over the ranks of the group (divided by `degree` when `mean`).
Gradients are fused into buckets (comm_fusion of the auto-parallel context, or the
`bucket_size` argument, in bytes; 0 = one reduction per gradient), made in reverse
parameter order (the order backward produces them): a bucket's gradients are packed into
one flat buffer and reduced in place: buckets under 2 MB by MPI_Iallreduce, waited for
politely (communication/_mpi.wait: no busy-polling), larger ones by the blocking
MPI_Allreduce (tuned algorithms) after the ranks met at a politely waited barrier (see
communication/_mpi.move). Buckets hold one dtype each.

Overlap with backward (overlap=True, or MINDLITE_COMM_OVERLAP=1 for reducers made without
overlap=; off by default: on the quiet 2-core machine the hook's cost outweighed what it hid
for the digits CNN; from the second call on, once the buckets are known): the reducer
registers a final-gradient hook with the eager backward (pynative/grad.py FINAL_HOOKS). In a
backward pass that differentiates its parameters, a bucket's Iallreduce starts as soon as
all its gradients are final, buckets strictly in order (a bucket waits for the ones before
it; a blocking-size bucket and everything after it wait for the reducer call), so every rank
issues the same MPI calls in the same order as without overlap: the results are bitwise the
same. reducer(grads) then waits for them, reduces what is left (gradients never final
through the tape: parameters unused by the loss, whose gradient is zeros), and uses the
early reductions only when `grads` are the very gradient tensors backward produced (else,
e.g. grads scaled or summed over two backward passes, it waits for them, drops them and
reduces `grads`). Under GRAPH_MODE the joint forward+backward graph runs as one program: no
hook fires, the reduction runs after it.
"""
import os
import weakref

import numpy as np

from ..._C import wrap as _wrap      # (array, its abstract) -> Tensor
from ...common.abstract import abstract_of_array
from ...common.tensor import Tensor
from ...communication import _mpi, auto_parallel
from ...communication.management import GlobalComm
from ...pynative.grad import FINAL_HOOKS
from ..cell import Cell

__all__ = ["DistributedGradReducer"]


class DistributedGradReducer(Cell):
    """reducer(grads) -> the grads summed (mean=True: averaged over `degree` ranks) across
    the ranks of `group`, one per parameter, in order. overlap=True starts the reductions
    during the eager backward pass that produces the gradients (see the module docstring;
    None: on unless MINDLITE_COMM_OVERLAP=0)."""

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1,
                 group=GlobalComm.WORLD_COMM_GROUP, bucket_size=None, overlap=None):
        super().__init__(auto_prefix=False)
        fn = "DistributedGradReducer"
        self.comm = _mpi.comm_of(fn, group)
        self.group = group
        parameters = tuple(parameters)
        self.shapes = [tuple(p.shape) for p in parameters]
        if mean is None:
            mean = auto_parallel.get_auto_parallel_context("gradients_mean")
        if not isinstance(mean, bool):
            raise TypeError(f"For '{fn}', 'mean' must be a bool or None, but got {mean!r}")
        if degree is None:
            degree = self.comm.Get_size()
        if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
            raise ValueError(f"For '{fn}', 'degree' must be a positive int, but got {degree!r}")
        if overlap is None:
            overlap = os.environ.get("MINDLITE_COMM_OVERLAP", "0") == "1"
        if not isinstance(overlap, bool):
            raise TypeError(f"For '{fn}', 'overlap' must be a bool, but got {overlap!r}")
        self.mean, self.degree, self.fusion_type = mean, degree, fusion_type
        if bucket_size is None:
            self.plan = auto_parallel.bucket_plan()
        elif isinstance(bucket_size, bool) or not isinstance(bucket_size, int) or \
                bucket_size < 0:
            raise ValueError(f"For '{fn}', 'bucket_size' must be a number of bytes >= 0 or None, "
                             f"but got {bucket_size!r}")
        else:
            self.plan = ("size", bucket_size)
        self.buckets = None
        self.early_buckets = 0
        self._hook = _OverlapHook(self, parameters)
        self.overlap = overlap

    @property
    def overlap(self):
        """Whether reductions start during backward (settable)."""
        return self._hook in FINAL_HOOKS

    @overlap.setter
    def overlap(self, flag):
        if flag:                        # the newest reducer of a parameter overlaps (the same
            for other in list(FINAL_HOOKS):  # on every rank, whatever the garbage collector does)
                if isinstance(other, _OverlapHook) and other.index.keys() & self._hook.index:
                    FINAL_HOOKS.discard(other)
                    other.drop()
            FINAL_HOOKS.add(self._hook)
        else:
            FINAL_HOOKS.discard(self._hook)
            self._hook.drop()

    def _call(self, args, kwargs, eager=False):
        """Host code around MPI: runs eagerly under GRAPH_MODE too."""
        return Cell._call(self, args, kwargs, eager=True)

    def _make_buckets(self, grads):
        """Lists of gradient indices, in reverse parameter order: consecutive, one dtype,
        within the size or index plan (an index i of the plan splits i-1 from i)."""
        mode, limit = self.plan
        ends = set(limit) if mode == "index" else ()
        buckets, cur, nbytes = [], [], 0
        for i in range(len(grads) - 1, -1, -1):
            g = grads[i]
            size = g.nbytes
            if cur and (grads[cur[0]].dtype != g.dtype or i + 1 in ends
                        or (mode == "size" and nbytes + size > limit)):
                buckets.append(cur)
                cur, nbytes = [], 0
            cur.append(i)
            nbytes += size
        if cur:
            buckets.append(cur)
        return buckets

    def construct(self, grads):
        grads = tuple(grads)
        if len(grads) != len(self.shapes) or not all(
                isinstance(g, Tensor) and g.shape == s for g, s in zip(grads, self.shapes)):
            self._hook.drop()
            raise ValueError("For 'DistributedGradReducer', 'grads' must hold one Tensor per "
                             f"parameter with its shape {self.shapes}, but got "
                             f"{[getattr(g, 'shape', type(g).__name__) for g in grads]}")
        arrays = [g.asnumpy() for g in grads]
        if self.buckets is None:
            _mpi.check_signature("DistributedGradReducer", self.group, self.comm,
                                 tuple((a.shape, a.dtype.str) for a in arrays))
            self.buckets = self._make_buckets(arrays)
        flights, first = self._hook.take(grads)
        self.early_buckets, arrived = first, False     # buckets started during backward
        out = [None] * len(grads)
        for bucket in self.buckets[first:]:
            buf = _pack(bucket, arrays)
            if buf.nbytes < _mpi.BLOCKING_MIN:
                flights.append((bucket, buf, _iallreduce(self.comm, buf)))
                continue
            if not arrived:             # every rank here (politely) before a blocking call
                _mpi.wait("DistributedGradReducer", self.group, self.comm.Ibarrier())
                arrived = True
            with _mpi.pending("DistributedGradReducer", self.group):
                self.comm.Allreduce(_mpi.STATE["mpi"].IN_PLACE, buf, _mpi.STATE["mpi"].SUM)
            self._unpack(bucket, buf, arrays, out)
        for bucket, buf, request in flights:
            _mpi.wait("DistributedGradReducer", self.group, request)
            self._unpack(bucket, buf, arrays, out)
        return tuple(out)

    def _unpack(self, bucket, buf, arrays, out):
        if self.mean:
            np.multiply(buf, buf.dtype.type(1.0 / self.degree), out=buf, casting="unsafe")
        offset = 0
        for i in bucket:
            a = arrays[i]
            n = a.size
            part = buf[offset:offset + n].reshape(a.shape)
            if part.dtype != a.dtype:       # half types were reduced in float32
                part = part.astype(a.dtype)
            out[i] = _wrap(part, abstract_of_array(part))
            offset += n


def _pack(bucket, arrays):
    """The bucket's gradients as one new flat buffer (half types in float32: MPI 3.x has
    no half sum)."""
    first = arrays[bucket[0]].dtype
    kind = np.float32 if first == np.float16 or first.kind == "V" else None
    if len(bucket) == 1:
        return np.array(arrays[bucket[0]], kind, copy=True).reshape(-1)
    return np.concatenate([arrays[i].reshape(-1) for i in bucket], dtype=kind)


def _iallreduce(comm, buf):
    MPI = _mpi.STATE["mpi"]
    return comm.Iallreduce(MPI.IN_PLACE, buf, MPI.SUM)


class _OverlapHook:
    """The reducer's final-gradient hook (pynative/grad.py FINAL_HOOKS): starts the buckets'
    Iallreduce, in bucket order, as their gradients become final during backward."""

    def __init__(self, reducer, parameters):
        self.reducer = weakref.ref(reducer)
        self.index = {id(p): i for i, p in enumerate(parameters)}
        self.params = parameters            # keeps the ids valid
        # [seen {index: Tensor}, launched [(bucket, buf, request)], next bucket to launch,
        #  first launched request not known complete]
        self.flight = None

    def start(self, tape):
        """A backward pass begins: follow it if it differentiates some of the parameters."""
        red = self.reducer()
        if red is None or red.buckets is None or _mpi.STATE["world"] is None:
            return None
        ids = {id(t) for t in tape.keep if id(t) in self.index}
        if not ids:
            return None
        self.drop()                         # a previous pass's reductions nobody took
        self.flight = [{}, [], 0, 0]
        return ids, self._on_final

    def _on_final(self, leaf_ids, grads):
        seen, launched, pos, done = self.flight
        red = self.reducer()
        shapes = red.shapes
        for k in leaf_ids:
            g = grads.get(k)
            i = self.index[k]
            if isinstance(g, Tensor) and tuple(g.shape) == shapes[i]:
                seen[i] = g
        buckets = red.buckets
        while pos < len(buckets) and all(i in seen for i in buckets[pos]):
            arrays = {i: seen[i].asnumpy() for i in buckets[pos]}
            buf = _pack(buckets[pos], arrays)
            if buf.nbytes >= _mpi.BLOCKING_MIN:
                break                       # blocking size: reduced at the call, in order
            launched.append((buckets[pos], buf, _iallreduce(red.comm, buf)))
            pos += 1
        # MPI progresses non-blocking collectives inside MPI calls only: test the oldest
        # open request at each step of backward so the reductions advance meanwhile
        while done < len(launched) and launched[done][2].Test():
            done += 1
        self.flight[2:] = pos, done

    def take(self, grads):
        """At the reducer call: (the in-flight reductions of `grads`, the first bucket still
        to reduce); ([], 0) when nothing flies or backward's gradients are not `grads` (then
        what flew is waited for and dropped)."""
        flight, self.flight = self.flight, None
        if flight is None:
            return [], 0
        seen, launched, pos, _ = flight
        if all(grads[i] is seen[i] for bucket, _, _ in launched for i in bucket):
            return launched, pos
        self.flight = flight
        self.drop()
        return [], 0

    def drop(self):
        """Wait for (and forget) the reductions started by a backward pass."""
        flight, self.flight = self.flight, None
        if flight is None or _mpi.STATE["mpi"].Is_finalized():
            return
        red = self.reducer()
        group = red.group if red is not None else "?"
        for _, _, request in flight[1]:
            _mpi.wait("DistributedGradReducer", group, request)

    def __del__(self):
        # the buffers of reductions still in flight must outlive them
        self.drop()


def reducer_for(parameters):
    """The DistributedGradReducer a training wrapper uses under DATA_PARALLEL, else None.
    With parameter_broadcast, the parameters first take rank 0's values (ops.Broadcast)."""
    mode = auto_parallel.get_auto_parallel_context("parallel_mode")
    if mode != auto_parallel.ParallelMode.DATA_PARALLEL:
        return None
    reducer = DistributedGradReducer(parameters,
                                     auto_parallel.get_auto_parallel_context("gradients_mean"),
                                     auto_parallel.get_auto_parallel_context("device_num"))
    if auto_parallel.get_auto_parallel_context("parameter_broadcast") and parameters:
        from ...ops.operations.comm_ops import Broadcast
        values = Broadcast(0)(tuple(parameters))
        for p, v in zip(parameters, values):
            p.set_data(v)
    return reducer
