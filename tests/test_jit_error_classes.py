"""A shape mismatch in a jitted matrix product raises what MindSpore 2.10 raises there (issue
28, 7): RuntimeError for ops.matmul, `@` and Tensor.matmul (MindSpore's MatMulExt),
ValueError for ops.MatMul and BatchMatMul; mindlite's MatMulShapeError is both, raised at
compile time with the user's source line first in the graph trace. The classes are checked
against the real MindSpore where its side venv is installed."""
import os
import subprocess

import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, ops


def _a(*shape):
    return Tensor(np.ones(shape, np.float32))


def functional(x, y):
    return ops.matmul(x + 1, y)


def operator(x, y):
    return x @ y


def method(x, y):
    return x.matmul(y)


def primitive(x, y):
    return ops.MatMul()(x, y)


def batched(x, y):
    return ops.BatchMatMul()(x, y)


# what MindSpore 2.10 GRAPH_MODE raises (observed; test_against_mindspore checks it live)
CASES = {functional: ("RuntimeError", (2, 3), (4, 5)),
         operator: ("RuntimeError", (2, 3), (4, 5)),
         method: ("RuntimeError", (2, 2, 3), (2, 4, 5)), primitive: ("ValueError", (2, 3), (4, 5)),
         batched: ("ValueError", (2, 2, 3), (2, 4, 5))}


@pytest.mark.parametrize("fn", list(CASES), ids=lambda f: f.__name__)
def test_the_class_mindspore_raises_with_the_source_line(fn):
    cls, sa, sb = CASES[fn]
    with pytest.raises({"RuntimeError": RuntimeError, "ValueError": ValueError}[cls]) as e:
        ms.jit(fn)(_a(*sa), _a(*sb))
    text = str(e.value)
    assert text.startswith(("For 'MatMul' the input dimensions must be equal",
                            "For 'BatchMatMul' the input dimensions must be equal"))
    trace = text.split("----- graph mode source trace -----")[1].strip().splitlines()
    assert trace[0].startswith(f"In file {__file__}:")
    assert fn.__name__ != "functional" or trace[1].strip() == "return ops.matmul(x + 1, y)"
    with pytest.raises((ValueError, RuntimeError)):             # eager: the same error
        fn(_a(*sa), _a(*sb))


_MS = "/opt/msvenv/bin/python"


@pytest.mark.skipif(not os.path.exists(_MS), reason="MindSpore side venv not installed")
def test_against_mindspore(tmp_path):
    src = open(__file__).read()
    program = src[src.index("def _a("):src.index("# what MindSpore")]
    program = program.replace("Tensor(", "ms.Tensor(").replace("ops.", "ms.ops.")
    script = tmp_path / "classes.py"
    script.write_text("import numpy as np\nimport mindspore as ms\n"
                      "ms.set_context(mode=ms.GRAPH_MODE)\n" + program + """
import sys
for name, sa, sb in %r:
    try:
        ms.jit(globals()[name])(_a(*sa), _a(*sb))
        print(name, "none")
    except Exception as e:
        print(name, type(e).__name__)
""" % [(f.__name__, sa, sb) for f, (_, sa, sb) in CASES.items()])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["GLOG_v"] = "3"
    r = subprocess.run([_MS, str(script)], capture_output=True, text=True, env=env,
                       timeout=600, cwd=tmp_path)
    got = dict(line.split() for line in r.stdout.splitlines() if len(line.split()) == 2)
    assert got == {f.__name__: c for f, (c, _, _) in CASES.items()}, r.stderr[-2000:]
