"""The graph-mode examples a new user opens: the script and the notebook run and show what
they promise."""
import os
import re
import subprocess
import sys

from helpers import notebook_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_graph_mode_script_runs():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "graph_mode.py")],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("[ok]") == 4
    assert "# IR entry: @" in out.stdout and "PrimFunc_Sub(%para1_x, I64(1))" in out.stdout


def test_graph_mode_notebook_executes():
    text = notebook_text("examples/graph_mode.ipynb")
    assert "value= [ 8.30000000e+01]" in text
    assert "# IR entry: @" in text and "PrimFunc_Add(%0, %para2_y)" in text   # shown inline
    assert "steps: 111" in text
    assert "equal to eager: True" in text
    assert "MatMulShapeError : For 'MatMul'" in text and "graph mode source trace" in text
    assert re.search(r"^00_parse_\d{4}\.ir\n01_inline_\d{4}\.ir$", text, re.M)   # save_graphs
    assert "custom pass rewrote: 1" in text and "equal: True" in text
