"""C++ kernels (mindlite._C, csrc/) on the thread pool and other instruction sets.

Large arrays (>= 1M elements) so the pool really splits, with results bit-identical across
splits and correct; the split table; threads sharing the pool; the pool after fork; the loops
compiled for lower instruction sets (MINDLITE_ISA) giving the same answers. Per-op correctness:
test_cpp_kernels.py.
"""
import multiprocessing
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from cpp_reference import SPLITS, UNARY_OPS, assert_matches, reference, run_binary, run_unary
from helpers import DEFAULT_THRESHOLD, noncontig, split
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite.kernels.cpu._cext import _C


LARGE_OPS = ["Add", "Mul", "Maximum", "GreaterEqual", "FloorMod", "ReLU", "Sigmoid", "Exp",
             "Tanh", "Sin"]


@pytest.mark.parametrize("op", LARGE_OPS)
@settings(max_examples=3)
@given(seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from([np.float32, np.float64]),
       kind=st.sampled_from(["contig", "broadcast", "noncontig", "flipped"]))
def test_large_splits_identical_and_correct(op, seed, dtype, kind):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((1024, 1031)) * 20).astype(dtype)
    x.flat[::997] = np.nan
    y = (rng.standard_normal((1031,) if kind == "broadcast" else (1024, 1031)) * 5).astype(dtype)
    if kind == "noncontig":
        x = noncontig(x)
    elif kind == "flipped":
        x, y = np.flip(x), y[::-1]
    results = []
    for threads in SPLITS:
        with split(threads, DEFAULT_THRESHOLD):
            results.append(run_unary(op, x) if op in UNARY_OPS else run_binary(op, x, y))
    want = reference(op, x) if op in UNARY_OPS else reference(op, x, y)
    assert_matches(op, results[0], want)
    for r in results[1:]:
        assert r.tobytes() == results[0].tobytes()


def test_split_table_records_a_choice():
    _C.reset_split_table()
    x = np.ones(1 << 20, np.float32)
    out = np.empty_like(x)
    key = ("binary", "Add", "float32", 20)
    for _ in range(20 * _C.max_threads()):  # a few timed launches per candidate thread count
        _C.binary(_C.BINARY_OPS["Add"], x, x, out)
        if key in _C.split_table():
            break
    assert 1 <= _C.split_table()[key] <= _C.max_threads()
    np.testing.assert_array_equal(out, 2)


def test_threads_share_the_pool():
    x = np.arange(1 << 20, dtype=np.float64)
    outs = [np.empty_like(x) for _ in range(4)]
    workers = [threading.Thread(target=_C.UNARY_KERNELS["Sqrt"], args=(x, o)) for o in outs]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for o in outs:
        np.testing.assert_array_equal(o, np.sqrt(x))


def _mul_large():
    x = np.arange(1 << 20, dtype=np.float32)
    out = np.empty_like(x)
    with split(2, 1024):
        _C.binary(_C.BINARY_OPS["Mul"], x, x, out)
    return bool(np.array_equal(out, x * x))


def _fork_child(conn):
    conn.send(_mul_large())


def test_pool_works_after_fork():
    assert _mul_large()  # the parent's pool workers exist before the fork
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe()
    p = ctx.Process(target=_fork_child, args=(child,))
    p.start()
    assert parent.poll(60) and parent.recv() is True
    p.join(10)


@pytest.mark.parametrize("isa", ["base", "avx2"])
def test_other_isa_builds(isa):
    """The loops compiled for a lower instruction set give the same answers."""
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
            "import cpp_reference as t; t.check_all_ops_fixed_inputs()")
    env = dict(os.environ, MINDLITE_ISA=isa)
    res = subprocess.run([sys.executable, "-c", code], check=False, env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    if _C.kernel_isa() in ("avx512", "avx2") or isa == "base":
        assert res.stdout.split()[-1] == isa
