"""The examples a new user opens: the notebook runs in a real Jupyter kernel and shows what
it promises; the demo script runs."""
import os
import subprocess
import sys

from helpers import notebook_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_eager_ops_notebook_executes():
    text = notebook_text("examples/eager_ops.ipynb")
    assert "Tensor(shape=[2, 3], dtype=Float32, value=" in text
    assert "Float32 Int64 Float64 Bool" in text
    assert "Float32 Int16 Int32 Float32" in text
    assert "ValueError : For 'Add', input1.shape and input2.shape need to broadcast" in text
    assert "[[0. 0. 0.]\n [1. 2. 3.]]" in text                   # relu(x)


def test_demo_runs():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "demo.py"), "--quick"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "mindlite" in out.stdout
