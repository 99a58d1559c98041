"""The PyTorch column of the latency benchmarks (op_latency.py, op_latency_sizes.py), timed in a
child process of its own, one batch per request, so the rounds still interleave.

Why: the benchmarks compare libraries side by side, taking turns one batch each per round, so
load from other processes hits every column alike. In one process PyTorch's threads and
mindlite's (and OpenBLAS's) shared two cores badly: PyTorch's OpenMP workers kept spinning after
its batch and took the second core while mindlite's batch ran (mindlite's 2-thread split then
ran at half speed), and OMP_WAIT_POLICY=PASSIVE flipped the ratio by slowing PyTorch instead.
In its own process (with its own 2 threads) torch's runtimes never touch the parent, which never
imports torch; and since a spinning worker takes a core from another process just the same,
every batch on either side ends with settle() (below), outside its timed region.

Parent side:
    child = TorchChild(script, threads)     # runs `python script --torch-child THREADS`
    h = child.load(a, b)                     # numpy inputs -> torch tensors in the child
    case = child.case("add", h)              # has batch_size(seconds) and time_batch(n)
    child.release(h); child.close()
Child side, in the script's --torch-child mode: serve({name: torch fn(x, y)}, threads).
LocalCase gives the parent's own columns (mindlite, numpy) the same two methods, so a
benchmark's round loop treats every column alike.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import numpy as np


def torch_installed():
    """Whether torch can be imported, without importing it (the parent must not)."""
    return importlib.util.find_spec("torch") is not None


def _running_threads():
    """How many of this process's other threads are running or runnable (state R)."""
    me, n = str(threading.get_native_id()), 0
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                n += tid != me and f.read().rsplit(")", 1)[1].split()[0] == "R"
        except FileNotFoundError:                # the thread has just exited
            pass
    return n


def settle(limit_s=0.5, poll_s=0.0005):
    """Returns once this process's worker threads have gone to sleep (or after limit_s).

    NOTE: thread pools spin after their work before sleeping, and a spinning worker takes a
    core from whichever column's batch runs next, in this process or the other. Measured on the
    2-core VM after 1024x1024 batches: PyTorch's OpenMP workers spin ~8 ms, OpenBLAS's (numpy's
    matmul, and mindlite's) ~100 ms, mindlite's own pool 0.1-2 ms. So every batch, local or in
    the child, ends with settle() outside its timed region, and the next batch starts on a quiet
    machine (but for other processes' load). Thread states come from /proc (Linux); elsewhere
    this returns at once."""
    if not os.path.isdir("/proc/self/task"):
        return
    deadline = time.perf_counter() + limit_s
    while _running_threads() and time.perf_counter() < deadline:
        time.sleep(poll_s)


def batch_size(fn, x, y, seconds):
    """How many fn(x, y) calls take about `seconds` (one warm-up call first; at least 1)."""
    fn(x, y)
    t0, n = time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        fn(x, y)
        n += 1
    settle()
    return max(1, n)


def time_batch(fn, x, y, n, clock=time.perf_counter_ns):
    """µs per call of n back-to-back fn(x, y) calls (`clock` in ns); settles afterwards."""
    t0 = clock()
    for _ in range(n):
        fn(x, y)
    us = (clock() - t0) / n / 1e3
    settle()
    return us


class LocalCase:
    """fn(x, y) timed in this process."""

    def __init__(self, fn, x, y, clock=time.perf_counter_ns):
        self.fn, self.x, self.y, self.clock = fn, x, y, clock

    def batch_size(self, seconds):
        return batch_size(self.fn, self.x, self.y, seconds)

    def time_batch(self, n):
        return time_batch(self.fn, self.x, self.y, n, self.clock)


class RemoteCase:
    """A torch op on inputs loaded in the child, timed there (perf_counter) one batch a call;
    the parent blocks on the pipe meanwhile, so it takes no CPU from the batch."""

    def __init__(self, child, op, inputs):
        self.child, self.op, self.inputs = child, op, inputs

    def batch_size(self, seconds):
        return self.child.ask("batch_size", op=self.op, inputs=self.inputs, seconds=seconds)

    def time_batch(self, n):
        return self.child.ask("time_batch", op=self.op, inputs=self.inputs, n=n)


class TorchChild:
    """The parent's handle on the child: JSON lines on its stdin and stdout."""

    def __init__(self, script, threads=2):
        self._tmp = tempfile.TemporaryDirectory(prefix="torch_child_")
        # the child's script imports mindlite: MINDLITE_MALLOC_TUNE=0 leaves PyTorch glibc's
        # malloc defaults, as a PyTorch user has them (csrc/runtime/malloc_policy.cc)
        self._proc = subprocess.Popen(
            [sys.executable, os.path.abspath(script), "--torch-child", str(threads)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
            env=dict(os.environ, MINDLITE_MALLOC_TUNE="0"))
        hello = self._reply()
        self.version, self.threads = hello["torch"], hello["threads"]

    def _reply(self):
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the PyTorch child process exited (code {self._proc.wait()}); "
                               "its error is above")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"the PyTorch child process failed:\n{reply['error']}")
        return reply

    def ask(self, cmd, **args):
        self._proc.stdin.write(json.dumps({"cmd": cmd, **args}) + "\n")
        self._proc.stdin.flush()
        return self._reply()["result"]

    def load(self, *arrays, requires_grad=False):
        """Copies the arrays (dtype and values exact, through .npy files) into the child as
        torch tensors; returns their handle."""
        paths = []
        for i, a in enumerate(arrays):
            paths.append(os.path.join(self._tmp.name, f"{i}.npy"))
            np.save(paths[-1], a)
        try:
            return self.ask("load", paths=paths, requires_grad=requires_grad)
        finally:
            for p in paths:
                os.remove(p)

    def case(self, op, inputs):
        return RemoteCase(self, op, inputs)

    def release(self, inputs):
        self.ask("release", inputs=inputs)

    def close(self):
        if self._proc.poll() is None:
            self._proc.stdin.close()             # end of requests: the child returns
            self._proc.wait()
        self._tmp.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _warm_up(torch, seconds=0.5):
    """NOTE: in a fresh process PyTorch's first large ops run up to 2-3x slow for ~0.3 s
    (measured: 1024x1024 adds at 130-460 µs, then ~80), which landed on the first large row
    only, the parent being long warm. So the child runs large adds before its first answer."""
    x = torch.ones(1024, 1024)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        torch.add(x, x)
    settle()


def serve(ops, threads):
    """The child's loop: answers the parent's requests until its stdin closes. Replies go to the
    real stdout; anything else printed goes to stderr so it cannot break the protocol."""
    import torch
    torch.set_num_threads(threads)
    out, sys.stdout = sys.stdout, sys.stderr
    inputs, next_handle = {}, 0

    def reply(**msg):
        out.write(json.dumps(msg) + "\n")
        out.flush()

    def load(paths, requires_grad):
        nonlocal next_handle
        tensors = [torch.from_numpy(np.load(p)) for p in paths]
        if requires_grad:
            tensors = [t.requires_grad_(True) for t in tensors]
        next_handle += 1
        inputs[next_handle] = (tensors + [None, None])[:2]
        return next_handle

    def release(handle):
        del inputs[handle]

    commands = {
        "load": lambda r: load(r["paths"], r["requires_grad"]),
        "batch_size": lambda r: batch_size(ops[r["op"]], *inputs[r["inputs"]], r["seconds"]),
        "time_batch": lambda r: time_batch(ops[r["op"]], *inputs[r["inputs"]], r["n"]),
        "release": lambda r: release(r["inputs"]),
    }
    _warm_up(torch)
    reply(torch=torch.__version__, threads=torch.get_num_threads())
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply(result=commands[request["cmd"]](request))
        except Exception:                        # the parent raises it with this traceback
            reply(error=traceback.format_exc())
