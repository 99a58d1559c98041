"""AllReduce's shape check, carried beside the data once a signature repeats (a lease).

Every collective first checks that all ranks pass the same shapes and dtypes
(_mpi.check_signature: a 16-byte allreduce before the data's). That makes two meetings of
the ranks per call: a small allreduce waits two round trips instead of one, and on a
crowded node (more ranks than CPUs) every meeting costs context switches.

Once every rank has passed the same signature (shapes, dtypes and reduce op) `need` checked
calls in a row (2 at first), the group holds a lease on it. A leased call posts a 4-byte
flag allreduce (the MAX of "my signature is not the leased one") together with the data's
allreduce, which every rank makes in the leased form (count, dtype, op): a rank with another
signature reduces a scratch buffer of that form. When the flag comes back 0, every rank
passed the leased signature and the data is right. When it comes back 1, the lease ends on
every rank, the call's result is dropped, and the call goes the checked way, which raises
naming each rank's inputs, or reduces a new common signature (a program that moved on to
another size). A signature whose lease ended needs twice the checked calls before its next
lease, so a program alternating A, A, B pays for one scratch call per doubling, not per
period.

Everything that decides the lease (the checked signatures and the flags) is the same on
every rank, so all ranks make the same MPI calls in the same order. A group's lease (and its
flag buffer) serves one call at a time, as MPI itself orders a group's collectives by the
order of the calls: two threads calling collectives on one group at once is already an
erroneous program in MPI; on different groups they use different leases.

Where the data moves by a blocking call on an uncrowded node (from _mpi.BLOCKING_MIN bytes),
the ranks must meet politely first anyway (see _mpi.move): there the flag is waited for
before the data moves, and a differing rank moves no scratch.
"""
import numpy as np

from . import _mpi

_LEASES = {}                        # group name -> _Lease
FIRST_NEED = 2                      # checked calls in a row before the first lease


class _Lease:
    __slots__ = ("sig", "wire", "last", "streak", "need", "flag", "meet")

    def __init__(self):
        self.sig = self.wire = self.last = None     # leased signature, its (count, dtype, op)
        self.streak = 0                             # checked calls in a row with `last`
        self.need = {}                              # signature -> checked calls for a lease
        self.flag = np.zeros(1, np.int32)           # the flag allreduce's buffer, and
        self.meet = None                            # its persistent request (MPI 4)

    def grant(self, comm, sig, recv, mpi_op):
        """Lease `sig` (every rank calls this at the same call). NOTE: the flag allreduce is
        a persistent request, started at each call: measured with 2 ranks, a 1 MB allreduce
        after a fresh Iallreduce of the flag took 6-7 us longer than alone, 0-4 after a
        persistent one (MPI 3 libraries lack it: then a fresh Iallreduce per call)."""
        self.sig, self.wire = sig, (recv.size, recv.dtype, mpi_op)
        if self.meet is None:
            MPI = _mpi.STATE["mpi"]
            try:
                self.meet = comm.Allreduce_init(MPI.IN_PLACE, self.flag, MPI.MAX)
            except (AttributeError, NotImplementedError):
                self.meet = False

    def free(self):
        if self.meet and not _mpi.STATE["mpi"].Is_finalized():
            self.meet.Free()
        self.meet = None


def forget(group=None):
    """Drop the leases of `group` (of every group when None): the group was destroyed or
    communication released."""
    for name in list(_LEASES) if group is None else [group]:
        lease = _LEASES.pop(name, None)
        if lease is not None:
            lease.free()


def allreduce(name, group, comm, sig, send, recv, mpi_op):
    """recv = mpi_op over every rank's send (contiguous, the same count and dtype), after
    checking that every rank passed the same `sig` (ValueError naming each rank's otherwise).
    """
    if not _mpi._CHECK[0]:
        _mpi.move(name, group, comm, recv.nbytes, "Allreduce", send, recv, mpi_op)
        return
    lease = _LEASES.get(group)
    if lease is None:
        lease = _LEASES.setdefault(group, _Lease())
    if lease.sig is not None and _leased(name, group, comm, lease, sig == lease.sig, send,
                                         recv):
        return
    _mpi.check_signature(name, group, comm, sig)
    if lease.last == sig:
        lease.streak += 1
    else:
        lease.last, lease.streak = sig, 1
    if lease.streak >= lease.need.get(sig, FIRST_NEED):
        lease.grant(comm, sig, recv, mpi_op)
    _mpi.move(name, group, comm, recv.nbytes, "Allreduce", send, recv, mpi_op)


def _leased(name, group, comm, lease, mine, send, recv):
    """The leased call; False when some rank's signature was not the leased one (the lease
    has ended then, on every rank). NOTE: written for few Python steps: between two 1 MB
    allreduces the interpreter runs from cold caches, and each step costs microseconds."""
    MPI = _mpi.STATE["mpi"]
    count, dtype, mpi_op = lease.wire
    flag, meet = lease.flag, lease.meet
    flag[0] = not mine
    if not mine:                    # join the leased call with scratch buffers of its form
        send, recv = np.zeros(count, dtype), np.empty(count, dtype)     # NOTE: not IN_PLACE:
        # Open MPI's non-blocking allreduce picks another algorithm for in-place buffers
    if meet:
        meet.Start()
    else:
        meet = comm.Iallreduce(MPI.IN_PLACE, flag, MPI.MAX)
    if _mpi.STATE["crowded"]:               # MPI yields while it polls: one blocking wait
        with _mpi.pending(name, group):
            MPI.Request.Waitall([meet, comm.Iallreduce(send, recv, mpi_op)])
    elif count * dtype.itemsize < _mpi.BLOCKING_MIN:
        data = comm.Iallreduce(send, recv, mpi_op)
        if not (meet.Test() and data.Test()):
            _mpi.wait_all(name, group, [meet, data])
    else:                                   # every rank here, politely, before a blocking call
        if not meet.Test():
            _mpi.wait(name, group, meet)
        if not flag[0]:
            with _mpi.pending(name, group):
                comm.Allreduce(send, recv, mpi_op)
            return True
    if not flag[0]:
        return True
    sig = lease.sig
    if len(lease.need) >= 4096:
        lease.need.clear()
    lease.need[sig] = 2 * lease.need.get(sig, FIRST_NEED)
    lease.sig = lease.wire = lease.last = None
    lease.streak = 0
    return False
