"""Collectives of MindSpore 2.10's ops (ops.all_reduce, ops.broadcast, ops.send, ...) and
mint.distributed (the same functions, same signatures; mindlite/mint/distributed.py re-exports
them with gather, scatter and P2POp): PyTorch-style collectives over mindlite's communication
layer (mindlite.communication: MPI through mpi4py; start the ranks with
`mpiexec -n N python script.py`).

Tensor collectives run the collective primitives (ops.AllReduce, AllGather, ReduceScatter,
Broadcast, AlltoAll, Barrier, Send, Receive), so they are recorded for autograd as ops'
are, and write their result into the given output tensors in place (Tensor.copy_), as
PyTorch's do. Collectives with unequal per-rank sizes pad to the largest size (the sizes
are exchanged first). The object collectives pickle through mpi4py. `async_op=True` runs
the call at once and returns a handle whose wait() returns True (MindSpore returns a
CommHandle). Before init_process_group a process is a world of one rank: get_rank() 0,
get_world_size() 1, collectives over that world are identities. gather_into_tensor and
scatter_tensor gather into / scatter from one tensor concatenated along dim 0.
"""
import numpy as np

from ...common.tensor import Tensor
from ...communication import _mpi, management as M
from .. import functional as F
from .. import operations as P
from .comm_func_groups import (  # noqa: F401  (re-exported: ops.get_rank, mint.distributed)
    _alone, _done, _group, _op, _world_size_or_one, destroy_process_group, get_backend,
    get_global_rank, get_group_rank, get_process_group_ranks, get_rank, get_world_size,
    init_process_group, is_available, is_initialized, new_group)

# ops' names (mint.distributed adds gather, scatter and P2POp: ops has other gather / scatter)
__all__ = ['all_gather', 'all_gather_into_tensor', 'all_gather_into_tensor_uneven',
           'all_gather_object', 'all_reduce', 'all_to_all', 'all_to_all_single', 'barrier',
           'batch_isend_irecv', 'broadcast', 'broadcast_object_list', 'destroy_process_group',
           'gather_into_tensor', 'gather_object', 'get_backend', 'get_global_rank',
           'get_group_rank', 'get_process_group_ranks', 'get_rank', 'get_world_size',
           'init_process_group', 'irecv', 'is_available', 'is_initialized', 'isend', 'new_group',
           'recv', 'recv_object_list', 'reduce', 'reduce_scatter', 'reduce_scatter_tensor',
           'reduce_scatter_tensor_uneven', 'scatter_object_list', 'scatter_tensor', 'send',
           'send_object_list']

# ---- tensor collectives ----------------------------------------------------------------------
def all_reduce(tensor, op="sum", group=None, async_op=False):
    """tensor = the reduction (sum, max, min, prod) of every rank's tensor, in place."""
    if not _alone(group):
        tensor.copy_(P.AllReduce(_op(op), _group(group))(tensor))
    return _done(async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """tensor = the tensor of rank `src` (a world rank), on every rank."""
    if not _alone(group):
        g = _group(group)
        root = src if g == M.GlobalComm.WORLD_COMM_GROUP else get_group_rank(g, src)
        tensor.copy_(P.Broadcast(root, g)((tensor,))[0])
    return _done(async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """output = every rank's input concatenated along dim 0."""
    out = input_tensor if _alone(group) else P.AllGather(_group(group))(input_tensor)
    output_tensor.copy_(F.reshape(out, output_tensor.shape))
    return _done(async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[i] = rank i's tensor."""
    n = get_world_size(group)
    if len(tensor_list) != n:
        raise ValueError(f"For 'all_gather', 'tensor_list' must hold {n} tensors, but got "
                         f"{len(tensor_list)}")
    x = F.expand_dims(tensor, 0)
    out = x if _alone(group) else P.AllGather(_group(group))(x)
    for i, t in enumerate(tensor_list):
        t.copy_(out[i])
    return _done(async_op)


def _sizes(n0, group):
    """Every rank's leading size (exchanged as objects)."""
    if _alone(group):
        return [n0]
    return _comm(group).allgather(int(n0))


def all_gather_into_tensor_uneven(output, input, output_split_sizes=None, group=None,
                                  async_op=False):
    """output = every rank's input (leading sizes may differ) concatenated along dim 0."""
    sizes = _sizes(input.shape[0], group) if output_split_sizes is None else \
        list(output_split_sizes)
    top = max(sizes)
    x = input
    if input.shape[0] < top:
        x = F.concat([input, F.zeros((top - input.shape[0],) + input.shape[1:], input.dtype)])
    gathered = x if _alone(group) else P.AllGather(_group(group))(x)
    parts = [gathered[i * top:i * top + s] for i, s in enumerate(sizes)]
    output.copy_(F.concat(parts, 0))
    return _done(async_op)


def reduce_scatter_tensor(output, input, op="sum", group=None, async_op=False):
    """output = this rank's block (along dim 0) of the reduction of every rank's input."""
    out = input if _alone(group) else P.ReduceScatter(_op(op), _group(group))(input)
    output.copy_(out)
    return _done(async_op)


def reduce_scatter(output, input_list, op="sum", group=None, async_op=False):
    return reduce_scatter_tensor(output, F.concat(list(input_list), 0), op, group, async_op)


def reduce_scatter_tensor_uneven(output, input, input_split_sizes=None, op="sum", group=None,
                                 async_op=False):
    """output = this rank's block (sizes input_split_sizes) of the reduced input."""
    n = get_world_size(group)
    sizes = list(input_split_sizes) if input_split_sizes is not None else \
        [input.shape[0] // n] * n
    reduced = input if _alone(group) else P.AllReduce(_op(op), _group(group))(input)
    start = sum(sizes[:get_rank(group)])
    output.copy_(reduced[start:start + sizes[get_rank(group)]])
    return _done(async_op)


def reduce(tensor, dst, op="sum", group=None, async_op=False):
    """tensor on rank dst = the reduction of every rank's tensor (others keep theirs)."""
    if not _alone(group):
        out = P.AllReduce(_op(op), _group(group))(tensor)
        if get_rank() == dst:
            tensor.copy_(out)
    return _done(async_op)


def gather(tensor, gather_list, dst=0, group=None, async_op=False):
    """gather_list on rank dst = every rank's tensor."""
    n = get_world_size(group)
    x = F.expand_dims(tensor, 0)
    out = x if _alone(group) else P.AllGather(_group(group))(x)
    if get_rank() == dst:
        if gather_list is None or len(gather_list) != n:
            raise ValueError(f"For 'gather', 'gather_list' must hold {n} tensors on the "
                             f"destination rank")
        for i, t in enumerate(gather_list):
            t.copy_(out[i])
    return _done(async_op)


def scatter(tensor, scatter_list, src=0, group=None, async_op=False):
    """tensor on rank i = scatter_list[i] of rank src."""
    n = get_world_size(group)
    if get_rank() == src:
        stacked = F.stack(list(scatter_list), 0)
    else:
        stacked = F.zeros((n,) + tuple(tensor.shape), tensor.dtype)
    if not _alone(group):
        g = _group(group)
        stacked = P.Broadcast(src, g)((stacked,))[0]
    tensor.copy_(stacked[get_rank(group)])
    return _done(async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """Rank r's block i of input goes to rank i's block r of output (equal blocks along dim 0,
    or the given split sizes)."""
    n = get_world_size(group)
    if _alone(group):
        output.copy_(input)
        return _done(async_op)
    if input_split_sizes is None and output_split_sizes is None:
        output.copy_(P.AlltoAll(n, 0, 0, _group(group))(input))
        return _done(async_op)
    comm = _comm(group)
    arr = np.ascontiguousarray(input.asnumpy())
    ins = list(input_split_sizes) if input_split_sizes is not None else \
        [arr.shape[0] // n] * n
    blocks = np.split(arr, np.cumsum(ins)[:-1])
    got = comm.alltoall(blocks)
    output.copy_(Tensor(np.concatenate(got, 0)))
    return _done(async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """output_tensor_list[i] = rank i's input_tensor_list[this rank]."""
    if _alone(group):
        for o, i in zip(output_tensor_list, input_tensor_list):
            o.copy_(i)
        return _done(async_op)
    got = _comm(group).alltoall([np.ascontiguousarray(t.asnumpy()) for t in input_tensor_list])
    for o, a in zip(output_tensor_list, got):
        o.copy_(Tensor(a))
    return _done(async_op)


def barrier(group=None, async_op=False, device_ids=None):
    if not _alone(group):
        P.Barrier(_group(group))()
    return _done(async_op)


# ---- point to point --------------------------------------------------------------------------
def _comm(group):
    return _mpi.comm_of("mint.distributed", _group(group))


def send(tensor, dst=0, group=None, tag=0):
    _comm(group).Send(np.ascontiguousarray(tensor.asnumpy()), dest=dst, tag=tag)


def recv(tensor, src=0, group=None, tag=0):
    buf = np.empty(tensor.shape, tensor.dtype.np)
    status = _mpi.mpi_module().Status()
    _comm(group).Recv(buf, source=src, tag=tag, status=status)
    tensor.copy_(Tensor(buf))
    return status.Get_source()


class _Request:
    def __init__(self, request, finish=None):
        self._request, self._finish = request, finish

    def wait(self):
        self._request.Wait()
        if self._finish is not None:
            self._finish()
            self._finish = None
        return True


def isend(tensor, dst=0, group=None, tag=0):
    buf = np.ascontiguousarray(tensor.asnumpy()).copy()
    req = _comm(group).Isend(buf, dest=dst, tag=tag)
    return _Request(req)


def irecv(tensor, src=0, group=None, tag=0):
    buf = np.empty(tensor.shape, tensor.dtype.np)
    req = _comm(group).Irecv(buf, source=src, tag=tag)
    return _Request(req, lambda: tensor.copy_(Tensor(buf)))


class P2POp:
    """One point-to-point operation for batch_isend_irecv: op is isend or irecv."""

    def __init__(self, op, tensor, peer, group=None, tag=0):
        if op not in (isend, irecv, "isend", "irecv"):
            raise ValueError(f"For 'P2POp', 'op' must be isend or irecv, but got {op!r}")
        self.op = isend if op in (isend, "isend") else irecv
        self.tensor, self.peer, self.group, self.tag = tensor, peer, group, tag


def batch_isend_irecv(p2p_op_list):
    """Start every operation (non-blocking), return their requests."""
    return [op.op(op.tensor, op.peer, op.group, op.tag) for op in p2p_op_list]


# ---- objects ---------------------------------------------------------------------------------
def all_gather_object(object_list, obj, group=None):
    got = [obj] if _alone(group) else _comm(group).allgather(obj)
    object_list[:len(got)] = got


def broadcast_object_list(object_list, src=0, group=None, device=None):
    if not _alone(group):
        object_list[:] = _comm(group).bcast(list(object_list), root=src)


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    got = [obj] if _alone(group) else _comm(group).gather(obj, root=dst)
    if get_rank() == dst and object_gather_list is not None:
        object_gather_list[:len(got)] = got


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0,
                        group=None):
    if _alone(group):
        scatter_object_output_list[0] = scatter_object_input_list[0]
        return
    scatter_object_output_list[0] = _comm(group).scatter(
        list(scatter_object_input_list) if get_rank() == src else None, root=src)


def send_object_list(object_list, dst, group=None, device=None):
    _comm(group).send(list(object_list), dest=dst)


def recv_object_list(object_list, src=0, group=None, device=None):
    object_list[:] = _comm(group).recv(source=src)


def gather_into_tensor(output_tensor, input_tensor, dst=0, group=None, async_op=False):
    """output_tensor on rank dst = every rank's input_tensor concatenated along dim 0."""
    n = get_world_size(group)
    parts = [F.zeros_like(input_tensor) for _ in range(n)]
    handle = gather(input_tensor, parts if get_rank() == dst else None, dst, group, async_op)
    if get_rank() == dst:
        output_tensor.copy_(F.concat(parts, 0))
    return handle


def scatter_tensor(output_tensor, input_tensor, src=0, group=None, async_op=False):
    """output_tensor on rank i = the i-th of input_tensor's equal dim-0 chunks on rank src."""
    n = get_world_size(group)
    chunks = F.chunk(input_tensor, n, 0) if get_rank() == src else None
    return scatter(output_tensor, chunks, src, group, async_op)
