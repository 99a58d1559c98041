"""MPI kernels of comm_ops (provider "mpi"): AllReduce, AllGather, ReduceScatter, Broadcast,
AlltoAll, Send, Receive, Barrier.

Buffers go to MPI as memory (mpi4py's buffer interface on numpy arrays: no pickling), and
results are written in place into the output buffer the runtime allocated. Each kernel
first checks that every rank of the group passes the same shapes and dtypes (one 16-byte
allreduce of a hash: communication/_mpi.check_signature). The MPI calls are non-blocking,
waited for by communication/_mpi.wait (test, then yield the CPU between tests; watchdog).
Booleans reduce with logical or (SUM, MAX) and logical and (MIN, PROD).
"""
import numpy as np

from ...communication import _mpi
from ..registry import register_kernel

_OPS = {"sum": "SUM", "max": "MAX", "min": "MIN", "prod": "PROD"}
_BOOL_OPS = {"sum": "LOR", "max": "LOR", "min": "LAND", "prod": "LAND"}


def _mpi_op(op, dtype):
    return getattr(_mpi.STATE["mpi"], (_BOOL_OPS if dtype == np.bool_ else _OPS)[op])


def _sig(*arrays):
    return tuple((a.shape, a.dtype.str) for a in arrays)


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
    comm = _setup("AllReduce", group, x)
    send = np.ascontiguousarray(x)          # NOTE: held here until the request completes
    _mpi.wait("AllReduce", group, comm.Iallreduce(send, out, _mpi_op(op, x.dtype)))


@register_kernel("AllGather", provider="mpi", priority=0)
def all_gather_mpi(x, out, group, rank_size):
    comm = _setup("AllGather", group, x)
    _size_check("AllGather", comm, rank_size)
    send = np.ascontiguousarray(x)
    _mpi.wait("AllGather", group, comm.Iallgather(send, out))


@register_kernel("ReduceScatter", provider="mpi", priority=0)
def reduce_scatter_mpi(x, out, op, group, rank_size):
    comm = _setup("ReduceScatter", group, x)
    _size_check("ReduceScatter", comm, rank_size)
    send = np.ascontiguousarray(x)
    _mpi.wait("ReduceScatter", group, comm.Ireduce_scatter_block(send, out,
                                                                 _mpi_op(op, x.dtype)))


@register_kernel("Broadcast", provider="mpi", priority=0)
def broadcast_mpi(xs, *outs, root_rank, group):
    comm = _setup("Broadcast", group, *xs)
    root = comm.Get_rank() == root_rank
    for x, out in zip(xs, outs):
        if root:
            np.copyto(out, x)
        _mpi.wait("Broadcast", group, comm.Ibcast(out, root_rank))


@register_kernel("AlltoAll", provider="mpi", priority=0)
def all_to_all_mpi(x, out, split_dim, concat_dim, group):
    comm = _setup("AlltoAll", group, x)
    n = comm.Get_size()
    send = np.ascontiguousarray(np.stack(np.split(x, n, axis=split_dim)))
    recv = np.empty_like(send)
    _mpi.wait("AlltoAll", group, comm.Ialltoall(send, recv))
    np.concatenate(list(recv), axis=concat_dim, out=out)


@register_kernel("Send", provider="mpi", priority=0)
def send_mpi(x, out, sr_tag, dest_rank, group):
    comm = _mpi.comm_of("Send", group)
    _check_peer("Send", "dest_rank", dest_rank, comm)
    send = np.ascontiguousarray(x)
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
    _mpi.wait("Receive", group, comm.Irecv(out, src_rank, sr_tag))


@register_kernel("Barrier", provider="mpi", priority=0)
def barrier_mpi(out, group):
    comm = _mpi.comm_of("Barrier", group)
    _mpi.wait("Barrier", group, comm.Ibarrier())
    out.fill(0)


def _check_peer(name, arg, rank, comm):
    if rank >= comm.Get_size() or rank == comm.Get_rank():
        raise ValueError(f"For '{name}', '{arg}' must be another rank of the group (size "
                         f"{comm.Get_size()}, this rank {comm.Get_rank()}), but got {rank}")
