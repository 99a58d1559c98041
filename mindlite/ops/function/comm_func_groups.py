"""Process groups of the collectives (ops/function/comm_func.py, mint.distributed):
init_process_group, new_group, get_rank, get_world_size, ... over mindlite.communication
(MPI), and the helpers the collectives share (the group a call names, reduction names,
the handle an async_op call returns). Before init_process_group a process is a world of
one rank: get_rank() 0, get_world_size() 1.
"""
import itertools
import threading

from ...communication import _mpi, management as M


_GROUP_IDS = itertools.count()
_LOCK = threading.Lock()
_OPS = {"sum": "sum", "max": "max", "min": "min", "prod": "prod", "product": "prod"}


class _Handle:
    """What an async_op call returns: the work is already done."""

    def wait(self):
        return True

    def is_completed(self):
        return True


def _done(async_op):
    return _Handle() if async_op else None


def _group(group):
    return M.GlobalComm.WORLD_COMM_GROUP if group is None else group


def _world_size_or_one(group=None):
    return M.get_group_size(_group(group)) if M.GlobalComm.INITED else 1


def _alone(group):
    return not M.GlobalComm.INITED or _world_size_or_one(group) == 1


def _op(op):
    name = getattr(op, "value", op)
    name = str(name).lower().rsplit(".", 1)[-1]
    if name not in _OPS:
        raise ValueError(f"For 'mint.distributed', 'op' must be one of 'sum', 'max', 'min', "
                         f"'prod', but got {op!r}")
    return _OPS[name]


# ---- process groups --------------------------------------------------------------------------
def is_available():
    try:
        _mpi.mpi_module()
    except ImportError:
        return False
    return True


def is_initialized():
    return M.GlobalComm.INITED


def init_process_group(backend="hccl", init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Start the communication service (MPI; any backend name is served by MPI on the CPU).
    world_size / rank, when given, must match what mpiexec assigned."""
    M.init("mccl")
    if world_size not in (-1, None) and world_size != M.get_group_size():
        raise ValueError(f"For 'init_process_group', 'world_size' {world_size} does not match "
                         f"the {M.get_group_size()} ranks the job was started with")
    if rank not in (-1, None) and rank != M.get_rank():
        raise ValueError(f"For 'init_process_group', 'rank' {rank} does not match this "
                         f"process's rank {M.get_rank()}")


def destroy_process_group(group=None):
    if group is None or group == M.GlobalComm.WORLD_COMM_GROUP:
        M.release()
    else:
        M.destroy_group(group)


def get_backend(group=None):
    return M.GlobalComm.BACKEND


def get_rank(group=None):
    return M.get_rank(_group(group)) if M.GlobalComm.INITED else 0


def get_world_size(group=None):
    return _world_size_or_one(group)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None):
    """A new group of the world ranks `ranks` (all of them for None); every rank calls it.
    Returns the group's name."""
    size = M.get_group_size()
    ranks = list(range(size)) if ranks is None else list(ranks)
    with _LOCK:
        name = group_desc or f"mint_group_{next(_GROUP_IDS)}"
    M.create_group(name, ranks)
    return name


def get_global_rank(group, group_rank):
    return M.get_world_rank_from_group_rank(group, group_rank)


def get_group_rank(group, global_rank):
    return M.get_group_rank_from_world_rank(global_rank, group)


def get_process_group_ranks(group=None):
    g = _group(group)
    if g == M.GlobalComm.WORLD_COMM_GROUP:
        return list(range(get_world_size()))
    return list(M._ranks("get_process_group_ranks", g))
