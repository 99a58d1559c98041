"""mindlite.communication's functions, as mindspore.communication.management: init,
release, ranks and sizes, groups.

mindlite's communication runs on MPI (mpi4py): start the same script in several processes
with `mpiexec -n 4 python script.py` (a hostfile spreads them over machines) and call
`init()` in each; rank and size come from mpiexec. MindSpore's CPU backend name "mccl" (and
"mpi") select it; "hccl" and "nccl" need Ascend / GPU devices, which mindlite has not, and
raise as MindSpore does on CPU. A process started without mpiexec is a world of one rank.

Groups are MPI sub-communicators: create_group(name, rank_ids) must be called by every rank
of the world, in the same order (MPI builds the communicator collectively); ranks outside
rank_ids get a placeholder, and using the group there raises.

Before init, get_rank / get_group_size / get_local_rank / get_local_rank_size of the world
answer 0 / 1 and release() does nothing, as in MindSpore 2.10; collectives, groups and
named-group queries raise a RuntimeError naming the function.
"""
from . import _lease, _mpi

__all__ = ["GlobalComm", "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP",
           "MCCL_WORLD_COMM_GROUP", "init", "release", "get_rank", "get_local_rank",
           "get_group_size", "get_local_rank_size", "get_world_rank_from_group_rank",
           "get_group_rank_from_world_rank", "create_group", "destroy_group"]

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"


class GlobalComm:
    """World communication information: BACKEND (the backend name, "mccl" on CPU),
    WORLD_COMM_GROUP (the world group's name), INITED (whether init() ran)."""
    BACKEND = "mccl"
    WORLD_COMM_GROUP = MCCL_WORLD_COMM_GROUP
    INITED = False


def init(backend_name=None):
    """Initialize the communication service of this process (MPI_Init through mpi4py).
    backend_name: None, "mccl" or "mpi" (all MPI here). Calling it again does nothing."""
    if backend_name is not None and not isinstance(backend_name, str):
        raise TypeError("For 'init', the argument 'backend_name' must be a string, but got the "
                        f"type : {type(backend_name)}")
    if backend_name in ("hccl", "nccl"):
        raise RuntimeError(f"For 'init', the argument 'backend_name' should be 'mccl' to init "
                           f"'CPU', but got '{backend_name}' (mindlite runs on CPU only; its "
                           "collectives use MPI)")
    if backend_name not in (None, "mccl", "mpi"):
        raise RuntimeError("For 'init', the argument 'backend_name' must be one of 'hccl', "
                           f"'nccl' and 'mccl' (or 'mpi'), but got 'backend_name' : "
                           f"{backend_name}")
    with _mpi.LOCK:                 # threads calling init at once: one world, one watchdog
        if GlobalComm.INITED:
            return
        _mpi.start("mccl", MCCL_WORLD_COMM_GROUP)
        GlobalComm.BACKEND = "mccl"
        GlobalComm.WORLD_COMM_GROUP = MCCL_WORLD_COMM_GROUP
        GlobalComm.INITED = True


def release():
    """Free the groups and the world communicator (MPI itself is finalized at exit); before
    init it does nothing (as MindSpore)."""
    with _mpi.LOCK:
        if GlobalComm.INITED:
            _lease.forget()             # its persistent requests before their communicators
            _mpi.stop()
            GlobalComm.INITED = False


def _group(fn, group):
    return _mpi.comm_of(fn, GlobalComm.WORLD_COMM_GROUP if group is None else group)


def _standalone(group):
    """Before init, the rank and size getters of the world answer for a single process
    (rank 0 of 1), as MindSpore 2.10's do; every other call raises."""
    return not GlobalComm.INITED and group in (None, GlobalComm.WORLD_COMM_GROUP)


def get_rank(group=None):
    """This process's rank in `group` (default: the world)."""
    return 0 if _standalone(group) else _group("get_rank", group).Get_rank()


def get_group_size(group=None):
    """The number of ranks of `group` (default: the world)."""
    return 1 if _standalone(group) else _group("get_group_size", group).Get_size()


def _local(fn, group):
    comm = _group(fn, group)
    cache = _mpi.STATE.setdefault("local", {})
    local = cache.get(id(comm))
    if local is None:
        MPI = _mpi.mpi_module()
        local = cache[id(comm)] = comm.Split_type(MPI.COMM_TYPE_SHARED)
    return local


def get_local_rank(group=None):
    """This process's rank among the ranks of `group` on this machine."""
    return 0 if _standalone(group) else _local("get_local_rank", group).Get_rank()


def get_local_rank_size(group=None):
    """The number of ranks of `group` on this machine."""
    return 1 if _standalone(group) else _local("get_local_rank_size", group).Get_size()


def _check_group_name(fn, group):
    if not isinstance(group, str):
        raise TypeError(f"For '{fn}', the argument 'group' must be type of string, but got "
                        f"'group' type : {type(group)}")


def get_world_rank_from_group_rank(group, group_rank_id):
    """The world rank of rank `group_rank_id` of `group`."""
    _check_group_name("get_world_rank_from_group_rank", group)
    ranks = _ranks("get_world_rank_from_group_rank", group)
    if not isinstance(group_rank_id, int) or not 0 <= group_rank_id < len(ranks):
        raise ValueError(f"For 'get_world_rank_from_group_rank', 'group_rank_id' must be an int "
                         f"in [0, {len(ranks)}), but got {group_rank_id!r}")
    return ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id, group):
    """The rank in `group` of world rank `world_rank_id`."""
    _check_group_name("get_group_rank_from_world_rank", group)
    ranks = _ranks("get_group_rank_from_world_rank", group)
    if world_rank_id not in ranks:
        raise ValueError(f"For 'get_group_rank_from_world_rank', the world rank "
                         f"{world_rank_id!r} is not in group '{group}' (ranks {list(ranks)})")
    return ranks.index(world_rank_id)


def _ranks(fn, group):
    _mpi.require_init(fn)
    if group == GlobalComm.WORLD_COMM_GROUP:
        return tuple(range(_mpi.STATE["world"].Get_size()))
    entry = _mpi.STATE["groups"].get(group)
    if entry is None:
        _mpi.comm_of(fn, group)
    return entry[1]


def create_group(group, rank_ids, options=None):
    """Create the group `group` of the world ranks `rank_ids` (more than one, distinct),
    called by every rank of the world."""
    _mpi.require_init("create_group")
    _check_group_name("create_group", group)
    if not isinstance(rank_ids, (list, tuple)):
        raise TypeError("For 'create_group', the argument 'rank_ids' must be type of list, but "
                        f"got 'rank_ids' type : {type(rank_ids)}")
    world = _mpi.STATE["world"]
    size = world.Get_size()
    if len(rank_ids) < 2 or len(set(rank_ids)) != len(rank_ids) or not all(
            isinstance(r, int) and not isinstance(r, bool) and 0 <= r < size for r in rank_ids):
        raise ValueError("For 'create_group', 'rank_ids' must hold more than one distinct rank "
                         f"in [0, {size}), but got {list(rank_ids)}")
    if group == GlobalComm.WORLD_COMM_GROUP or group in _mpi.STATE["groups"]:
        raise ValueError(f"For 'create_group', the group '{group}' already exists")
    sub = world.Split(0 if world.Get_rank() in rank_ids else _mpi.mpi_module().UNDEFINED,
                      key=rank_ids.index(world.Get_rank()) if world.Get_rank() in rank_ids
                      else 0)
    comm = None if sub == _mpi.mpi_module().COMM_NULL else sub
    _mpi.STATE["groups"][group] = (comm, tuple(rank_ids))


def destroy_group(group):
    """Free the group `group` (called by every rank of the world)."""
    _mpi.require_init("destroy_group")
    _check_group_name("destroy_group", group)
    if group == GlobalComm.WORLD_COMM_GROUP:
        raise ValueError("For 'destroy_group', the world group cannot be destroyed")
    entry = _mpi.STATE["groups"].pop(group, None)
    if entry is None:
        raise ValueError(f"For 'destroy_group', the group '{group}' does not exist")
    _lease.forget(group)
    if entry[0] is not None:
        _mpi.STATE.get("local", {}).pop(id(entry[0]), None)
        entry[0].Free()
