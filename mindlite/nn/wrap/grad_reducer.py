"""nn.DistributedGradReducer (mindspore.nn.DistributedGradReducer): the gradient reduction
of data-parallel training, used by TrainOneStepCell and train.Model when
set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL) is on
(reducer_for), or directly in a custom loop: grads = reducer(grads).

Each gradient is summed over the ranks of the group (divided by `degree` when `mean`).
Gradients are fused into buckets (comm_fusion of the auto-parallel context, or the
`bucket_size` argument, in bytes; 0 = one reduction per gradient): a bucket's gradients are
packed into one flat buffer and reduced in place: buckets under 2 MB by MPI_Iallreduce, all
started at once and waited for politely (communication/_mpi.wait: no busy-polling), larger
ones by the blocking MPI_Allreduce (tuned algorithms) after the ranks met at a politely
waited barrier (see communication/_mpi.move). The reduction starts once backward has
produced every gradient: it does not overlap backward. Buckets hold one dtype each, in
parameter order.
"""
import numpy as np

from ...common.tensor import Tensor
from ...communication import _mpi, auto_parallel
from ...communication.management import GlobalComm
from ..cell import Cell

__all__ = ["DistributedGradReducer"]


class DistributedGradReducer(Cell):
    """reducer(grads) -> the grads summed (mean=True: averaged over `degree` ranks) across
    the ranks of `group`, one per parameter, in order."""

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1,
                 group=GlobalComm.WORLD_COMM_GROUP, bucket_size=None):
        super().__init__(auto_prefix=False)
        fn = "DistributedGradReducer"
        self.comm = _mpi.comm_of(fn, group)
        self.group = group
        self.shapes = [tuple(p.shape) for p in parameters]
        if mean is None:
            mean = auto_parallel.get_auto_parallel_context("gradients_mean")
        if not isinstance(mean, bool):
            raise TypeError(f"For '{fn}', 'mean' must be a bool or None, but got {mean!r}")
        if degree is None:
            degree = self.comm.Get_size()
        if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
            raise ValueError(f"For '{fn}', 'degree' must be a positive int, but got {degree!r}")
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

    def _call(self, args, kwargs, eager=False):
        """Host code around MPI: runs eagerly under GRAPH_MODE too."""
        return Cell._call(self, args, kwargs, eager=True)

    def _make_buckets(self, grads):
        """Lists of gradient indices: consecutive, one dtype, within the size or index plan."""
        mode, limit = self.plan
        ends = set(limit) if mode == "index" else ()
        buckets, cur, nbytes = [], [], 0
        for i, g in enumerate(grads):
            size = g.nbytes
            if cur and (grads[cur[0]].dtype != g.dtype or i in ends
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
                isinstance(g, Tensor) and tuple(g.shape) == s for g, s in zip(grads, self.shapes)):
            raise ValueError("For 'DistributedGradReducer', 'grads' must hold one Tensor per "
                             f"parameter with its shape {self.shapes}, but got "
                             f"{[getattr(g, 'shape', type(g).__name__) for g in grads]}")
        arrays = [g.asnumpy() for g in grads]
        if self.buckets is None:
            _mpi.check_signature("DistributedGradReducer", self.group, self.comm,
                                 tuple((a.shape, a.dtype.str) for a in arrays))
            self.buckets = self._make_buckets(arrays)
        MPI = _mpi.STATE["mpi"]
        out = [None] * len(grads)
        flights, arrived = [], False
        for bucket in self.buckets:
            first = arrays[bucket[0]].dtype
            kind = np.float32 if first == np.float16 or first.kind == "V" else None
            if len(bucket) == 1:        # half types reduce in float32 (MPI 3.x has none)
                buf = np.array(arrays[bucket[0]], kind, copy=True).reshape(-1)
            else:
                buf = np.concatenate([arrays[i].reshape(-1) for i in bucket], dtype=kind)
            if buf.nbytes < _mpi.BLOCKING_MIN:
                flights.append((bucket, buf, self.comm.Iallreduce(MPI.IN_PLACE, buf, MPI.SUM)))
                continue
            if not arrived:             # every rank here (politely) before a blocking call
                _mpi.wait("DistributedGradReducer", self.group, self.comm.Ibarrier())
                arrived = True
            with _mpi.pending("DistributedGradReducer", self.group):
                self.comm.Allreduce(MPI.IN_PLACE, buf, MPI.SUM)
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
            n = arrays[i].size
            part = buf[offset:offset + n].reshape(self.shapes[i])
            out[i] = Tensor.from_numpy(part.astype(arrays[i].dtype, copy=False))
            offset += n


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
