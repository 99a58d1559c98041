"""MindSpore 2.10's collective functions in ops (ops.all_reduce, ops.broadcast, ops.send, ...):
the same functions, with the same signatures, as mint.distributed (mindlite/mint/distributed.py,
over mindlite's MPI communication layer), plus gather_into_tensor and scatter_tensor, which
gather into / scatter from one tensor concatenated along dim 0."""
from ...mint import distributed as _D

_SHARED = ("all_gather", "all_gather_into_tensor", "all_gather_into_tensor_uneven",
           "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "barrier",
           "batch_isend_irecv", "broadcast", "broadcast_object_list", "destroy_process_group",
           "gather_object", "get_backend", "get_global_rank", "get_group_rank",
           "get_process_group_ranks", "get_rank", "get_world_size", "init_process_group",
           "irecv", "is_available", "is_initialized", "isend", "new_group", "recv",
           "recv_object_list", "reduce", "reduce_scatter", "reduce_scatter_tensor",
           "reduce_scatter_tensor_uneven", "scatter_object_list", "send", "send_object_list")

__all__ = list(_SHARED) + ["gather_into_tensor", "scatter_tensor"]

globals().update({_name: getattr(_D, _name) for _name in _SHARED})


def _F():
    from .. import functional as F
    return F


def gather_into_tensor(output_tensor, input_tensor, dst=0, group=None, async_op=False):
    """output_tensor on rank dst = every rank's input_tensor concatenated along dim 0."""
    F = _F()
    n = _D.get_world_size(group)
    parts = [F.zeros_like(input_tensor) for _ in range(n)]
    handle = _D.gather(input_tensor, parts if _D.get_rank() == dst else None, dst, group,
                       async_op)
    if _D.get_rank() == dst:
        output_tensor.copy_(F.concat(parts, 0))
    return handle


def scatter_tensor(output_tensor, input_tensor, src=0, group=None, async_op=False):
    """output_tensor on rank i = the i-th of input_tensor's equal dim-0 chunks on rank src."""
    F = _F()
    n = _D.get_world_size(group)
    chunks = F.chunk(input_tensor, n, 0) if _D.get_rank() == src else None
    return _D.scatter(output_tensor, chunks, src, group, async_op)
