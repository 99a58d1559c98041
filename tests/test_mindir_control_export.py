"""MINDIR export of control flow on tensors: an `if` inside a `while` (issue 28, 5a), a
branch that returns a variable it does not change (a node of the enclosing loop graph: a
free variable of the branch, passed in through its Partial), a `break`, an `if` after a
loop. Each file loads back in mindlite and, where the MindSpore side venv is installed, in
MindSpore 2.10, and both run it to eager's result."""
import os
import subprocess

import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, nn

X = np.array([1.0, 0.5], np.float32)


def if_in_while(x):
    i = x.sum() * 0
    while i < 3:
        if x.sum() > i:
            x = x * 2
        else:
            x = x - 1
        i = i + 1
    return x


def unchanged_in_a_branch(x):
    i = x.sum() * 0
    while i < 3:
        t = x * 0
        if x.sum() > i:
            t = x + 1
        x = t + x
        i = i + 1
    return x


def breaks(x):
    i = x.sum() * 0
    while i < 5:
        i = i + 1
        if i > 2:
            break
        x = x * 2
    return x


def if_after_while(x):
    i = x.sum() * 0
    while i < 3:
        if x.sum() > i:
            x = x * 2
        i = i + 1
    if x.sum() > 5:
        x = x - 5
    return x


PROGRAMS = [if_in_while, unchanged_in_a_branch, breaks, if_after_while]


@pytest.mark.parametrize("fn", PROGRAMS)
def test_export_and_load_back(fn, tmp_path):
    x = Tensor(X)
    path = str(tmp_path / fn.__name__)
    ms.export(fn, x, file_name=path, file_format="MINDIR")
    cell = nn.GraphCell(ms.load(path + ".mindir"))
    for v in (X, -X, X * 3):
        np.testing.assert_array_equal(cell(Tensor(v)).asnumpy(), fn(Tensor(v)).asnumpy())


_MS = "/opt/msvenv/bin/python"
_LOAD = """
import sys
import numpy as np
import mindspore as ms
ms.set_context(mode=ms.GRAPH_MODE)
for path in sys.argv[1:]:
    cell = ms.nn.GraphCell(ms.load(path))
    for v in (1.0, -1.0, 3.0):
        x = ms.Tensor(np.array([1.0, 0.5], np.float32) * v)
        print(cell(x).asnumpy().tolist())
"""


@pytest.mark.skipif(not os.path.exists(_MS), reason="MindSpore side venv not installed")
def test_mindspore_loads_and_runs_the_files(tmp_path):
    paths, want = [], []
    for fn in PROGRAMS:
        path = str(tmp_path / fn.__name__)
        ms.export(fn, Tensor(X), file_name=path, file_format="MINDIR")
        paths.append(path + ".mindir")
        want += [fn(Tensor(X * v)).asnumpy().tolist() for v in (1.0, -1.0, 3.0)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["GLOG_v"] = "3"
    r = subprocess.run([_MS, "-c", _LOAD] + paths, capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    got = [eval(line) for line in r.stdout.splitlines() if line.startswith("[")]
    assert got == want
