"""python -m mindlite.benchmark (subprocess) and mindlite.profiler.profile_call: runs, exit codes,
stage figures positive and finite (no timing bounds: tests never assert timings)."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from mindlite import Tensor, ops
from mindlite.profiler import format_breakdown, profile_call, stage_sum
from mindlite.profiler.breakdown import FRAMES, GLUE, glue_by_frame
from mindlite.pynative.grad import GRAD_EXECUTOR

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _cli(*args):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "mindlite.benchmark", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def _figure(line):
    """The µs figure after 'median' in a latency line."""
    words = line.split()
    return float(words[words.index("median") + 1])


def test_cli_relu():
    r = _cli("--op", "ReLU", "--shape", "4,4", "--repeat", "3", "--compare", "numpy")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("ReLU (4, 4)")
    ml = [ln for ln in lines if ln.startswith("mindlite ")]
    npl = [ln for ln in lines if ln.startswith("numpy ")]
    assert len(ml) == 1 and len(npl) == 1 and "ratio" in npl[0]
    assert "ratio = mindlite time / comparator time" in r.stdout and "lower is better" in r.stdout
    ratio = float(npl[0].split()[-1])
    # the figures and the ratio are printed to 2 decimals: the ratio of the unrounded figures
    # lies within the bounds the rounded ones allow
    a, b, h = _figure(ml[0]), _figure(npl[0]), 0.005
    assert (a - h) / (b + h) - h <= ratio <= (a + h) / (b - h) + h
    assert _figure(ml[0]) > 0 and _figure(npl[0]) > 0
    for stage in ("signature key", "inference", "kernel selection", "key + runner lookup",
                  "output allocation", "kernel launch", "Tensor wrap", "measured call",
                  "Python glue (unattributed)", "in run_op", "in get_output"):
        assert stage in r.stdout, stage
    assert "grad record" not in r.stdout


def test_cli_add_grad():
    r = _cli("--op", "Add", "--shape", "4,4", "--shape2", "4", "--grad", "--repeat", "3",
             "--compare", "torch,numpy")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Add (4, 4) x (4,)")
    assert "(grad recorded)" in r.stdout.splitlines()[0]
    assert r.stdout.count("grad record ") == 2           # first-call and cached stages
    assert any(ln.startswith("torch ") for ln in r.stdout.splitlines())  # timed or not installed
    assert not GRAD_EXECUTOR.recording


@pytest.mark.parametrize("args, words", [
    (("--op", "NoSuchOp"), ("unknown op", "NoSuchOp")),
    (("--op", "ReLU", "--shape", "4,x"), ("--shape", "4,x")),
    (("--op", "ReLU", "--dtype", "floaty"), ("--dtype", "floaty")),
    (("--op", "MatMul", "--shape", "4,3"), ("MatMul",)),
    (("--op", "ReLU", "--compare", "jax"), ("--compare", "jax")),
    (("--op", "Softmax", "--shape", "3,0", "--compare", "numpy"), ("numpy", "Softmax", "(3, 0)")),
    (("--op", "no_such_op"), ("unknown op", "no_such_op")),
])
def test_cli_bad_arguments_exit_2(args, words):
    r = _cli(*args, "--repeat", "1")
    assert r.returncode == 2
    assert r.stdout == ""
    for w in words:
        assert w in r.stderr


@pytest.mark.parametrize("name, prim, shape2", [
    ("relu", "ReLU", None), ("matmul", "MatMul", "4,4"), ("reduce_sum", "ReduceSum", None),
    ("sum", "ReduceSum", None), ("MATMUL", "MatMul", "4,4"), ("log_softmax", "LogSoftmax", None),
])
def test_cli_lower_case_and_functional_names(name, prim, shape2):
    extra = ("--shape2", shape2) if shape2 else ()
    r = _cli("--op", name, "--shape", "4,4", *extra, "--repeat", "1")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"{prim} (4, 4)")


def _check(d, grad):
    for k, v in d.items():
        assert math.isfinite(v) and v > 0, (k, v)
    for phase in ("first", "cached"):
        # figures only: no timing bound (a GC pause or a busy CI core makes any bound flaky)
        total, parts = d[phase + "/total"], stage_sum(d, phase)
        assert math.isfinite(total) and total > 0 and math.isfinite(parts) and parts > 0
    assert ("cached/grad record" in d) == grad and ("first/grad record" in d) == grad
    # every first-call stage sits in one frame, so the glue by frame is all of the rest
    framed = [f"first/{s}" for _, _, stages, _ in FRAMES for s in stages]
    assert len(framed) == len(set(framed))
    top = [k for k in d if k.startswith("first/") and k != "first/total" and k.count("/") == 1]
    assert set(top) <= set(framed), set(top) - set(framed)
    glue = glue_by_frame(d)
    assert [name for name, _ in glue] == [name for name, _, _, _ in FRAMES]
    assert sum(us for _, us in glue) == pytest.approx(d["first/total"] - stage_sum(d, "first"))
    text = format_breakdown(d)
    assert "first call of the signature:" in text and "cached call (runner):" in text
    assert text.count(GLUE) == 2 and text.count("measured call") == 2


@pytest.mark.parametrize("grad", [False, True])
def test_profile_call_binary(grad):
    x = Tensor(np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32))
    y = Tensor(np.random.default_rng(1).standard_normal((4,)).astype(np.float32))
    d = profile_call(ops.Add(), x, y, repeat=3, grad=grad)
    _check(d, grad)
    for stage in ("first/C key + runner miss", "first/dispatch key + runner miss",
                  "first/executor entry", "first/run info (signature key)", "first/cast inputs",
                  "first/inference", "first/compile op", "first/compile op/kernel selection",
                  "first/run kernel graph", "first/run kernel graph/output allocation",
                  "first/run kernel graph/launch", "first/runner build",
                  "first/runner install", "first/Tensor wrap", "cached/key + runner lookup",
                  "cached/output allocation", "cached/kernel launch", "cached/Tensor wrap"):
        assert stage in d
    assert not GRAD_EXECUTOR.recording


def test_profile_call_const_input_and_scalar():
    x = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    d = profile_call(ops.ReduceSum(), x, 1, repeat=3)
    _check(d, False)
    assert "cached/input read" not in d            # a C FastRunner: the constant is skipped
    d = profile_call(ops.Add(), x, 2.0, repeat=3)  # the scalar is converted in C
    _check(d, False)
    assert "cached/input read" not in d
    d = profile_call(ops.Add(), x, Tensor(np.ones(4, np.int32)), repeat=3)
    _check(d, False)
    assert "cached/input read" in d                # Python runner: casts the int32 input
    d = profile_call(ops.Reshape(), x, (12,), repeat=3)   # the kernel allocates: no alloc stage
    _check(d, False)
    assert "cached/output allocation" not in d


def test_profile_call_constant_folded_is_an_error():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="Shape"):
        profile_call(ops.Shape(), x, repeat=1)
