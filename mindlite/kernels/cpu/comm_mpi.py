"""MPI kernels of comm_ops (provider "mpi"): AllReduce, AllGather, ReduceScatter, Broadcast,
AlltoAll, Send, Receive, Barrier.

Buffers go to MPI as memory (mpi4py's buffer interface on numpy arrays: no pickling), and
results are written in place into the output buffer the runtime allocated. Each kernel
first checks that every rank of the group passes the same shapes and dtypes (one 16-byte
allreduce of a hash: communication/_mpi.check_signature), waited for politely (testing,
then yielding the CPU between tests); the data then moves by communication/_mpi.move:
MPI's non-blocking collective waited for the same way below 1 MB, its blocking one (tuned
algorithms, every rank present) from 1 MB, and at every size on a crowded node (more ranks
than CPUs, where Open MPI yields while it polls). AllReduce checks its reduce op too, and once
a signature repeats the check travels beside the data (communication/_lease.py). Send /
Receive / Barrier are non-blocking calls waited for politely.
Booleans reduce with logical or (SUM, MAX) and logical and (MIN, PROD); float16 reduces in
float32 and travels as 16-bit patterns otherwise (MPI 3.x has no half type); so does
bfloat16; complex sums and products are MPI's.
"""
import numpy as np

from ...communication import _lease, _mpi
from ..registry import register_kernel

_OPS = {"sum": "SUM", "max": "MAX", "min": "MIN", "prod": "PROD"}
_PLANS = {}                         # AllReduce: (op, dtype) -> (reduced as float32, MPI op)
_BOOL_OPS = {"sum": "LOR", "max": "LOR", "min": "LAND", "prod": "LAND"}


def _mpi_op(op, dtype):
    return getattr(_mpi.STATE["mpi"], (_BOOL_OPS if dtype == np.bool_ else _OPS)[op])


def _half(dtype):
    """float16 and bfloat16 (ml_dtypes, numpy kind 'V'): types MPI 3.x lacks."""
    return dtype == np.float16 or dtype.kind == "V"


def _wire(a):
    """`a` as MPI moves it: contiguous; half types as their 16-bit patterns (Open MPI 4 has
    no half type), for the calls that copy without arithmetic."""
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}") if _half(a.dtype) else a


def _reduce_in(x):
    """The send buffer of a reduction: half types are reduced in float32 (portably across
    MPI versions, and rounded once at the end)."""
    return np.ascontiguousarray(x, np.float32 if _half(x.dtype) else None)


def _reduce_out(out):
    return np.empty(out.shape, np.float32) if _half(out.dtype) else out


def _sig(*arrays):
    return tuple((a.shape, a.dtype) for a in arrays)


def _setup(name, group, *arrays):
    comm = _mpi.comm_of(name, group)
    _mpi.check_signature(name, group, comm, _sig(*arrays))
    return comm


def _size_check(name, comm, rank_size):
    if comm.Get_size() != rank_size:
        raise ValueError(f"For '{name}', the group has {comm.Get_size()} ranks now but "
                         f"{rank_size} when the primitive was made (the group was re-created)")


@register_kernel("AllReduce", provider="mpi", priority=0)
def all_reduce_mpi(x, out, op, group):
    comm = _mpi.comm_of("AllReduce", group)
    dtype = x.dtype
    plan = _PLANS.get((op, dtype))
    if plan is None:
        plan = _PLANS[(op, dtype)] = (_half(dtype), _mpi_op(op, dtype))
    if plan[0]:
        send, recv = np.ascontiguousarray(x, np.float32), np.empty(out.shape, np.float32)
    else:
        send, recv = (x if x.flags.c_contiguous else np.ascontiguousarray(x)), out
    _lease.allreduce("AllReduce", group, comm, ((x.shape, dtype), ("op", op)), send, recv,
                     plan[1])
    if recv is not out:
        np.copyto(out, recv, casting="unsafe")


@register_kernel("AllGather", provider="mpi", priority=0)
def all_gather_mpi(x, out, group, rank_size):
    comm = _setup("AllGather", group, x)
    _size_check("AllGather", comm, rank_size)
    _mpi.move("AllGather", group, comm, out.nbytes, "Allgather", _wire(x), _wire(out))


@register_kernel("ReduceScatter", provider="mpi", priority=0)
def reduce_scatter_mpi(x, out, op, group, rank_size):
    comm = _setup("ReduceScatter", group, x)
    _size_check("ReduceScatter", comm, rank_size)
    recv = _reduce_out(out)
    _mpi.move("ReduceScatter", group, comm, x.nbytes, "Reduce_scatter_block", _reduce_in(x),
              recv, _mpi_op(op, x.dtype))
    if recv is not out:
        np.copyto(out, recv, casting="unsafe")


@register_kernel("Broadcast", provider="mpi", priority=0)
def broadcast_mpi(xs, *outs, root_rank, group):
    comm = _setup("Broadcast", group, *xs)
    root = comm.Get_rank() == root_rank
    for x, out in zip(xs, outs):
        if root:
            np.copyto(out, x)
        _mpi.move("Broadcast", group, comm, out.nbytes, "Bcast", _wire(out), root_rank)


@register_kernel("AlltoAll", provider="mpi", priority=0)
def all_to_all_mpi(x, out, split_dim, concat_dim, group):
    comm = _setup("AlltoAll", group, x)
    n = comm.Get_size()
    send = _wire(np.stack(np.split(x, n, axis=split_dim)))
    recv = np.empty_like(send)
    _mpi.move("AlltoAll", group, comm, send.nbytes, "Alltoall", send, recv)
    np.concatenate(list(recv.view(x.dtype)), axis=concat_dim, out=out)


@register_kernel("Send", provider="mpi", priority=0)
def send_mpi(x, out, sr_tag, dest_rank, group):
    comm = _mpi.comm_of("Send", group)
    _check_peer("Send", "dest_rank", dest_rank, comm)
    send = _wire(x)                         # NOTE: held here until the request completes
    _mpi.wait("Send", group, comm.Isend(send, dest_rank, sr_tag))
    np.copyto(out, x)


@register_kernel("Receive", provider="mpi", priority=0)
def receive_mpi(*args, sr_tag, src_rank, group):
    out = args[-1]
    comm = _mpi.comm_of("Receive", group)
    _check_peer("Receive", "src_rank", src_rank, comm)
    MPI = _mpi.STATE["mpi"]
    status = MPI.Status()
    _mpi.wait_probe("Receive", group, comm, src_rank, sr_tag, status)
    count = status.Get_count(MPI.BYTE)
    if count != out.nbytes:
        scratch = np.empty(count, np.uint8)
        _mpi.wait("Receive", group, comm.Irecv(scratch, src_rank, sr_tag))
        raise ValueError(f"For 'Receive', rank {comm.Get_rank()} expected {out.nbytes} bytes "
                         f"({out.dtype}{list(out.shape)}) from rank {src_rank} with tag "
                         f"{sr_tag}, but rank {src_rank} sent {count} bytes")
    _mpi.wait("Receive", group, comm.Irecv(_wire(out), src_rank, sr_tag))


@register_kernel("Barrier", provider="mpi", priority=0)
def barrier_mpi(out, group):
    comm = _mpi.comm_of("Barrier", group)
    _mpi.wait("Barrier", group, comm.Ibarrier())
    out.fill(0)


def _check_peer(name, arg, rank, comm):
    if rank >= comm.Get_size() or rank == comm.Get_rank():
        raise ValueError(f"For '{name}', '{arg}' must be another rank of the group (size "
                         f"{comm.Get_size()}, this rank {comm.Get_rank()}), but got {rank}")
